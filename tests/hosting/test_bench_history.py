"""Issue 30's benchmark history (bench/history.py): the charts in docs/benchmarks/ are what
the histories in bench/history/ draw, the README's benchmark table gives each judged
bench's latest PASS/FAIL from them, and a run recorded elsewhere appends its figures and
redraws its chart. Offline and fast: no bench runs here (tests/hosting/test_benches.py and
test_interactions_bench.py run them at tiny counts)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def bench_module(name: str) -> ModuleType:
    # The benches import each other by file name (bench/ is not a package).
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


history = bench_module("history")


def readme_latest() -> dict[str, str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Benchmarks") :]
    rows = re.findall(r"^\| `bench/(\w+)\.py` \| .* \| (.*?) \|$", section, re.MULTILINE)
    return dict(rows)


def test_the_charts_are_what_the_histories_draw() -> None:
    assert history.stale_charts(history.HISTORY_DIR, history.CHART_DIR) == [], (
        "run .venv/bin/python bench/history.py and commit docs/benchmarks/"
    )


def test_the_readme_gives_each_judged_bench_its_latest_pass_or_fail() -> None:
    latest = readme_latest()
    for bench in history.BENCHES:
        assert latest.get(bench) == history.latest_cell(bench, history.HISTORY_DIR), bench


def test_the_page_shows_every_chart_above_the_old_paragraphs() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    before = page.index("## Before issue 30")
    for chart in history.CHARTS:
        shown = page.index(f"](benchmarks/{chart.file_name})")
        assert shown < before, chart.file_name
        assert (history.CHART_DIR / chart.file_name).exists()


def test_each_history_line_says_when_where_and_what() -> None:
    for bench in history.BENCHES:
        for line in history.history_path(bench, history.HISTORY_DIR).read_text().splitlines():
            data = json.loads(line)
            assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["date"])
            # A run the bench recorded names its commit and load; a figure written before
            # the history says where it was written.
            assert (data["commit"] and data["load"]) or "docs/benchmarks.md" in data["note"]
            for figure in data["figures"]:
                assert figure["verdict"] in (None, "PASS", "FAIL")
                assert (figure["limit"] is None) == (figure["verdict"] is None)


def test_every_seeded_figure_is_written_on_the_page() -> None:
    # No figure in a history that neither a run recorded nor the page wrote.
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    for bench in history.BENCHES:
        for run in history.load(bench, history.HISTORY_DIR):
            if run.commit is not None:
                continue
            for figure in run.figures:
                values = figure.value if isinstance(figure.value, tuple) else (figure.value,)
                written = "–".join(f"{v:g}" if v >= 100 else f"{v:.1f}" for v in values)
                two_places = "–".join(f"{v:.2f}" for v in values)
                assert written in page or two_places in page, (bench, figure)


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BENCH_HISTORY_DIR", str(tmp_path / "history"))
    monkeypatch.setenv("BENCH_CHART_DIR", str(tmp_path / "charts"))
    return tmp_path


def test_a_recorded_run_is_appended_and_its_chart_redrawn(elsewhere: Path) -> None:
    chart = next(c for c in history.CHARTS if c.bench == "servers")
    assert history.latest_cell("servers") == "target 4: not measured yet"
    empty = history.render(chart, [])
    figures = [
        history.Figure("1000/memory", 1.1, 1.2, "PASS"),
        history.Figure("10000/memory", 1.3, 1.2, "FAIL"),
        history.Figure("10000/added-memory", None, 1.2, "FAIL"),  # printed as inf
    ]
    path = history.record("servers", figures, "a trial")
    assert path == elsewhere / "history" / "servers.jsonl"
    (line,) = path.read_text().splitlines()
    data = json.loads(line)
    assert data["note"] == "a trial" and "on" in data["load"] and "CPUs" in data["load"]
    assert [f["series"] for f in data["figures"]] == [f.series for f in figures]
    assert history.load("servers") == [history.Run.from_json(data)]
    drawn = (elsewhere / "charts" / chart.file_name).read_bytes()
    assert drawn == history.render(chart, history.load("servers")) != empty
    assert history.latest_cell("servers") == f"target 4: 1 PASS, 2 FAIL, {data['date']}"
    # Only its own bench's chart is drawn, and the tracked files are untouched.
    assert sorted(p.name for p in (elsewhere / "charts").iterdir()) == [chart.file_name]
    assert history.stale_charts(history.HISTORY_DIR, history.CHART_DIR) == []

    history.record("servers", [history.Figure("1000/memory", 1.0, 1.2, "PASS")])
    assert len(history.load("servers")) == 2
    assert history.latest_cell("servers") == f"target 4: 1 PASS, 0 FAIL, {data['date']}"


def test_a_chart_is_the_same_bytes_for_the_same_history_and_tells_pass_from_fail() -> None:
    chart = next(c for c in history.CHARTS if c.bench == "interactions")
    passed = [history.Run("2026-11-28", (history.Figure("own-work/diceman", 0.5, 0.6, "PASS"),))]
    failed = [history.Run("2026-11-28", (history.Figure("own-work/diceman", 0.5, 0.6, "FAIL"),))]
    assert history.render(chart, passed) == history.render(chart, passed)
    assert history.render(chart, passed) != history.render(chart, failed)


def test_an_unknown_bench_is_refused(elsewhere: Path) -> None:
    with pytest.raises(ValueError, match="no history for 'knucklebones_ai'"):
        history.record("knucklebones_ai", [])
    assert not (elsewhere / "history").exists()


@pytest.mark.parametrize("name", ["interactions", "restart", "servers", "scaling"])
def test_a_bench_records_only_when_asked(name: str) -> None:
    bench = bench_module(name)
    assert bench.parse([]).record is False
    assert bench.parse(["--record"]).record is True
