"""``/odds`` end to end: the real bot against the fake Discord."""

from __future__ import annotations

import io
import logging
import threading

import pytest
from fakediscord import CallbackType, FakeDiscord, FakeGuild, Player, pseudo, wait_for_answer
from PIL import Image

from bot.app import DiceBot
from cogs.odds import figures as odds_figures
from cogs.odds import picture as odds_picture
from cogs.odds import render

# Cached answers must come back well inside Discord's window; this leaves room for a busy CI.
QUICK = 1.0


def registered_options(fake_discord: FakeDiscord, guild: FakeGuild, sub: str) -> list[dict]:
    command = fake_discord.commands.find("odds", guild)
    assert command is not None
    (subcommand,) = [o for o in command.data["options"] if o["name"] == sub]
    return list(subcommand.get("options", []))


async def test_odds_commands_are_registered_with_die_choices(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild
) -> None:
    names = fake_discord.commands.names(guild.id)
    assert {"odds diceman", "odds weighted", "odds knucklebones"} <= set(names)
    options = {o["name"]: o for o in registered_options(fake_discord, guild, "weighted")}
    for die in ("die_a", "die_b"):
        assert not options[die].get("required", False)
        assert [c["name"] for c in options[die]["choices"]] == [
            "d4",
            "d6",
            "d8",
            "d10",
            "d12",
            "d20",
        ]
        assert [c["value"] for c in options[die]["choices"]] == [4, 6, 8, 10, 12, 20]


async def test_diceman_heatmap_is_attached_and_cached(
    running_bot: DiceBot, fake_discord: FakeDiscord, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    # The first request after start-up computes the picture: it defers, then fills in.
    odds_figures.DICEMAN_PICTURE.forget()
    first = await alice.slash("odds diceman")
    assert first.type is CallbackType.DEFERRED_MESSAGE and first.ephemeral
    shown = await first.final_message()
    picture = shown.attachment(render.HEATMAP_NAME)
    assert (picture.width, picture.height) == odds_picture.heatmap_size(6)
    assert Image.open(io.BytesIO(picture.content)).format == "PNG"
    embed = shown.embed
    assert embed is not None and embed["image"]["url"] == picture.url
    assert picture.description is not None and picture.description.startswith("Diceman")
    text = shown.text()
    assert "**Magic + Shield** is the best all-round pick; never take **Priority**." in text
    assert "**Magic + Shield** in 58% of rounds" in text
    assert "never: Magic + Priority, Priority + Sword, Priority + Shield" in text
    for jargon in ("Equilibrium", "game value", "P(row", "python"):
        assert jargon not in text

    # From now on the cached bytes go straight out, the same picture for everyone.
    again = await bob.slash("odds diceman")
    assert again.type is CallbackType.MESSAGE and again.ephemeral
    assert again.latency < QUICK
    assert again.message is not None
    assert again.message.attachment(render.HEATMAP_NAME).content == picture.content
    # Only the asking players saw it: nothing public in the channel.
    assert guild.default_channel.messages() == []


async def test_diceman_can_be_shared_with_the_channel(
    running_bot: DiceBot, guild: FakeGuild, alice: Player, bob: Player
) -> None:
    shared = await alice.slash("odds diceman", share=True)
    message = (
        shared.message if shared.type is CallbackType.MESSAGE else await shared.final_message()
    )
    assert not message.ephemeral
    assert guild.default_channel.last_message(viewer=bob) is message
    assert message.attachment(render.HEATMAP_NAME).width == odds_picture.heatmap_size(6)[0]


async def test_weighted_pair_shows_exact_fractions_and_percentages(
    running_bot: DiceBot, alice: Player
) -> None:
    d20_d4 = await alice.slash("odds weighted", die_a="d20", die_b="d4")
    assert d20_d4.type is CallbackType.MESSAGE and d20_d4.ephemeral
    assert d20_d4.latency < QUICK
    text = d20_d4.text()
    assert "d20 against d4" in text
    assert "The d20 wins: **7/8** = 87.5%" in text
    assert "The d4 wins: **3/40** = 7.5%" in text
    assert "Tie, the house takes every bet: **1/20** = 5%" in text
    assert "The d20 is the favourite" in text

    even = await alice.slash("odds weighted", die_a=4, die_b=4)
    text = even.text()
    assert "First roller (d4) wins: **3/8** = 37.5%" in text
    assert "Tie, the house takes every bet: **1/4** = 25%" in text
    assert "Even dice" in text


async def test_weighted_one_die_or_none(running_bot: DiceBot, alice: Player) -> None:
    one = await alice.slash("odds weighted", die_b="d6")
    lines = one.text().splitlines()
    assert "a d6 against every die" in one.text()
    assert ["d4", "58.33%", "25%", "16.67%"] in [line.split() for line in lines]

    grid = await alice.slash("odds weighted")
    text = grid.text()
    assert "The row roller wins" in text and "the house takes every bet" in text
    rows = [line.split() for line in text.splitlines()]
    # Whole percentages, so six dice fit a phone's width (one pair's fractions: die_a, die_b).
    assert ["%", "d4", "d6", "d8", "d10", "d12", "d20"] in rows
    assert ["d4", "25", "17", "13", "10", "8", "5"] in rows  # ties
    assert ["d20", "88", "83", "78", "73", "68", "48"] in rows  # wins
    tables = text.split("```")[1::2]
    assert len(tables) == 3
    if not pseudo.active():  # pseudo-text is 40% longer than any language, on purpose
        assert all(len(line) <= 32 for table in tables for line in table.splitlines())
    # How long a game lasts, and the short game, as at /weighted new.
    assert "How long a game lasts" in text
    assert ["5", "35", "60", "10"] in rows and ["12", "8", "150", "8"] in rows
    assert grid.message is not None
    assert "/weighted new `points:short game` sets the target" in alice.reads(grid.message)


async def test_knucklebones_first_request_defers_then_answers_from_the_cache(
    running_bot: DiceBot, alice: Player, bob: Player, caplog: pytest.LogCaptureFixture
) -> None:
    from game_core.analysis import knucklebones as lab

    odds_figures.KNUCKLEBONES_FIGURES.forget()
    caplog.set_level(logging.INFO, logger="cogs.odds.figures")
    first = await alice.slash("odds knucklebones")
    assert first.type is CallbackType.DEFERRED_MESSAGE and first.ephemeral
    shown = await first.final_message()
    text = shown.text()

    # The numbers are the lab's own, for the cog's fixed seed and game count.
    expected = lab.simulate_random_games(odds_figures.RANDOM_GAMES, odds_figures.KNUCKLEBONES_SEED)
    advantage = expected["first_player_advantage"]
    low, high = advantage["ci95_all"]
    assert (
        f"**Random play** · {odds_figures.RANDOM_GAMES:,} games: the first player wins "
        f"**{100 * advantage['win_rate_all']:.1f}%** (most likely between {100 * low:.1f}% "
        f"and {100 * high:.1f}%)"
    ) in text
    assert f"draws {100 * advantage['draw_rate']:.1f}%" in text
    assert f"{expected['turns']['mean']:.1f} turns on average" in text
    assert f"median {expected['turns']['percentiles']['p50']}" in text
    assert "**Medium play**" in text and "Game length" in text
    # Plain words: no Python command hint, no statistics jargon.
    assert "python" not in text and "game_core" not in text and "95% CI" not in text

    # Later requests (anyone's) answer at once with the same text, computed only once.
    again = await bob.slash("odds knucklebones", share=True)
    assert again.type is CallbackType.MESSAGE and not again.ephemeral
    assert again.latency < QUICK
    assert again.text() == text
    computed = [r for r in caplog.records if "computed the Knucklebones odds" in r.getMessage()]
    assert len(computed) == 1


async def test_the_event_loop_keeps_serving_while_the_figures_are_computed(
    running_bot: DiceBot, alice: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = odds_figures.Once(odds_figures.knucklebones_figures, "the Knucklebones odds")

    def gated() -> tuple[render.SeatFigures, ...]:
        # Hold the worker thread until the test has seen the bot answer someone else.
        assert release.wait(timeout=10)
        return real.get()

    monkeypatch.setattr(
        odds_figures, "KNUCKLEBONES_FIGURES", odds_figures.Once(gated, "gated odds")
    )
    first = await alice.begin_slash("odds knucklebones")
    second = await bob.begin_slash("odds knucklebones")
    waiting = [await wait_for_answer(first, 5), await wait_for_answer(second, 5)]
    assert all(w.type is CallbackType.DEFERRED_MESSAGE for w in waiting)
    assert all(w.message is not None and w.message.loading for w in waiting)

    # Still computing, yet other interactions are answered at once.
    weighted = await bob.slash("odds weighted", die_a="d6", die_b="d6")
    assert weighted.latency < QUICK and "**1/6**" in weighted.text()
    assert all(w.message is not None and w.message.loading for w in waiting)

    release.set()
    finished = [await w.final_message(timeout=10) for w in waiting]
    assert finished[0].text() == finished[1].text()
    assert "First-player advantage" in finished[0].text()


@pytest.mark.logs_errors  # the computation raises on purpose
async def test_a_failed_computation_is_reported_and_retried_next_time(
    running_bot: DiceBot, alice: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []
    figures = render.SeatFigures(
        level="Random",
        games=1000,
        first_wins=0.52,
        first_ci95=(0.49, 0.55),
        second_wins=0.45,
        draws=0.03,
        decided_share=0.536,
        decided_ci95=(0.505, 0.567),
        mean_turns=20.4,
        median_turns=20,
        turns_p10=17,
        turns_p90=25,
    )

    def flaky() -> tuple[render.SeatFigures, ...]:
        attempts.append(1)
        if len(attempts) == 1:
            raise MemoryError("no room for the simulation")
        return (figures,)

    monkeypatch.setattr(
        odds_figures, "KNUCKLEBONES_FIGURES", odds_figures.Once(flaky, "flaky odds")
    )
    failed = await alice.slash("odds knucklebones")
    assert failed.type is CallbackType.DEFERRED_MESSAGE
    shown = await failed.final_message()
    assert "Something went wrong on my side (ref" in shown.text()

    retried = await alice.slash("odds knucklebones")
    assert retried.type is CallbackType.DEFERRED_MESSAGE  # not cached: computed again
    text = (await retried.final_message()).text()
    assert "the first player wins **52.0%** (most likely between 49.0% and 55.0%)" in text
    assert "At random play moving first is a real advantage" in text
    assert "20.4 turns on average, median 20, 80% of games last 17–25" in text
    assert len(attempts) == 2
