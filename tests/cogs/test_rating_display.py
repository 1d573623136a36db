"""The rating as players read it on /leaderboard and /stats: one scale everywhere, whole
numbers, never negative, a new player at 1,000, and a line saying what it means. The stored
rating (openskill's mu, sigma and the conservative mu - 3 sigma) is never changed."""

from __future__ import annotations

from guides import every_guide

from bot import i18n
from bot.ladder.results import RATING_MODEL, Placing, ordinal, rate, shown_rating
from bot.ladder.seasons import Season
from bot.ladder.standings import (
    GameStats,
    LeaderboardPage,
    PlayerStats,
    Ranked,
    SeasonRecord,
    Standing,
)
from cogs.leaderboard_render import leaderboard_embed, stats_embed

SEASON = Season(1, "knucklebones", 1, "", 1_800_000_000.0)
NEW = (RATING_MODEL.mu, RATING_MODEL.sigma)
WINNER, LOSER = 1, 2


def after_one_game() -> dict[int, tuple[float, float]]:
    """Two new players' (mu, sigma) after one game that WINNER won."""
    return rate({WINNER: NEW, LOSER: NEW}, [Placing(WINNER, 1, "win"), Placing(LOSER, 2, "loss")])


def standing(user_id: int, name: str, mu: float, sigma: float, wins: int, losses: int) -> Standing:
    return Standing(
        user_id=user_id,
        mu=mu,
        sigma=sigma,
        ordinal=ordinal(mu, sigma),
        wins=wins,
        losses=losses,
        draws=0,
        games=wins + losses,
        streak=wins or -losses,
        best_streak=wins,
        ai_wins=0,
        ai_losses=0,
        ai_draws=0,
        score_total=0,
        scored_games=0,
        display_name=name,
    )


def board(*standings: Standing) -> LeaderboardPage:
    return LeaderboardPage(
        game="knucklebones",
        season=SEASON,
        sort="rating",
        page=1,
        pages=1,
        ranked_total=len(standings),
        rows=[Ranked(rank, s) for rank, s in enumerate(standings, start=1)],
        provisional=[],
        provisional_total=0,
        minimum_games=1,
    )


def stats_of(s: Standing) -> PlayerStats:
    record = SeasonRecord(s.ordinal, s.wins, s.losses, s.draws, s.games, s.streak, s.best_streak)
    game = GameStats("knucklebones", s, SEASON, record, None, 0, 3, None)
    return PlayerStats(user_id=s.user_id, games=[game], recent=[])


def test_a_new_and_a_losing_player_on_the_leaderboard() -> None:
    rated = after_one_game()
    # The stored estimates: 0 for a new player, below 0 after a first loss.
    assert ordinal(*NEW) == 0
    assert ordinal(*rated[LOSER]) < -1.8
    winner = standing(WINNER, "alice", *rated[WINNER], 1, 0)
    loser = standing(LOSER, "bob", *rated[LOSER], 0, 1)
    new = standing(3, "carol", *NEW, 0, 0)
    embed = leaderboard_embed(board(winner, new, loser), "")
    assert embed.description is not None
    rows = embed.description.split("\n")[2:]
    assert rows == [
        "` 1` alice · **1,103** · 1/0/0 · 1 · W1",
        "` 2` carol · **1,000** · 0/0/0 · 0 · —",
        "` 3` bob · **945** · 0/1/0 · 1 · L1",
    ]
    assert embed.footer.text is not None
    assert "rating: a cautious estimate of skill, starting at 1,000, that firms up as you play" in (
        embed.footer.text
    )


def test_a_losing_player_s_stats_in_spanish_and_in_french() -> None:
    loser = standing(LOSER, "bob", *after_one_game()[LOSER], 0, 1)
    with i18n.use("es"):
        spanish = stats_embed(stats_of(loser), "bob", every_guide())
    with i18n.use("fr"):
        french = stats_embed(stats_of(loser), "bob", every_guide())
    assert "Temporada 1: puntuación **945** · provisional" in spanish.fields[0].value
    assert spanish.footer.text is not None and "empieza en 1000" in spanish.footer.text
    assert "Saison 1 : score **945** · provisoire" in french.fields[0].value
    assert french.footer.text is not None and "part de 1\u202f000" in french.footer.text


def test_the_scale_is_whole_never_negative_and_keeps_the_ladder_s_order() -> None:
    # Thirty straight losses against new players: still well above 0.
    rating = NEW
    for _ in range(30):
        rating = rate({LOSER: rating, 9: NEW}, [Placing(9, 1, "win"), Placing(LOSER, 2, "loss")])[
            LOSER
        ]
    assert ordinal(*rating) < -16
    assert 400 < shown_rating(ordinal(*rating)) < 1000
    # Only an estimate below -33 meets the floor.
    assert shown_rating(-33.4) == 0 and shown_rating(-1_000.0) == 0
    estimates = [-40.0, -5.2, -0.01, 0.0, 0.02, 3.4, 8.39, 45.0]
    shown = [shown_rating(value) for value in estimates]
    assert all(isinstance(value, int) and value >= 0 for value in shown)
    assert shown == sorted(shown)
    assert shown[3] == 1000
