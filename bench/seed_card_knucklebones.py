"""The Knucklebones rule card's own simulator, copied faithfully as the speed baseline.

The card models the table as a triple-nested list with 0 for an empty slot, scores with a
``Counter`` per column, fills the first 0 in ``AddDie``, blanks matching opposing dice to 0
in ``RemoveOppositeDice`` and scans both grids for a 0 in ``CheckGameOver``; a full column
raises ``ValueError``. The card stops before its game loop, so ``play_random_game`` is the
plain loop its methods imply: roll, try a random column, try again on ``ValueError``.
The method names and style are the card's, kept on purpose; only what the card leaves out
(the loop, a turn counter) is added. Not used by the bot: ``bench/knucklebones_engine.py``
races it against the engine.
"""

# ruff: noqa: E711
from __future__ import annotations

import random
from collections import Counter


class Knucklebones:
    def __init__(self):
        self.board = [[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]]
        self.winner = [False, False]
        self.gameover = False

    def score(self):
        def SumCol(col):
            counter_col = Counter(col)
            total = 0
            for key, val in counter_col.items():
                total += (key * val) * val
            return total

        def SumBoard(board):
            total = 0
            for i in range(3):
                total += SumCol(board[i])
            return total

        player1score = SumBoard(self.board[0])
        player2score = SumBoard(self.board[1])
        return (player1score, player2score)

    def PrintBoard(self):
        player1score, player2score = self.score()
        print(f"Score: {player1score} vs {player2score}")
        for i in range(3):
            print(f"{self.board[0][i]}  {self.board[1][i]}")
        return None

    def PrintWinner(self):
        if self.winner[0] and self.winner[1]:
            print("A tie!")
        elif self.winner[0]:
            print("Player 1 Wins!")
        elif self.winner[1]:
            print("Player 2 Wins!")

    def RollDie(self):
        return random.randint(1, 6)

    def RemoveOppositeDice(self, player, col, num):
        self.board[player][col] = [x if x != num else 0 for x in self.board[player][col]]

    def AddDie(self, player, col, num):
        index = next(
            (index for index, value in enumerate(self.board[player][col]) if value == 0), None
        )
        if index != None:
            self.board[player][col][index] = num
            self.RemoveOppositeDice(1 - player, col, num)  # 1-player is the opposite player
            if 0 not in self.board[player][col]:
                self.CheckGameOver()
        else:
            raise ValueError(
                f"Tried to add a die to player {player + 1}'s number {col} column, but it is "
                "full. Another die cannot be added."
            )

    def CheckGameOver(self):
        for i in range(2):
            if not any(0 in sublist for sublist in self.board[i]):
                self.gameover = True
                player1score, player2score = self.score()
                self.winner = [player1score >= player2score, player1score <= player2score]


def play_random_game(first: int) -> tuple[list[bool], int]:
    """One random-vs-random game in the card's style: (winner flags, turns played)."""
    game = Knucklebones()
    player = first
    turns = 0
    while not game.gameover:
        num = game.RollDie()
        while True:
            try:
                game.AddDie(player, random.randint(0, 2), num)
                break
            except ValueError:
                pass
        turns += 1
        player = 1 - player
    return game.winner, turns


if __name__ == "__main__":
    random.seed(1)
    demo = Knucklebones()
    demo.AddDie(0, 2, 3)
    demo.AddDie(0, 2, 5)
    demo.AddDie(1, 2, 3)
    demo.PrintBoard()
    winner, turns = play_random_game(0)
    print(f"a random game: winner flags {winner} after {turns} turns")
