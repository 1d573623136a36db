"""Exact solver for small two-player zero-sum matrix games (no SciPy).

The row player maximises ``x^T A y``. Shifting ``A`` to strictly positive entries turns the
column player's problem into ``max sum(w) s.t. B w <= 1, w >= 0``, whose origin is feasible,
so a plain tableau simplex with Bland's rule (which cannot cycle) solves it; the row
player's strategy is read off the final tableau as the dual prices of the slack rows.

The solver is generic over the number type: with ``fractions.Fraction`` entries it is exact,
with floats it is fast and :func:`exploitability` reports how far the answer is from an
equilibrium.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

Number = TypeVar("Number", float, Fraction)

FLOAT_TOLERANCE = 1e-12


@dataclass(frozen=True)
class MatrixGameSolution(Generic[Number]):
    """An equilibrium: ``row`` and ``column`` mixed strategies and the game's value for the
    row player."""

    row: list[Number]
    column: list[Number]
    value: Number


def _is_exact(matrix: Sequence[Sequence[Number]]) -> bool:
    return all(isinstance(entry, Fraction | int) for line in matrix for entry in line)


def solve_matrix_game(matrix: Sequence[Sequence[Number]]) -> MatrixGameSolution[Number]:
    """Solve the zero-sum game with payoff ``matrix[i][j]`` to the row player."""
    rows = len(matrix)
    if rows == 0 or any(len(line) != len(matrix[0]) for line in matrix) or not matrix[0]:
        raise ValueError("A matrix game needs a non-empty rectangular payoff matrix.")
    columns = len(matrix[0])
    exact = _is_exact(matrix)
    # The arithmetic below is the same for both number types; Any spares the checker the
    # float/Fraction mix it cannot follow.
    one: Any = Fraction(1) if exact else 1.0
    zero: Any = one - one
    tolerance: Any = zero if exact else FLOAT_TOLERANCE

    lowest = min(min(line) for line in matrix)
    shift = one - lowest  # every shifted entry is >= 1, so the game value is positive
    width = columns + rows + 1  # decision columns, slack columns, right-hand side
    tableau: list[list[Any]] = [
        [matrix[i][j] + shift for j in range(columns)]
        + [one if k == i else zero for k in range(rows)]
        + [one]
        for i in range(rows)
    ]
    objective: list[Any] = [-one] * columns + [zero] * rows + [zero]
    basis = [columns + i for i in range(rows)]

    while True:
        # Bland's rule: the lowest-index improving column, then the lowest-index basic
        # variable among the tied ratios.
        entering = next((k for k in range(width - 1) if objective[k] < -tolerance), None)
        if entering is None:
            break
        best_row = -1
        best_ratio = zero
        for i in range(rows):
            coefficient = tableau[i][entering]
            if coefficient > tolerance:
                ratio = tableau[i][-1] / coefficient
                if (
                    best_row < 0
                    or ratio < best_ratio - tolerance
                    or (abs(ratio - best_ratio) <= tolerance and basis[i] < basis[best_row])
                ):
                    best_row, best_ratio = i, ratio
        if best_row < 0:  # impossible for a positive matrix: the LP is bounded
            raise ArithmeticError("unbounded matrix-game LP")
        pivot_line = tableau[best_row]
        pivot = pivot_line[entering]
        pivot_line[:] = [entry / pivot for entry in pivot_line]
        for i in range(rows):
            if i != best_row:
                factor = tableau[i][entering]
                if factor != zero:
                    line = tableau[i]
                    line[:] = [a - factor * b for a, b in zip(line, pivot_line, strict=True)]
        factor = objective[entering]
        objective[:] = [a - factor * b for a, b in zip(objective, pivot_line, strict=True)]
        basis[best_row] = entering

    total = objective[-1]  # sum(w) = 1 / value of the shifted game
    column_weights = [zero] * columns
    for i, variable in enumerate(basis):
        if variable < columns:
            column_weights[variable] = tableau[i][-1]
    column: list[Any] = [weight / total for weight in column_weights]
    row: list[Any] = [max(zero, objective[columns + i]) / total for i in range(rows)]
    if not exact:
        # Rounding can leave the float strategies a hair off the simplex.
        row = _renormalise(row)
        column = _renormalise(column)
    value = one / total - shift
    return MatrixGameSolution(row=row, column=column, value=value)


def _renormalise(weights: list[float]) -> list[float]:
    cleaned = [max(0.0, weight) for weight in weights]
    total = sum(cleaned)
    return [weight / total for weight in cleaned]


def row_payoffs(matrix: Sequence[Sequence[Number]], column: Sequence[Number]) -> list[Number]:
    """Each pure row's expected payoff against the column mix."""
    return [
        sum((a * b for a, b in zip(line, column, strict=True)), start=0 * line[0])
        for line in matrix
    ]


def column_payoffs(matrix: Sequence[Sequence[Number]], row: Sequence[Number]) -> list[Number]:
    """Each pure column's expected payoff (to the row player) against the row mix."""
    columns = len(matrix[0])
    return [
        sum((row[i] * matrix[i][j] for i in range(len(matrix))), start=0 * matrix[0][0])
        for j in range(columns)
    ]


def exploitability(
    matrix: Sequence[Sequence[Number]], row: Sequence[Number], column: Sequence[Number]
) -> Number:
    """How much the better pure deviation gains: ``max_i (A y)_i - min_j (x^T A)_j``.

    It is never negative and is 0 exactly at an equilibrium.
    """
    return max(row_payoffs(matrix, column)) - min(column_payoffs(matrix, row))


def sample(weights: Sequence[float | Fraction], draw: float) -> int:
    """The index picked by a uniform ``draw`` in [0, 1) from a probability vector."""
    cumulative = 0.0
    last = 0
    for index, weight in enumerate(weights):
        if weight <= 0:
            continue
        last = index
        cumulative += float(weight)
        if draw < cumulative:
            return index
    return last
