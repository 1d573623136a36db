"""Issue 30's targets over time: the judged benches' recorded figures and their charts.

Each judged bench (``bench/interactions.py``, ``bench/restart.py``, ``bench/servers.py``,
``bench/scaling.py``) run with ``--record`` appends one line to its history,
``bench/history/<bench>.jsonl`` (tracked): the date (UTC), the machine's load and CPU count,
the git commit, and each target's figure with its limit and PASS or FAIL. Then it redraws
that bench's charts, ``docs/benchmarks/target-<n>.png``, which ``docs/benchmarks.md`` shows.
Without ``--record`` nothing is written, so test runs and tiny counts never land in the
history. ``BENCH_HISTORY_DIR`` and ``BENCH_CHART_DIR`` point both elsewhere (a trial run).

A chart is a column of small panels, one per figure (a scenario, a database and size, a
server count): its own y axis, the limit as a dashed line, each recorded run a point in
date order (PASS a filled circle, FAIL a cross, a figure without a limit a diamond; a range
over several runs, as the first figures were written, a whisker between its ends), "not
measured yet" where nothing measured it. The card is an opaque dark one in the house
palette, so it reads alike on Discord's or a browser's light and dark themes, and shapes,
not only colours (blue and orange), tell PASS from FAIL. The same history always draws
the same bytes (``tests/hosting/test_bench_history.py`` checks the charts are current).

Usage: ``.venv/bin/python bench/history.py`` redraws every chart from the histories and
prints the README's "latest" cells; ``--check`` only says whether the charts are current.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(ROOT))

from bot.pictures import palette  # noqa: E402

HISTORY_DIR = ROOT / "bench" / "history"
CHART_DIR = ROOT / "docs" / "benchmarks"
FONT_DIR = ROOT / "bot" / "pictures" / "fonts"

# One run's figure; (low, high) over the runs a written range covers; None where the bench
# judged a ratio it could not measure (its reference cost nil: JSON has no infinity).
Value = float | tuple[float, float] | None


@dataclass(frozen=True)
class Figure:
    """One target's figure from one run: a series of a chart, its value, limit and verdict."""

    series: str
    value: Value
    limit: float | None = None  # at most this; None: a figure the target only asks to see
    verdict: str | None = None  # "PASS" or "FAIL", as the bench printed it

    def as_json(self) -> dict[str, Any]:
        value: Any = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"series": self.series, "value": value, "limit": self.limit, "verdict": self.verdict}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Figure:
        raw = data["value"]
        value: Value = (
            (float(raw[0]), float(raw[1]))
            if isinstance(raw, list)
            else None
            if raw is None
            else float(raw)
        )
        return Figure(data["series"], value, data.get("limit"), data.get("verdict"))


@dataclass(frozen=True)
class Run:
    """One line of a history."""

    date: str  # YYYY-MM-DD, UTC
    figures: tuple[Figure, ...]
    commit: str | None = None
    load: str | None = None
    note: str | None = None

    @staticmethod
    def from_json(data: dict[str, Any]) -> Run:
        return Run(
            date=data["date"],
            figures=tuple(Figure.from_json(f) for f in data["figures"]),
            commit=data.get("commit"),
            load=data.get("load"),
            note=data.get("note"),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "commit": self.commit,
            "load": self.load,
            "note": self.note,
            "figures": [f.as_json() for f in self.figures],
        }


@dataclass(frozen=True)
class Panel:
    """One series of a chart: what its figure is, and how it is drawn."""

    series: str
    label: str
    unit: str  # after the y axis's numbers: "x", " s", " MiB", "/s"
    divisor: float = 1.0  # the value drawn is the recorded one over this (per process)


@dataclass(frozen=True)
class Chart:
    """One target's chart: its file, the bench whose history it draws, its panels."""

    number: int
    bench: str
    title: str
    panels: tuple[Panel, ...]
    columns: int = 1

    @property
    def file_name(self) -> str:
        return f"target-{self.number}.png"


MOVES = (
    ("knucklebones", "Knucklebones move"),
    ("knucklebones-ai", "move against the AI"),
    ("diceman", "Diceman lock-in (Confirm)"),
    ("duel", "Dimension Duel lock-in (Confirm)"),
    ("weighted", "Weighted Dice bet"),
)
TAILS = (
    ("knucklebones", "Knucklebones move"),
    ("knucklebones-ai", "move against the AI"),
    ("diceman", "Diceman lock-in (Confirm)"),
    ("diceman/completing", "Diceman: Confirm completing a round"),
    ("diceman/pick", "Diceman: pick"),
    ("duel", "Dimension Duel lock-in (Confirm)"),
    ("duel/completing", "Dimension Duel: Confirm completing a round"),
    ("duel/pick", "Dimension Duel: pick"),
    ("weighted", "Weighted Dice bet"),
)
DATABASES = (("sqlite", "SQLite"), ("postgres", "PostgreSQL"))
SCALING = (
    ("sqlite-1", "SQLite, 1 process", 1),
    ("postgres-1", "PostgreSQL, 1 process", 1),
    ("postgres-2", "PostgreSQL, 2 processes", 2),
    ("postgres-4", "PostgreSQL, 4 processes", 4),
)


def restart_panels() -> tuple[Panel, ...]:
    # Two columns, SQLite beside PostgreSQL: the panels alternate between the databases.
    rows: list[tuple[str, str, str]] = [
        ("10000/first-press", "10,000 games: READY -> first press served", " s"),
        ("10000/up-to-date-requests", "10,000 games: requests for up-to-date games", ""),
        ("10000/429s", "10,000 games: 429s while applying due timers", ""),
        ("10000/out-of-order", "10,000 games: due timers applied out of order", ""),
        ("0/rss-settled", "0 games: memory, timers applied and quiet", " MiB"),
        ("1000/rss-settled", "1,000 games: memory, timers applied and quiet", " MiB"),
        ("10000/rss-settled", "10,000 games: memory, timers applied and quiet", " MiB"),
    ]
    return tuple(
        Panel(f"{db}/{key}", f"{name}, {label}", unit)
        for key, label, unit in rows
        for db, name in DATABASES
    )


def servers_panels() -> tuple[Panel, ...]:
    rows = [
        ("memory", "memory at READY / bare client's"),
        ("start-up", "start-up to READY / bare client's"),
        ("added-memory", "memory the servers add / bare's"),
        ("added-time", "IDENTIFY -> READY time they add / bare's"),
    ]
    return tuple(
        Panel(f"{count}/{key}", f"{count:,} servers: {label}", "x")
        for key, label in rows
        for count in (1000, 10000)
    )


CHARTS: tuple[Chart, ...] = (
    Chart(
        1,
        "interactions",
        "Target 1: each move's own work <= 0.6x its floor (bench/interactions.py)",
        tuple(Panel(f"own-work/{key}", f"{label}: own work / floor", "x") for key, label in MOVES),
        columns=2,
    ),
    Chart(
        2,
        "interactions",
        "Target 2: first-answer p99 <= 3x /ping's, 16 in flight (bench/interactions.py)",
        tuple(Panel(f"tail/{key}", f"{label}: p99 over /ping's", "x") for key, label in TAILS),
        columns=2,
    ),
    Chart(
        3,
        "restart",
        "Target 3: a restart with 10,000 open games (bench/restart.py)",
        restart_panels(),
        columns=2,
    ),
    Chart(
        4,
        "servers",
        "Target 4: many servers <= 1.2x a bare discord.py client (bench/servers.py)",
        servers_panels(),
        columns=2,
    ),
    Chart(
        5,
        "scaling",
        "Target 5: PostgreSQL, several processes (bench/scaling.py)",
        tuple(
            panel
            for key, label, processes in SCALING
            for panel in (
                Panel(f"{key}/moves", f"{label}: moves/s per process", "/s", float(processes)),
                Panel(f"{key}/cpu-per-move", f"{label}: bot CPU per move", " ms"),
            )
        ),
        columns=2,
    ),
)
BENCHES = ("interactions", "restart", "servers", "scaling")


# -- the histories ----------------------------------------------------------------------------


def history_dir() -> Path:
    return Path(os.environ.get("BENCH_HISTORY_DIR") or HISTORY_DIR)


def chart_dir() -> Path:
    return Path(os.environ.get("BENCH_CHART_DIR") or CHART_DIR)


def history_path(bench: str, directory: Path | None = None) -> Path:
    return (directory or history_dir()) / f"{bench}.jsonl"


def load(bench: str, directory: Path | None = None) -> list[Run]:
    path = history_path(bench, directory)
    if not path.exists():
        return []
    return [Run.from_json(json.loads(line)) for line in path.read_text().splitlines() if line]


def git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=10
        )
    except OSError:
        return ""
    return done.stdout.strip()


def git_commit() -> str | None:
    """The commit measured, "+changes" when the code it runs had uncommitted changes."""
    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return None
    changed = git("status", "--porcelain", "--", "bot", "cogs", "game_core", "bench", "tests")
    return commit + ("+changes" if changed else "")


def machine_load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def record(bench: str, figures: Sequence[Figure], note: str | None = None) -> Path:
    """Append this run's figures to ``bench``'s history and redraw its charts; returns the
    history's path (printed by the bench)."""
    if bench not in BENCHES:
        raise ValueError(f"no history for {bench!r}: one of {BENCHES}")
    run = Run(
        date=datetime.now(UTC).date().isoformat(),
        figures=tuple(figures),
        commit=git_commit(),
        load=machine_load(),
        note=note,
    )
    path = history_path(bench)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as out:
        out.write(json.dumps(run.as_json(), ensure_ascii=False) + "\n")
    draw_bench(bench)
    return path


def draw_bench(bench: str) -> list[Path]:
    written = []
    directory = chart_dir()
    directory.mkdir(parents=True, exist_ok=True)
    runs = load(bench)
    for chart in CHARTS:
        if chart.bench == bench:
            path = directory / chart.file_name
            path.write_bytes(render(chart, runs))
            written.append(path)
    return written


def points(panel: Panel, runs: Iterable[Run]) -> list[tuple[str, Figure]]:
    """The panel's figures in the history's order (the order they were measured)."""
    found = []
    for run in runs:
        for figure in run.figures:
            if figure.series == panel.series:
                found.append((run.date, figure))
    return found


def latest(chart: Chart, runs: Sequence[Run]) -> str:
    """The README's words for a chart's latest run: its PASS and FAIL counts, or its date
    where the target sets no limit, or "not measured yet"."""
    series = {panel.series for panel in chart.panels}
    for run in reversed(runs):
        figures = [f for f in run.figures if f.series in series]
        if not figures:
            continue
        verdicts = [f.verdict for f in figures if f.verdict]
        if not verdicts:
            return f"target {chart.number}: figures only (no limit), {run.date}"
        passed = verdicts.count("PASS")
        failed = len(verdicts) - passed
        return f"target {chart.number}: {passed} PASS, {failed} FAIL, {run.date}"
    return f"target {chart.number}: not measured yet"


def latest_cell(bench: str, directory: Path | None = None) -> str:
    runs = load(bench, directory)
    return "; ".join(latest(chart, runs) for chart in CHARTS if chart.bench == bench)


# -- drawing ----------------------------------------------------------------------------------

WIDTH_PER_COLUMN = 400
PANEL_HEIGHT = 132
MARGIN = 16
TITLE_HEIGHT = 40
LEGEND_HEIGHT = 34
PLOT_LEFT = 52  # room for the y axis's numbers
PLOT_TOP = 26  # under the panel's label
PLOT_RIGHT = 64  # room for the limit's figure
PLOT_BOTTOM = 22  # room for the dates
PASS_COLOUR = palette.TRIPLE  # blue
FAIL_COLOUR = palette.TAU  # orange: apart from the blue for every colour vision
NEUTRAL_COLOUR = palette.TEXT


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    # The basic layout: no shaping library in the way, so the same text draws the same
    # pixels wherever the test runs.
    name = "NotoSans-Bold.ttf" if bold else "NotoSans-Regular.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)


def number(value: float, unit: str) -> str:
    if abs(value) >= 100 or value == int(value):
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return text + unit


def nice_top(value: float) -> float:
    """The y axis's top: the value rounded up to 1, 2, 2.5 or 5 times a power of ten, so
    its ticks (0, half, top) read as round numbers."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(power * m for m in (1.0, 2.0, 2.5, 5.0, 10.0) if power * m >= value)


def dashed(draw: ImageDraw.ImageDraw, y: int, left: int, right: int, colour: Any) -> None:
    for x in range(left, right, 8):
        draw.line([(x, y), (min(x + 4, right), y)], fill=colour, width=2)


def marker(draw: ImageDraw.ImageDraw, x: float, y: float, verdict: str | None) -> None:
    r = 4
    if verdict == "PASS":
        draw.ellipse([x - r, y - r, x + r, y + r], fill=PASS_COLOUR)
    elif verdict == "FAIL":
        draw.line([(x - r, y - r), (x + r, y + r)], fill=FAIL_COLOUR, width=3)
        draw.line([(x - r, y + r), (x + r, y - r)], fill=FAIL_COLOUR, width=3)
    else:
        draw.polygon(
            [(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)], fill=NEUTRAL_COLOUR
        )


def draw_panel(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], panel: Panel, runs: Sequence[Run]
) -> None:
    left, top, right, bottom = box
    draw.rounded_rectangle(box, radius=6, fill=palette.SURFACE)
    draw.text((left + 8, top + 5), panel.label, font=font(12, bold=True), fill=palette.TEXT)
    plot = (left + PLOT_LEFT, top + PLOT_TOP + 6, right - PLOT_RIGHT, bottom - PLOT_BOTTOM)
    found = points(panel, runs)
    small = font(11)
    if not found:
        draw.text(
            ((plot[0] + plot[2]) / 2, (plot[1] + plot[3]) / 2),
            "not measured yet",
            font=font(13),
            fill=palette.MUTED,
            anchor="mm",
        )
        return

    def drawn(value: Value) -> tuple[float, float]:
        if value is None:  # drawn at the top of the axis, marked "n/a"
            return top_value, top_value
        low, high = value if isinstance(value, tuple) else (value, value)
        return low / panel.divisor, high / panel.divisor

    top_value = 0.0
    values = [v for _, f in found if f.value is not None for v in drawn(f.value)]
    limits = {f.limit for _, f in found if f.limit is not None}
    # The latest limit is the one drawn (a target's limit does not move within a chart).
    limit = found[-1][1].limit
    top_value = nice_top(max([*values, *limits, 0.0]) * 1.1)
    scale = (plot[3] - plot[1]) / top_value

    def y_of(value: float) -> float:
        return plot[3] - value * scale

    for tick in (0.0, top_value / 2, top_value):
        y = y_of(tick)
        draw.line([(plot[0], y), (plot[2], y)], fill=palette.RAISED, width=1)
        draw.text(
            (plot[0] - 6, y), number(tick, panel.unit), font=small, fill=palette.MUTED, anchor="rm"
        )
    if limit is not None:
        # The dashed line, and its figure in the strip right of the points.
        y = round(y_of(limit))
        dashed(draw, y, plot[0], plot[2], palette.GOLD)
        label = f"max {number(limit, panel.unit)}"
        draw.text((plot[2] + 6, y), label, font=small, fill=palette.GOLD, anchor="lm")
    count = len(found)
    step = (plot[2] - plot[0] - 20) / max(1, count - 1)
    xs = [plot[0] + 10 + step * n if count > 1 else (plot[0] + plot[2]) / 2 for n in range(count)]
    middles = [y_of(sum(drawn(f.value)) / 2) for _, f in found]
    # The runs joined in order, but not through a figure that is not a number.
    for n in range(count - 1):
        if found[n][1].value is not None and found[n + 1][1].value is not None:
            draw.line(
                [(xs[n], middles[n]), (xs[n + 1], middles[n + 1])], fill=palette.OUTLINE, width=1
            )
    last_label_right = -1.0
    for x, middle, (date, figure) in zip(xs, middles, found, strict=True):
        low, high = drawn(figure.value)
        if low != high:
            draw.line([(x, y_of(low)), (x, y_of(high))], fill=palette.MUTED, width=2)
            draw.line([(x - 3, y_of(low)), (x + 3, y_of(low))], fill=palette.MUTED, width=2)
            draw.line([(x - 3, y_of(high)), (x + 3, y_of(high))], fill=palette.MUTED, width=2)
        marker(draw, x, middle, figure.verdict)
        if figure.value is None:
            draw.text((x + 8, middle), "n/a", font=small, fill=palette.MUTED, anchor="lm")
        label = date[5:]  # MM-DD: the year is in the history
        width = draw.textlength(label, font=small)
        # Dates that would overlap the one before are left out (the points keep their order).
        if x - width / 2 > last_label_right + 4:
            draw.text((x, plot[3] + 4), label, font=small, fill=palette.MUTED, anchor="mt")
            last_label_right = x + width / 2


def draw_legend(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    small = font(12)
    entries: list[tuple[str | None, str]] = [
        ("PASS", "PASS"),
        ("FAIL", "FAIL"),
        (None, "no limit"),
        ("limit", "the limit"),
        ("range", "range over runs"),
    ]
    for kind, text in entries:
        if kind == "limit":
            dashed(draw, y, x, x + 20, palette.GOLD)
            x += 26
        elif kind == "range":
            draw.line([(x + 4, y - 7), (x + 4, y + 7)], fill=palette.MUTED, width=2)
            x += 14
        else:
            marker(draw, x + 5, y, kind)
            x += 16
        draw.text((x, y), text, font=small, fill=palette.TEXT, anchor="lm")
        x += int(draw.textlength(text, font=small)) + 18


def render(chart: Chart, runs: Sequence[Run]) -> bytes:
    """The chart as PNG bytes: the same runs always give the same bytes."""
    rows = -(-len(chart.panels) // chart.columns)
    width = MARGIN * 2 + WIDTH_PER_COLUMN * chart.columns + MARGIN * (chart.columns - 1)
    height = TITLE_HEIGHT + rows * (PANEL_HEIGHT + MARGIN) + LEGEND_HEIGHT
    image = Image.new("RGB", (width, height), palette.BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 12), chart.title, font=font(15, bold=True), fill=palette.TEXT)
    for index, panel in enumerate(chart.panels):
        row, column = divmod(index, chart.columns)
        left = MARGIN + column * (WIDTH_PER_COLUMN + MARGIN)
        top = TITLE_HEIGHT + row * (PANEL_HEIGHT + MARGIN)
        draw_panel(draw, (left, top, left + WIDTH_PER_COLUMN, top + PANEL_HEIGHT), panel, runs)
    draw_legend(draw, MARGIN, height - LEGEND_HEIGHT // 2 - 4)
    out = io.BytesIO()
    # No metadata, fixed compression: bytes that depend on the pixels alone.
    image.save(out, format="PNG", optimize=False, compress_level=9)
    return out.getvalue()


def stale_charts(history: Path | None = None, charts: Path | None = None) -> list[str]:
    """The charts whose file is not what their history draws (missing ones included)."""
    stale = []
    for chart in CHARTS:
        path = (charts or chart_dir()) / chart.file_name
        drawn = render(chart, load(chart.bench, history))
        if not path.exists() or path.read_bytes() != drawn:
            stale.append(chart.file_name)
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="only say whether the charts are current"
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_charts()
        for name in stale:
            print(f"stale: {chart_dir() / name} (run bench/history.py)")
        return 1 if stale else 0
    for bench in BENCHES:
        for path in draw_bench(bench):
            print(f"drew {path}")
        print(f"bench/{bench}.py: {latest_cell(bench)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
