"""``python -m bot``: load settings, run the bot, shut down cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal

import discord

from bot.app import create_bot
from bot.config import Settings, load_settings
from bot.storage import StorageUnavailable

log = logging.getLogger("bot")


class RedactToken(logging.Filter):
    """Belt and braces: the token is never logged, even by a library's debug output."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.token:
            return True
        try:
            message = record.getMessage()
        except Exception:
            # A malformed call: the handler reports it itself; a filter must not raise
            # into the code that logged.
            return True
        if self.token in message:
            record.msg = message.replace(self.token, "[token]")
            record.args = ()
        # A traceback or stack is formatted from the live exception later: format it now,
        # redacted, and the handler uses this text instead (an HTTP error's text may well
        # hold the Authorization header).
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = record.exc_text.replace(self.token, "[token]")
        if record.stack_info:
            record.stack_info = record.stack_info.replace(self.token, "[token]")
        return True


_TRACEBACKS = logging.Formatter()


def configure_logging(settings: Settings) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s"))
    handler.addFilter(RedactToken(settings.discord_token.get_secret_value()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # discord.py's gateway chatter is noise at INFO.
    logging.getLogger("discord").setLevel(max(logging.INFO, root.level))


async def run(settings: Settings) -> None:
    # The bot never joins voice: without this, every start logs two warnings about voice
    # libraries that are not installed, which reads like a fault.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    bot = create_bot(settings)
    # Before reaching Discord: an unusable DATABASE_PATH is reported at once, as one line
    # (see main), not as a traceback from inside the login. Nothing else is open yet, and
    # setup_hook's own open() is then a no-op.
    await bot.db.open()
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    runner = asyncio.create_task(bot.start(settings.discord_token.get_secret_value()))
    stopper = asyncio.create_task(stopping.wait())
    done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    log.info("shutting down")
    await bot.close()
    stopper.cancel()
    if runner in done:
        runner.result()
    else:
        await asyncio.gather(runner, return_exceptions=True)


def main() -> int:
    settings = load_settings()
    configure_logging(settings)
    try:
        asyncio.run(run(settings))
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN")
        return 2
    except discord.PrivilegedIntentsRequired:
        log.error("the bot asked for an intent that is not enabled in the developer portal")
        return 2
    except StorageUnavailable as error:
        log.error("the database is unusable (check DATABASE_PATH or DATABASE_URL): %s", error)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
