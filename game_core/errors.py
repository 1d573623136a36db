"""The one exception the rule engines raise for bad input."""


class IllegalMove(Exception):
    """An action or input that the rules do not allow.

    The message is written for a player: it says what is wrong and, where it helps, what
    to do instead. It never contains another player's secret choice.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
