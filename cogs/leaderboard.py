"""``/leaderboard``, ``/stats`` and ``/history``: this server's ladders and records.

``/stats`` and ``/history`` also work outside servers (a DM, a group DM, a server without
the bot, through the app installed to a user): ``/stats`` then shows a player's record in
every server and with friends, with the head-to-head record of the caller and the player
asked about; ``/history`` the caller's games outside servers (``FRIENDS_LADDER``), or only
those with one friend. Lists of games outside servers never show a third person's games.

The queries live in ``bot.ladder.standings``; ``cogs.leaderboard_render`` draws them as
embeds, this module answers the commands and the page buttons with them. A leaderboard is
one season's (``bot.ladder.seasons``): the one running, or a closed one's final standings
with ``season:<number>``. Page buttons are DynamicItems (prefix ``lb:``) whose custom_id
carries the game, the sort, the page and the season to show (the server is the
interaction's), so they keep working after a restart and keep showing the season they
were made for after it closes: ``lb:<game>:<rating|wins|win_rate>:<page>:<p|n>:s<season>``
(``p``/``n`` only keeps the Previous and Next buttons' ids distinct when both point at the
same page; buttons from before seasons, without ``:s<season>``, show the season running).
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import i18n
from bot.app import DiceBot
from bot.i18n import _, number
from bot.ladder.seasons import closed_seasons, current_season, find_season
from bot.ladder.standings import (
    SORT_LABELS,
    LeaderboardPage,
    SortKey,
    leaderboard_page,
    lifetime_stats,
    player_stats,
)
from bot.ladder.standings import history as finished_games
from bot.model.catalog import GAME_TITLES, GAMES, game_title
from bot.model.contract import FRIENDS_LADDER
from bot.model.errors import UserError
from bot.play.tournaments import tournament_record_of
from bot.ui.answers import answer_for
from bot.ui.delivery import reach_of
from bot.ui.languages import public_language
from bot.ui.replay import pick_view
from bot.ui.replies import Guarded
from cogs.leaderboard_render import (
    history_embed,
    leaderboard_embed,
    lifetime_stats_embed,
    outside_history_embed,
    replay_choices,
    stats_embed,
)
from cogs.texts import GAME_CHOICES, command_text, start_hint

SORT_CHOICES = [
    app_commands.Choice(name="rating", value="rating"),
    app_commands.Choice(name="wins", value="wins"),
    app_commands.Choice(name="win rate", value="win_rate"),
]


class PageButton(
    Guarded,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"lb:(?P<game>[a-z_]{1,32}):(?P<sort>rating|wins|win_rate)"
        r":(?P<page>[1-9][0-9]{0,5}):(?P<dir>[pn])(?::s(?P<season>[1-9][0-9]{0,5}))?"
    ),
):
    def __init__(
        self,
        game: str,
        sort: SortKey,
        page: int,
        direction: str,
        *,
        season: int | None,
        disabled: bool,
    ) -> None:
        self.game, self.sort, self.page, self.season = game, sort, page, season
        label = "◀ " + _("Previous") if direction == "p" else _("Next") + " ▶"
        pinned = "" if season is None else f":s{season}"
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"lb:{game}:{sort}:{page}:{direction}{pinned}",
                disabled=disabled,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        sort: SortKey = match["sort"]  # type: ignore[assignment]
        season = None if match["season"] is None else int(match["season"])
        return cls(
            match["game"], sort, int(match["page"]), match["dir"], season=season, disabled=False
        )

    async def handle(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, DiceBot)
        if interaction.guild_id is None or self.game not in GAME_TITLES:
            raise UserError(
                _("This leaderboard is no longer available: use {command}.").format(
                    command=command_text("leaderboard")
                )
            )
        with i18n.use(await public_language(bot, interaction.guild_id)):
            fields = await leaderboard_fields(
                bot, interaction.guild_id, self.game, self.sort, self.page, self.season
            )
        await answer_for(interaction).update(**fields)


def leaderboard_view(board: LeaderboardPage) -> discord.ui.View | None:
    if board.pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    season = board.season.number
    view.add_item(
        PageButton(
            board.game,
            board.sort,
            max(1, board.page - 1),
            "p",
            season=season,
            disabled=board.page <= 1,
        )
    )
    view.add_item(
        PageButton(
            board.game,
            board.sort,
            min(board.pages, board.page + 1),
            "n",
            season=season,
            disabled=board.page >= board.pages,
        )
    )
    return view


async def no_such_season(bot: DiceBot, guild_id: int, game: str, asked: int) -> str:
    """The refusal of a season ``asked`` that ``game`` does not have here: which seasons
    exist."""
    current = await current_season(bot.db, guild_id, game)
    closed = await closed_seasons(bot.db, guild_id, game, limit=1)
    if not closed:
        return _(
            "There is no season {asked}: {game} has only season {number} here, the one running."
        ).format(asked=number(asked), game=game_title(game), number=number(current.number))
    return _(
        "There is no season {asked}: {game} seasons here run up to {number}, the one running "
        "({command} shows them all)."
    ).format(
        asked=number(asked),
        game=game_title(game),
        number=number(current.number),
        command=command_text("dicebot", "season", "list"),
    )


async def leaderboard_fields(
    bot: DiceBot,
    guild_id: int,
    game: str,
    sort: SortKey,
    page: int,
    season_number: int | None = None,
) -> dict[str, Any]:
    settings = await bot.sessions.guild_settings(guild_id)
    season = None
    if season_number is not None:
        season = await find_season(bot.db, guild_id, game, season_number)
        if season is None:
            raise UserError(await no_such_season(bot, guild_id, game, season_number))
    board = await leaderboard_page(
        bot.db,
        guild_id,
        game,
        season=season,
        sort=sort,
        page=page,
        provisional_games=settings.provisional_games,
    )
    return {
        "embed": leaderboard_embed(board, start_hint(bot, game)),
        "view": leaderboard_view(board),
        "allowed_mentions": discord.AllowedMentions.none(),
    }


def server_of(interaction: discord.Interaction) -> int | None:
    """The server whose records a command shows: the interaction's, if the bot is in it;
    None outside servers (a DM, a group DM, a server without the bot), where a game is
    reached only through interactions and recorded with friends (``reach_of`` decides
    both alike)."""
    return interaction.guild_id if reach_of(interaction) == "member" else None


# -- the cog -----------------------------------------------------------------------------------


class Leaderboards(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.register_components(PageButton)

    @app_commands.command(
        name="leaderboard",
        description="This server's ranking in one game.",
        extras={"public": True},
    )
    @app_commands.describe(
        game="Which game.",
        sort="Order by rating (default), wins or win rate.",
        page="Which page of ten (default 1).",
        season="A past season's final standings, by number (default: the season running).",
    )
    @app_commands.choices(game=GAME_CHOICES, sort=SORT_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        game: str,
        sort: str = "rating",
        page: app_commands.Range[int, 1, 100_000] = 1,
        season: app_commands.Range[int, 1, 100_000] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        if game not in GAME_TITLES or sort not in SORT_LABELS:
            raise UserError(_("Pick a game and a sort from the lists Discord offers."))
        sort_key: SortKey = sort  # type: ignore[assignment]
        # A public answer: everyone reads it in the server's language.
        with i18n.use(await public_language(self.bot, interaction.guild_id)):
            fields = await leaderboard_fields(
                self.bot, interaction.guild_id, game, sort_key, page, season
            )
        await answer_for(interaction).send(ephemeral=False, **fields)

    @app_commands.command(
        name="stats",
        description="A player's record in this server; outside servers, everywhere.",
        extras={"public": True},
    )
    @app_commands.describe(user="Whose stats (default: yours).")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def stats(
        self, interaction: discord.Interaction, user: discord.Member | discord.User | None = None
    ) -> None:
        target = user or interaction.user
        guild_id = server_of(interaction)
        if guild_id is None:
            # Outside servers: in the caller's language (there is no server's to speak).
            everywhere = await lifetime_stats(self.bot.db, target.id, viewer_id=interaction.user.id)
            embed = lifetime_stats_embed(
                everywhere, target.display_name, interaction.user.display_name, self.bot.guides
            )
            await answer_for(interaction).send(
                ephemeral=False, embed=embed, allowed_mentions=discord.AllowedMentions.none()
            )
            return
        settings = await self.bot.sessions.guild_settings(guild_id)
        found = await player_stats(
            self.bot.db,
            guild_id,
            target.id,
            provisional_games=settings.provisional_games,
        )
        played, won = await tournament_record_of(self.bot.db, guild_id, target.id)
        with i18n.use(await public_language(self.bot, guild_id)):
            embed = stats_embed(found, target.display_name, self.bot.guides)
            if played:
                embed.add_field(
                    name=_("🏆 Tournaments"),
                    value=_("Played: {played} · Won: {won}").format(
                        played=number(played), won=number(won)
                    ),
                    inline=False,
                )
        await answer_for(interaction).send(
            ephemeral=False, embed=embed, allowed_mentions=discord.AllowedMentions.none()
        )

    @app_commands.command(
        name="history",
        description="Recent finished games in this server; outside servers, yours.",
        extras={"public": True},
    )
    @app_commands.describe(
        game="Only this game.",
        user="Only this player's games (outside servers: your games with them).",
    )
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def history(
        self,
        interaction: discord.Interaction,
        game: str | None = None,
        user: discord.Member | discord.User | None = None,
    ) -> None:
        if game is not None and game not in GAMES:
            raise UserError(_("Pick a game from the list Discord offers."))
        guild_id = server_of(interaction)
        if guild_id is None:
            await self._history_outside_servers(interaction, game, user)
            return
        entries = await finished_games(
            self.bot.db,
            guild_id,
            game=game,
            user_id=None if user is None else user.id,
        )
        with i18n.use(await public_language(self.bot, guild_id)):
            who = None if user is None else user.display_name
            embed = history_embed(entries, game, who, self.bot.guides)
            # Each game listed can be replayed, in private, by whoever picks it.
            view = pick_view(replay_choices(entries, self.bot.guides))
        await answer_for(interaction).send(
            ephemeral=False,
            embed=embed,
            view=view,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _history_outside_servers(
        self,
        interaction: discord.Interaction,
        game: str | None,
        user: discord.Member | discord.User | None,
    ) -> None:
        """The caller's games outside servers (with friends, and against the AI there), or
        only those they played with ``user``, in the caller's language; each can be
        replayed (``bot.ui.replay``: a game with friends, by its players or where it was
        played)."""
        caller = interaction.user
        together = None if user is None or user.id == caller.id else user
        entries = await finished_games(
            self.bot.db,
            FRIENDS_LADDER,
            game=game,
            user_id=caller.id,
            with_user=None if together is None else together.id,
        )
        embed = outside_history_embed(
            entries,
            game,
            caller.display_name,
            None if together is None else together.display_name,
            self.bot.guides,
        )
        view = pick_view(replay_choices(entries, self.bot.guides))
        await answer_for(interaction).send(
            ephemeral=False,
            embed=embed,
            view=view,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, DiceBot)
    await bot.add_cog(Leaderboards(bot))
