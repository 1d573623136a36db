"""``docs/screenshots/`` shows what the bot draws today: regenerate it with
``.venv/bin/python tools/screenshots.py`` when this fails."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import numpy as np
import PIL
from PIL import Image

from bot import i18n
from bot.i18n import _

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "screenshots"
spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
assert spec is not None and spec.loader is not None
screenshots = importlib.util.module_from_spec(spec)
sys.modules["screenshots"] = screenshots
spec.loader.exec_module(screenshots)

HINT = "docs/screenshots is stale: run .venv/bin/python tools/screenshots.py and commit"
# With another Pillow (FreeType, HarfBuzz) anti-aliasing may move a little; anything a
# player would notice (a moved label, a new colour, other text) changes far more pixels.
LOOSE_SHARE = 0.005
LOOSE_STEP = 48


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def test_the_committed_screenshots_match_what_the_bot_draws() -> None:
    manifest = json.loads((FOLDER / "MANIFEST.json").read_text())
    drawn = screenshots.pictures()
    assert set(manifest["pictures"]) == set(drawn), HINT
    assert {p.stem for p in FOLDER.glob("*.png")} == set(drawn), HINT
    exact = manifest["pillow"] == PIL.__version__
    for name, picture in drawn.items():
        entry = manifest["pictures"][name]
        assert entry["alt_text"] == picture.alt_text, f"{name}: {HINT}"
        committed = pixels((FOLDER / f"{name}.png").read_bytes())
        assert (
            screenshots.pixels_digest((FOLDER / f"{name}.png").read_bytes())
            == entry["pixels_sha256"]
        ), f"{name}.png does not match MANIFEST.json: {HINT}"
        now = pixels(picture.png)
        assert committed.shape == now.shape, f"{name}: {HINT}"
        if exact:
            assert screenshots.pixels_digest(picture.png) == entry["pixels_sha256"], (
                f"{name}: {HINT}"
            )
        else:
            differing = (np.abs(committed - now).max(axis=-1) > LOOSE_STEP).mean()
            assert differing <= LOOSE_SHARE, f"{name}: {differing:.2%} of pixels differ; {HINT}"


def test_the_readme_shows_every_screenshot() -> None:
    readme = (ROOT / "README.md").read_text()
    for name in screenshots.SHOTS:
        assert f"docs/screenshots/{name}.png" in readme, name


def test_the_readme_names_the_replay_step_its_screenshot_shows() -> None:
    """The replay screenshot's captions say which step it is in the words the bot's
    replay header uses, and that step is the one the picture was drawn from."""
    readme = (ROOT / "README.md").read_text()
    step, total = screenshots.replay_step()
    with i18n.use(i18n.ENGLISH):
        header = _("🎞️ Replay: step {step} of {total}").format(step=step, total=total)
    assert f'"{header}"' in readme
    assert f"[Knucklebones replay, step {step} of {total}](docs/screenshots/" in readme
    assert f"[Knucklebones replay at step {step} of {total}:" in readme


def test_the_replay_screenshot_is_a_step_of_the_replay_the_bot_builds() -> None:
    """Its frames come from the game's replay of the stored log: a finished game whose
    last step is the stored final board, one step per die placed after the start."""
    session, frames = screenshots.replay_frames()
    step, total = screenshots.replay_step()
    assert session.status == "finished" and len(frames) == total and 1 < step < total
    assert frames[-1].state["engine"] == session.state["engine"]
    assert [frame.status for frame in frames[:-1]] == ["active"] * (total - 1)
    placed = [[e for e in frame.events if e.get("type") == "placed"] for frame in frames]
    assert [len(events) for events in placed] == [0] + [1] * (total - 1)
    assert any(event.get("type") == "game_started" for event in frames[0].events)
