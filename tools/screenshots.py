"""Regenerate ``docs/screenshots/``: every game's pictures in its main phases, in English,
and one picture in each other shipped language (``bot.i18n.TRANSLATED``).

Run: ``.venv/bin/python tools/screenshots.py``. ``tests/cogs/test_screenshots.py`` fails
when a committed picture no longer matches what this draws, and when the README does not
show one (a language added to ``bot.i18n.LANGUAGES`` adds its picture here: run this and
add the picture to the README's "In other languages" row).

Everything that could make a render vary is pinned: the games are played from fixed seeds
with scripted moves, the names are fixed (one in each of several scripts, with emoji),
and the fonts are the bundled ones. ``MANIFEST.json`` records the Pillow version (which
brings FreeType, HarfBuzz and zlib): with the same version the test compares pixels
exactly, with another it allows anti-aliasing to differ in a few pixels.

The replay's picture (``knucklebones-replay``) is a real replay's middle step: a game
played through the handler's ``moves.step``, its log folded by ``cogs.knucklebones.replay``
(the bot's replay code), the step drawn by the game's ``render``. The README's caption
names the step (``tests/cogs/test_screenshots.py`` checks it).
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import PIL
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot import i18n  # noqa: E402
from bot.model.contract import LoggedMove, ReplayFrame, Seat, Session, StepContext  # noqa: E402
from bot.pictures.picture import Picture  # noqa: E402
from bot.play.guild_settings import GuildSettings  # noqa: E402
from cogs.dimension_duel import picture as duel_picture  # noqa: E402
from cogs.knucklebones import moves as knucklebones_moves  # noqa: E402
from cogs.knucklebones import picture as knucklebones_picture  # noqa: E402
from cogs.knucklebones import render as knucklebones_render  # noqa: E402
from cogs.knucklebones import replay as knucklebones_replay  # noqa: E402
from cogs.knucklebones.cog import GAME as KNUCKLEBONES  # noqa: E402
from cogs.knucklebones.cog import players_of  # noqa: E402
from cogs.odds import figures as odds_figures  # noqa: E402
from cogs.odds import picture as odds_picture  # noqa: E402
from cogs.tournament import picture as tournament_picture  # noqa: E402
from cogs.weighted_dice import picture as weighted_picture  # noqa: E402
from game_core import dimension_duel as dd  # noqa: E402
from game_core import knucklebones as kb  # noqa: E402
from game_core import tournament as tm  # noqa: E402
from game_core import weighted_dice as wd  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
TWO = ("José 🎲", "Дмитрий")
TABLE = ("José 🎲", "Дмитрий", "田中太郎", "김민준", "أحمد", "Zoë", "👩‍👩‍👧 fam", "Eve")
EVENT = dict(enumerate(TABLE, start=1))


def _knucklebones(moves: int, seed: int) -> dict[str, Any]:
    """A game of ``moves`` placements (or to the end) by a seeded random player that
    prefers knocking dice out, so the picture shows a knocked column."""
    rng = random.Random(seed)
    state, _ = kb.new_game(rng, first=0)
    for _ in range(moves):
        if kb.is_finished(state):
            break
        player = state.current_player
        opponent = state.boards[1 - player]
        columns = kb.legal_columns(state.boards[player])
        knocking = [c for c in columns if state.die in opponent[c]]
        column = knocking[0] if knocking else rng.choice(columns)
        state, _ = kb.apply(state, {"type": "place", "player": player, "column": column}, rng)
    return kb.public_view(state)


def _knucklebones_finished(seed: int) -> dict[str, Any]:
    return _knucklebones(200, seed)


def _knucklebones_game(seed: int) -> tuple[Session, list[LoggedMove]]:
    """A finished two-player game and its event log, as the bot stores them: opened with
    ``moves.open_table`` and played to the end through the handler's own ``moves.step``
    (each press a ``place`` action from the seat's player), by the seeded player above."""
    rng = random.Random(seed)
    settings = GuildSettings()
    seats = tuple(Seat(seat=seat, user_id=101 + seat, display_name=name)
                  for seat, name in enumerate(TWO))  # fmt: skip
    table, events, _deadlines = knucklebones_moves.open_table(rng, 0.0, settings, first_choice="me")
    session = Session(id=1, game=KNUCKLEBONES, guild_id=1, channel_id=1, message_id=None,
                      status="active", state=table.dump(), version=0, seed=seed, created_by=101,
                      created_at=0.0, updated_at=0.0, seats=seats)  # fmt: skip
    log = [LoggedMove(version=0, actor_id=101, action={}, events=events, created_at=0.0)]
    while session.status == "active":
        engine = knucklebones_moves.Table.model_validate(session.state).engine
        player = engine.current_player
        opponent = engine.boards[1 - player]
        columns = kb.legal_columns(engine.boards[player])
        knocking = [c for c in columns if engine.die in opponent[c]]
        column = knocking[0] if knocking else rng.choice(columns)
        action = {"type": "place", "column": column, "turn": engine.turn}
        actor = seats[player].user_id
        now = float(session.version + 1)
        done = knucklebones_moves.step(StepContext(session, actor, now, rng, settings), action)
        session = replace(session, state=done.state, status=done.status,
                          version=session.version + 1, updated_at=now)  # fmt: skip
        log.append(LoggedMove(session.version, actor, action, done.events, now))
    return session, log


REPLAY_SEED = 5


def replay_frames() -> tuple[Session, list[ReplayFrame]]:
    """The replay's steps of that game, built by the replay code the bot uses."""
    session, log = _knucklebones_game(REPLAY_SEED)
    return session, knucklebones_replay.frames(session, log)


def replay_step() -> tuple[int, int]:
    """Which step the screenshot shows (the middle one), and how many the replay has."""
    _session, frames = replay_frames()
    return (len(frames) + 1) // 2, len(frames)


def _replay_picture() -> Picture:
    """The picture a player sees at the replay's middle step: the board as the game's own
    render draws it from that frame (``bot.ui.replay.replay_fields`` does the same)."""
    session, frames = replay_frames()
    step, _total = replay_step()
    frame = frames[step - 1]
    shown = replace(session, state=frame.state, status=frame.status)
    engine = knucklebones_moves.Table.model_validate(shown.state).engine
    return knucklebones_render.render_board(kb.public_view(engine), players_of(shown))


def _duel(turns: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    state, _ = dd.new_game(rng, mode="tactical", start_hp=40)
    plan = [
        ("tau", "head", "intensifier"),
        ("kaon", "torso", "bluff"),
        ("tau", "extremities", "delayed_attack"),
        ("kaon", "head", "deflector"),
        ("kaon", "torso", "bluff"),
        ("tau", "head", "bluff"),
    ]
    for turn in range(turns):
        if state.phase == "finished":
            break
        for player in (0, 1):
            device, region, function = plan[(turn * 2 + player) % len(plan)]
            if function not in dd.available_functions(state, player):
                function = "bluff"
            action = {"type": "choose", "player": player, "device": device, "region": region,
                      "function": function}  # fmt: skip
            state, _ = dd.apply(state, action, rng)
    return dd.public_view(state)


def _weighted(stage: str, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    state, _ = wd.new_game(len(TABLE), rng)
    if stage == "setup":
        return wd.public_view(state)
    while True:
        house = state.house
        others = [s for s in range(len(TABLE)) if s != house and state.active[s]]
        rollers = rng.sample(others, 2)
        dice = [rng.choice(wd.DICE), rng.choice(wd.DICE)]
        setup = {"type": "setup", "player": house, "rollers": rollers, "dice": dice}
        state, _ = wd.apply(state, setup, rng)
        bettors = wd.to_act(state)
        for index, seat in enumerate(bettors):
            if stage == "betting" and index == len(bettors) - 2:
                return wd.public_view(state)
            amount = max(1, state.scores[seat] // 3)
            bet = {"type": "bet", "player": seat, "roller": rng.randint(0, 1), "amount": amount}
            state, _ = wd.apply(state, bet, rng)
            if wd.is_finished(state) or state.phase != "betting":
                break
        if wd.is_finished(state):
            return wd.public_view(state)


def _bracket() -> tm.Tournament:
    """Six players, best of 3: the top two seeds' byes, round 1 played (one match lost on
    time), and the first semifinal won."""
    event = tm.start_tournament(tm.Format.SINGLE_ELIMINATION, list(range(1, 7)), best_of=3,
                                swiss_rounds=None, rng_seed=31)  # fmt: skip
    event = tm.record_result(event, 2, 5, score=(1, 2))
    event = tm.record_result(event, 4, 3, outcome="timeout", score=(1, 0))
    event = tm.advance_round(event)
    return tm.record_result(event, 1, 1, score=(2, 0))


def _swiss() -> tm.Tournament:
    """Seven players, three rounds: two played (a withdrawal in the second), the third on."""
    event = tm.start_tournament(tm.Format.SWISS, list(range(1, 8)), best_of=1,
                                swiss_rounds=None, rng_seed=31)  # fmt: skip
    for pairing in event.pending_pairings():
        event = tm.record_result(event, pairing.table, max(pairing.players))
    event = tm.advance_round(event)
    event = tm.withdraw(event, 2)
    for pairing in event.pending_pairings():
        event = tm.record_result(event, pairing.table, min(pairing.players))
    event = tm.advance_round(event)
    first = event.pending_pairings()[0]
    return tm.record_result(event, first.table, first.players[0])


ENGLISH_SHOTS: dict[str, Callable[[], Picture]] = {
    "knucklebones-running": lambda: knucklebones_picture.render_board(_knucklebones(9, 7), TWO),
    "knucklebones-finished": lambda: knucklebones_picture.render_board(
        _knucklebones_finished(11), ("田中太郎", "أحمد 🙂")
    ),
    "knucklebones-replay": _replay_picture,
    "duel-first-turn": lambda: duel_picture.render_duel(_duel(0, 1), TWO),
    "duel-running": lambda: duel_picture.render_duel(_duel(3, 1), TWO),
    "duel-finished": lambda: duel_picture.render_duel(_duel(40, 1), TWO),
    "weighted-setup": lambda: weighted_picture.render_table(_weighted("setup", 4), TABLE),
    "weighted-betting": lambda: weighted_picture.render_table(_weighted("betting", 4), TABLE),
    "weighted-finished": lambda: weighted_picture.render_table(_weighted("finished", 4), TABLE),
    "odds-diceman": lambda: odds_picture.render_diceman_picture(odds_figures.diceman_figures()),
    "tournament-bracket": lambda: tournament_picture.render_event(
        _bracket(), EVENT, "Spring Cup · Knucklebones"
    )[0],
    "tournament-swiss": lambda: tournament_picture.render_event(
        _swiss(), EVENT, "Friday Swiss · Diceman"
    )[0],
}


# One picture per other language, a different game's in turn (names as in English); the
# languages named here keep theirs whatever is added beside them.
LANGUAGE_SHOTS = ("duel-running", "weighted-betting", "knucklebones-running", "odds-diceman")
LANGUAGE_SHOT = {
    "es": "duel-running",
    "es-419": "knucklebones-finished",
    "fr": "weighted-betting",
    "de": "knucklebones-running",
    "pt-BR": "odds-diceman",
}


def language_shot(language: str) -> str:
    """Which picture shows ``language``: its own, or one picked from its code."""
    return LANGUAGE_SHOT.get(language) or LANGUAGE_SHOTS[sum(map(ord, language)) % 4]


def _in(language: str, make: Callable[[], Picture]) -> Callable[[], Picture]:
    def drawn() -> Picture:
        with i18n.use(language):
            return make()

    return drawn


SHOTS: dict[str, Callable[[], Picture]] = {
    **{name: _in(i18n.ENGLISH, make) for name, make in ENGLISH_SHOTS.items()},
    **{
        f"{language_shot(language)}-{language}": _in(
            language, ENGLISH_SHOTS[language_shot(language)]
        )
        for language in i18n.TRANSLATED
    },
}


def pictures() -> dict[str, Picture]:
    return {name: make() for name, make in SHOTS.items()}


def pixels_digest(png: bytes) -> str:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return hashlib.sha256(image.tobytes()).hexdigest()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"pillow": PIL.__version__, "pictures": {}}
    for name, picture in pictures().items():
        (OUT / f"{name}.png").write_bytes(picture.png)
        manifest["pictures"][name] = {
            "pixels_sha256": pixels_digest(picture.png),
            "alt_text": picture.alt_text,
        }
        print(f"{name}.png  {picture.width}x{picture.height}  {len(picture.png) / 1000:.1f} kB")
    (OUT / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
