"""The exceptions the rule engines raise."""


class IllegalMove(Exception):
    """An action or input that the rules do not allow.

    The message is written for a player: it says what is wrong and, where it helps, what
    to do instead. It never contains another player's secret choice. Raised as
    ``IllegalMove(message)``; no ``__init__`` of its own, so raising one costs what a
    built-in exception does (a random player probing full columns raises many).
    """

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __str__(self) -> str:
        return self.message


class InvalidState(ValueError):
    """Stored game state that does not describe a valid game (a corrupt or foreign row).

    Never the player's doing, so never shown to one as a rule: the bot treats it as a fault.
    """
