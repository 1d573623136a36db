"""Shared pieces of the lab's command line: argument errors in one line, help that keeps its
examples as written, argument types, and aligned tables with every column explained.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

# Columns of a table are separated by at least this much space, so a cell may hold one
# space ("37.5% +0.00") and a reader (or a test) still tells the columns apart.
GAP = "  "
LEGEND_MARK = "- "
LEGEND_WIDTH = 92


class LabParser(argparse.ArgumentParser):
    """Refuses a bad command line with one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class LabHelp(argparse.RawDescriptionHelpFormatter):
    """Descriptions and examples keep their line breaks; option help is wrapped."""


def positive_int(text: str) -> int:
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_int(text: str) -> int:
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _whole_number(text: str) -> int:
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


@dataclass(frozen=True)
class Column:
    title: str
    align: str = ">"  # ">" right (numbers), "<" left (names)


def table(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    legend: Sequence[tuple[str, str]],
    indent: str = "  ",
) -> list[str]:
    """A header, the rows, then the legend: one ``- term: meaning`` entry (wrapped, further
    lines indented) per term, which must explain every column title (several titles may
    share one entry: "a, b: ...")."""
    explained = {term for terms, _ in legend for term in terms.split(", ")}
    unexplained = [c.title for c in columns if c.title not in explained]
    if unexplained:
        raise ValueError(f"columns without an explanation: {unexplained}")
    widths = [
        max([len(column.title), *(len(row[index]) for row in rows)])
        for index, column in enumerate(columns)
    ]

    def line(cells: Sequence[str]) -> str:
        return (
            indent
            + GAP.join(
                f"{cell:{column.align}{width}}"
                for cell, column, width in zip(cells, columns, widths, strict=True)
            ).rstrip()
        )

    lines = [line([column.title for column in columns])]
    lines += [line(row) for row in rows]
    for terms, meaning in legend:
        lines += textwrap.wrap(
            f"{terms}: {meaning}",
            width=LEGEND_WIDTH,
            initial_indent=indent + LEGEND_MARK,
            subsequent_indent=indent + " " * len(LEGEND_MARK) * 2,
            break_on_hyphens=False,
        )
    return lines


def percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"
