"""The bot's process starts without numpy, Pillow and fontTools (about 16 MiB and 0.08 s of
its start): a picture is drawn in the helper process, which imports them there, and the
AIs and ``/odds`` import them when first asked. The bot's process loads them only when it
draws itself (``PICTURE_WORKER=thread``), when an AI moves, or when ``/odds`` computes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "PIL", "fontTools")

# What setup_hook imports (every cog, then every language's catalog), in a fresh process.
# A finder ahead of the others notes, for the first import of each heavy package, the
# modules being executed at that moment: the chain that pulled it in.
START_UP = f"""
import importlib, json, sys, traceback

HEAVY = {HEAVY!r}
chains = {{}}


class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition(".")[0]
        if top in HEAVY and top not in chains:
            chains[top] = [
                frame.f_globals.get("__name__", "?")
                for frame, _ in traceback.walk_stack(None)
                if frame.f_code.co_name == "<module>"
            ][::-1]
        return None


sys.meta_path.insert(0, Watch())
import discord
import bot.app
import bot.i18n

for name in bot.app.discover_cogs():
    importlib.import_module(name)
bot.i18n.load_all()
print(json.dumps({{top: chains.get(top) for top in HEAVY if top in sys.modules}}))
"""


def loaded_at_start_up(code: str = START_UP) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_the_bot_starts_without_numpy_pillow_or_fonttools() -> None:
    loaded = loaded_at_start_up()
    assert loaded == {}, "pulled in at start-up (importer chain, outermost first): " + "; ".join(
        f"{top}: {' -> '.join(chain or ['?'])}" for top, chain in loaded.items()
    )


def test_the_check_names_what_pulled_one_in() -> None:
    code = START_UP.replace("import bot.i18n\n", "import bot.i18n\nimport bot.pictures.text\n", 1)
    loaded = loaded_at_start_up(code)
    assert set(loaded) == {"PIL", "fontTools"}
    assert loaded["PIL"][-1] == "bot.pictures.text"
