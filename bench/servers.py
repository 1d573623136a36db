"""What many servers cost the bot, against a bare discord.py client (issue 30, target 4).

For each count of servers (``--servers``, by default 0, 1,000 and 10,000), one fake Discord
(served by this process) holds that many servers, each with ``--channels`` text channels
and ``--roles`` roles besides @everyone and the bot's own: about what a community server
has (Discord's guides put a typical one at 20-30 channels and a dozen roles; the fake makes
text channels only). Two clients in their own processes (``bench/bot_process.py``) then
connect to it one after the other, and each receives every server at READY:

    bare: a bare ``discord.AutoShardedClient`` with the bot's intents (GUILDS only);
    bot:  the real bot, as ``bot.service`` starts it (a fresh SQLite database, its cogs,
          its picture helper process, its commands synced).

Printed for each: the process's memory (RSS) at ``on_ready`` (every server in its cache)
and once settled (a second after ``on_ready`` and, for the bot, after the command sync it
makes once ready), and its start-up time to ``on_ready``: from the process's start, and
from its IDENTIFY (receiving the servers). Then, with PASS or FAIL, at 1,000 and 10,000
servers: the bot's settled memory at most 1.2x the bare client's, its start-up time to
READY at most 1.2x the bare client's (both as the issue words them, the whole process);
and, beside them, what the servers themselves cost each client (its memory and its time
from IDENTIFY to READY, less the same at 0 servers) against the bare client's.

Both clients run one shard (the fake does not hold a shard to Discord's 2,500 servers, and
more shards would add discord.py's 5-second pause between identifies to both alike).

Usage: ``.venv/bin/python bench/servers.py [--servers 0,1000,10000] [--channels 25]
[--roles 12] [--rounds 1] [--record]``; ``--rounds 2`` runs each client twice, alternating;
``--record`` appends target 4 to ``bench/history/servers.jsonl`` and redraws its chart
(``bench/history.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(SCRIPT.parent))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import history  # noqa: E402
from bot_process import children_of, load_line, mib, rss_kib, start_child  # noqa: E402
from fakediscord import FakeDiscord  # noqa: E402

TARGET_RATIO = 1.2
KINDS = ("bare", "bot")


@dataclass
class Start:
    kind: str
    servers: int
    rss_ready: int  # KiB, at on_ready
    rss_after: int  # KiB, settled: a second after on_ready and (the bot) its command sync
    synced_after: float | None  # s from on_ready to the bot's command sync
    helper_rss: int | None  # KiB, the bot's picture helper
    to_ready: float  # s from the process's start
    identify_to_ready: float  # s from its IDENTIFY
    guilds: int  # servers in its cache at on_ready


async def build(servers: int, channels: int, roles: int) -> FakeDiscord:
    fake = FakeDiscord()
    await fake.start()
    channel_names = ("general", *(f"channel-{n}" for n in range(2, channels + 1)))[:channels]
    role_names = tuple(f"role-{n}" for n in range(1, roles + 1))
    for number in range(servers):
        await fake.create_guild(f"Server {number + 1}", channels=channel_names, roles=role_names)
    return fake


async def one_start(fake: FakeDiscord, kind: str, servers: int) -> Start:
    identifies_before = len(fake.gateway.identifies)
    with tempfile.TemporaryDirectory() as directory:
        child = await start_child(
            kind, fake.port, fake.token, database=str(Path(directory) / "servers.db")
        )
        syncs_before = fake.commands.sync_count
        try:
            ready = await child.wait_event("ready", timeout=900)
            synced_after = None
            if kind == "bot":
                # The bot syncs its commands once ready (the catalogs read, every command
                # translated): its memory is judged with that done.
                await child.guard(
                    fake.wait_for(
                        lambda: fake.commands.sync_count > syncs_before,
                        timeout=120,
                        what="the bot to sync its commands",
                    )
                )
                synced_after = time.monotonic() - ready["at"]
            await asyncio.sleep(1.0)
            rss_after = rss_kib(child.pid) or 0
            helpers = [rss_kib(pid) for pid in children_of(child.pid)]
            helper_rss = sum(h for h in helpers if h is not None) if helpers else None
        finally:
            await child.stop()
    identify = next(i for i in fake.gateway.identifies[identifies_before:] if i.accepted)
    await fake.wait_for(lambda: not fake.gateway.connections, timeout=30, what="a clean close")
    return Start(
        kind=kind,
        servers=servers,
        rss_ready=int(ready["rss_kib"]),
        rss_after=rss_after,
        synced_after=synced_after,
        helper_rss=helper_rss,
        to_ready=ready["at"] - child.started_at,
        identify_to_ready=ready["at"] - identify.at,
        guilds=int(ready["guilds"]),
    )


def median_of(starts: list[Start], kind: str, servers: int, attribute: str) -> float:
    return statistics.median(
        float(getattr(s, attribute)) for s in starts if s.kind == kind and s.servers == servers
    )


def verdict(ratio: float) -> str:
    return "PASS" if ratio <= TARGET_RATIO else "FAIL"


@dataclass(frozen=True)
class Judged:
    """One of target 4's ratios at a server count, and the line that prints it."""

    series: str  # bench/history.py's: "<servers>/<what>"
    ratio: float
    line: str


def judged(starts: list[Start], counts: list[int]) -> list[Judged]:
    found = []
    baseline = 0 in counts
    for servers in counts:
        if servers == 0:
            continue
        bare_rss = median_of(starts, "bare", servers, "rss_after")
        bot_rss = median_of(starts, "bot", servers, "rss_after")
        ratio = bot_rss / bare_rss
        found.append(
            Judged(
                f"{servers}/memory",
                ratio,
                f"{verdict(ratio)}  {servers:,} servers: the bot's memory, settled, <= "
                f"{TARGET_RATIO}x a bare discord.py client's: {ratio:.2f}x "
                f"({mib(int(bot_rss))} against {mib(int(bare_rss))})",
            )
        )
        bare_time = median_of(starts, "bare", servers, "to_ready")
        bot_time = median_of(starts, "bot", servers, "to_ready")
        ratio = bot_time / bare_time
        found.append(
            Judged(
                f"{servers}/start-up",
                ratio,
                f"{verdict(ratio)}  {servers:,} servers: the bot's start-up to READY <= "
                f"{TARGET_RATIO}x the bare client's: {ratio:.2f}x ({bot_time:.1f} s against "
                f"{bare_time:.1f} s, from the process's start)",
            )
        )
        if not baseline:
            continue
        added = {
            kind: median_of(starts, kind, servers, "rss_after")
            - median_of(starts, kind, 0, "rss_after")
            for kind in KINDS
        }
        ratio = added["bot"] / added["bare"] if added["bare"] > 0 else float("inf")
        found.append(
            Judged(
                f"{servers}/added-memory",
                ratio,
                f"{verdict(ratio)}  {servers:,} servers: the memory the servers add to the bot "
                f"<= {TARGET_RATIO}x what they add to the bare client: {ratio:.2f}x "
                f"({mib(int(added['bot']))} against {mib(int(added['bare']))})",
            )
        )
        spent = {
            kind: median_of(starts, kind, servers, "identify_to_ready")
            - median_of(starts, kind, 0, "identify_to_ready")
            for kind in KINDS
        }
        ratio = spent["bot"] / spent["bare"] if spent["bare"] > 0 else float("inf")
        found.append(
            Judged(
                f"{servers}/added-time",
                ratio,
                f"{verdict(ratio)}  {servers:,} servers: the time they add from IDENTIFY to "
                f"READY <= {TARGET_RATIO}x the bare client's: {ratio:.2f}x ({spent['bot']:.2f} s "
                f"against {spent['bare']:.2f} s)",
            )
        )
    return found


def targets(starts: list[Start], counts: list[int]) -> list[str]:
    return [item.line for item in judged(starts, counts)]


def history_figures(starts: list[Start], counts: list[int]) -> list[history.Figure]:
    """Target 4 as ``bench/history.py`` records it (a ratio over a bare client's nil cost,
    printed as inf and FAIL, as None: JSON has no infinity)."""
    return [
        history.Figure(
            item.series,
            round(item.ratio, 3) if math.isfinite(item.ratio) else None,
            TARGET_RATIO,
            verdict(item.ratio),
        )
        for item in judged(starts, counts)
    ]


async def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    print(
        f"servers {', '.join(f'{n:,}' for n in args.servers)}; {args.channels} text channels "
        f"and {args.roles} roles each (+ @everyone and the bot's role); one shard; "
        f"{load_line()}",
        flush=True,
    )
    starts: list[Start] = []
    for servers in args.servers:
        began = time.monotonic()
        fake = await build(servers, args.channels, args.roles)
        print(f"{servers:,} servers (built in {time.monotonic() - began:.0f} s):", flush=True)
        try:
            for _ in range(args.rounds):
                for kind in KINDS:
                    start = await one_start(fake, kind, servers)
                    starts.append(start)
                    helper = (
                        f" (+ picture helper {mib(start.helper_rss)})" if start.helper_rss else ""
                    )
                    synced = (
                        f"; commands synced {start.synced_after:.2f} s after READY"
                        if start.synced_after is not None
                        else ""
                    )
                    print(
                        f"  {kind:<5} RSS at READY {mib(start.rss_ready):>9}, settled "
                        f"{mib(start.rss_after):>9}{helper}; start -> READY "
                        f"{start.to_ready:6.2f} s, IDENTIFY -> READY "
                        f"{start.identify_to_ready:6.2f} s; {start.guilds:,} servers cached"
                        f"{synced}",
                        flush=True,
                    )
                    if start.guilds != servers:
                        print(f"  (!) {kind} had {start.guilds:,} of {servers:,} servers at READY")
        finally:
            await fake.stop()
    print()
    for line in targets(starts, args.servers):
        print(line)
    print(f"({load_line()})")
    if args.record:
        note = f"{args.channels} channels, {args.roles} roles a server, {args.rounds} round(s)"
        figures = history_figures(starts, args.servers)
        print(f"recorded in {history.record('servers', figures, note)} and its chart redrawn")
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--servers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[0, 1_000, 10_000],
        help="server counts, comma-separated (0 gives the baseline the added costs need)",
    )
    parser.add_argument("--channels", type=int, default=25, help="text channels per server")
    parser.add_argument("--roles", type=int, default=12, help="roles per server")
    parser.add_argument("--rounds", type=int, default=1, help="starts of each client per count")
    parser.add_argument(
        "--record",
        action="store_true",
        help="append target 4 to bench/history/servers.jsonl and redraw its chart "
        "(BENCH_HISTORY_DIR, BENCH_CHART_DIR: elsewhere)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
