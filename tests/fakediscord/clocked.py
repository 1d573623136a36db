"""The real bot as its own process on a clock the test moves: ``python -m
fakediscord.clocked <start> <seed> <api_base> <gateway_url>``.

Like ``fakediscord.process`` it sets discord.py's two redirects, but instead of the bot's
entry point it runs the same ``DiceBot`` on a ``ManualClock`` starting at ``<start>``, with
the session seeds drawn from ``<seed>``, and reads commands on stdin: ``advance <seconds>``
moves the clock. So a test that SIGKILLs a bot process can still drive its timers and
retry back-offs without sleeping. Settings come from the environment, as in production;
logs go to stderr as ``LEVEL logger: message`` lines.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading

from fakediscord.process import _redirect


def _read_commands(loop: asyncio.AbstractEventLoop, clock: object) -> None:
    for line in sys.stdin:
        parts = line.split()
        if len(parts) == 2 and parts[0] == "advance":
            loop.call_soon_threadsafe(clock.advance, float(parts[1]))  # type: ignore[attr-defined]


async def _run(start: float, seed: int) -> None:
    from bot.app import create_bot
    from bot.config import load_settings
    from bot.model.clock import ManualClock

    settings = load_settings()
    clock = ManualClock(start)
    bot = create_bot(settings, clock=clock, seed=seed, guild_ready_timeout=0.05)
    loop = asyncio.get_running_loop()
    threading.Thread(target=_read_commands, args=(loop, clock), daemon=True).start()
    stopping = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    runner = asyncio.create_task(bot.start(settings.discord_token.get_secret_value()))
    stopper = asyncio.create_task(stopping.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    stopper.cancel()
    await asyncio.gather(runner, stopper, return_exceptions=True)
    if runner.done() and not runner.cancelled() and runner.exception() is not None:
        raise runner.exception()  # type: ignore[misc]


def main(argv: list[str]) -> int:
    start, seed, api_base, gateway_url = argv
    _redirect(api_base, gateway_url)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("discord").setLevel(logging.WARNING)
    # What the publisher showed, when a test wants to follow it.
    logging.getLogger("bot.ui.publishing").setLevel(os.environ.get("PUBLISHING_LOG_LEVEL", "INFO"))
    asyncio.run(_run(float(start), int(seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
