"""The real bot as its own process, pointed at a fake Discord.

``python -m fakediscord.process <api_base> <gateway_url>`` sets discord.py's two
process-wide redirects (the same ones the in-process fixtures set) and then runs the bot's
real entry point, ``bot.__main__.main()``: settings from the environment, logging, signal
handling and exit codes exactly as a host runs them. Only this launcher, which lives under
``tests/``, knows about the fake: the product has no setting a host could trip over.

``BotProcess`` starts, stops, kills and restarts such a process from a test's event loop
(so the fake, served by the same loop, keeps answering it) and keeps what it printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import FakeDiscord

TESTS = Path(__file__).resolve().parents[1]
PROJECT = TESTS.parent


class BotProcess:
    """One bot process at a time; ``start`` again after ``kill``/``stop`` for a restart."""

    def __init__(
        self,
        *,
        api_base: str,
        gateway_url: str,
        env: Mapping[str, str],
        cwd: Path | None = None,
        launcher: str = "fakediscord.process",
        launcher_args: tuple[str, ...] = (),
    ) -> None:
        self.api_base = api_base
        self.gateway_url = gateway_url
        self.env = dict(env)
        # The module run with ``python -m`` (``fakediscord.clocked`` runs the bot on a clock
        # the test moves) and its arguments before the two URLs.
        self.launcher = launcher
        self.launcher_args = launcher_args
        self.cwd = cwd or PROJECT
        self.process: asyncio.subprocess.Process | None = None
        self.output: list[str] = []  # every line printed so far, stdout and stderr
        self._reader: asyncio.Task[None] | None = None
        self._printed = asyncio.Condition()

    @classmethod
    def for_fake(
        cls,
        fake: FakeDiscord,
        *,
        guild_id: int | None,
        database: Path,
        launcher: str = "fakediscord.process",
        launcher_args: tuple[str, ...] = (),
        **env: str,
    ) -> BotProcess:
        """A process against ``fake`` with the token, database and dev guild set."""
        settings = {
            "DISCORD_TOKEN": fake.token,
            "DATABASE_PATH": str(database),
            "LOG_LEVEL": "INFO",
        }
        if guild_id is not None:
            settings["DEV_GUILD_ID"] = str(guild_id)
        settings.update(env)
        return cls(
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            env=settings,
            launcher=launcher,
            launcher_args=launcher_args,
        )

    async def send_line(self, line: str) -> None:
        """Write a line to the process's stdin (``fakediscord.clocked`` reads commands)."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def start(self) -> asyncio.subprocess.Process:
        if self.process is not None and self.process.returncode is None:
            raise RuntimeError("the bot process is already running")
        environment = {
            key: value
            for key, value in os.environ.items()
            # A developer's own settings must not leak into the process under test.
            if not key.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD", "LOG_", "SHARD_"))
        }
        environment.update(self.env)
        environment["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(PROJECT)])
        environment["PYTHONUNBUFFERED"] = "1"
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.launcher,
            *self.launcher_args,
            self.api_base,
            self.gateway_url,
            cwd=self.cwd,
            env=environment,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        self._reader = asyncio.create_task(self._read(self.process))
        return self.process

    async def wait_ready(
        self,
        fake: FakeDiscord,
        *,
        syncs_before: int = 0,
        limit: float = 30,
        shards: Iterable[int] | None = None,
        sync: bool = True,
    ) -> None:
        """Until the process's gateway is connected (every shard of the fake, or only
        ``shards`` for a process that owns some) and, with ``sync``, it has synced its
        commands; fails with what it printed if it exits first."""
        wanted = range(fake.gateway.shard_count) if shards is None else list(shards)

        def ready() -> bool:
            synced = not sync or fake.commands.sync_count > syncs_before
            return synced and all(fake.gateway.shard_connected(shard) for shard in wanted)

        await fake.wait_for(
            lambda: ready() or (self.process is not None and self.process.returncode is not None),
            timeout=limit,
            what="the bot process to connect and sync its commands",
        )
        if self.process is not None and self.process.returncode is not None:
            raise AssertionError(
                f"the bot process exited with {self.process.returncode}:\n" + self.text()
            )

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            self.output.append(raw.decode(errors="replace").rstrip("\n"))
            async with self._printed:
                self._printed.notify_all()
        async with self._printed:
            self._printed.notify_all()  # the end of the output: waiters stop waiting

    async def wait_for_line(self, text: str, *, after: int = 0, limit: float = 10) -> str:
        """The first line printed (from line number ``after`` on) that contains ``text``;
        fails with the output if the process ends or ``limit`` seconds pass first."""

        def found() -> str | None:
            return next((line for line in self.output[after:] if text in line), None)

        def finished() -> bool:
            return self._reader is None or self._reader.done()

        async with self._printed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._printed.wait_for(lambda: found() is not None or finished()), limit
                )
        line = found()
        if line is None:
            raise AssertionError(
                f"the bot process printed no line with {text!r} within {limit} s:\n" + self.text()
            )
        return line

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def signal(self, number: int) -> None:
        assert self.process is not None
        self.process.send_signal(number)

    async def kill(self) -> int:
        """SIGKILL: no shutdown code runs, exactly like a crash or an OOM kill."""
        self.signal(signal.SIGKILL)
        return await self.wait(10)

    async def stop(self, limit: float = 10) -> int:
        """SIGTERM, as ``docker stop`` sends, then wait for the exit code."""
        if self.process is None or self.process.returncode is not None:
            return self.returncode
        self.signal(signal.SIGTERM)
        return await self.wait(limit)

    async def wait(self, limit: float) -> int:
        assert self.process is not None
        try:
            await asyncio.wait_for(self.process.wait(), limit)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(
                f"the bot process did not exit within {limit} s; it printed:\n"
                + "\n".join(self.output[-40:])
            ) from None
        if self._reader is not None:
            await asyncio.wait({self._reader}, timeout=5)
        return self.returncode

    @property
    def returncode(self) -> int:
        assert self.process is not None and self.process.returncode is not None
        return self.process.returncode

    def text(self) -> str:
        return "\n".join(self.output)

    async def ensure_dead(self) -> None:
        """For fixture teardown: never leave a process behind."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        if self._reader is not None:
            await asyncio.wait({self._reader}, timeout=5)


def _redirect(api_base: str, gateway_url: str) -> None:
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def main(argv: list[str]) -> int:
    api_base, gateway_url = argv
    _redirect(api_base, gateway_url)
    from bot.__main__ import main as bot_main

    return bot_main([])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
