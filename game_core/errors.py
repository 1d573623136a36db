"""The exceptions the rule engines raise."""


class IllegalMove(Exception):
    """An action or input that the rules do not allow.

    The message is written for a player: it says what is wrong and, where it helps, what
    to do instead. It never contains another player's secret choice. Raised as
    ``IllegalMove("Column {column} is full.", {"column": 2})``: an English template whose
    ``{fields}`` come from the optional mapping, so the bot can show the same message in
    the player's language (the template is the catalog's message id). No ``__init__`` of
    its own, so raising one costs what a built-in exception does (a random player probing
    full columns raises many).
    """

    @property
    def template(self) -> str:
        return str(self.args[0]) if self.args else ""

    @property
    def params(self) -> dict[str, object]:
        return dict(self.args[1]) if len(self.args) > 1 and self.args[1] else {}

    @property
    def message(self) -> str:
        params = self.params
        return self.template.format(**params) if params else self.template

    def __str__(self) -> str:
        return self.message


class InvalidState(ValueError):
    """Stored game state that does not describe a valid game (a corrupt or foreign row).

    Never the player's doing, so never shown to one as a rule: the bot treats it as a fault.
    """
