"""``/odds``: the odds of each game, computed once from ``game_core.analysis`` (``figures``),
told in text and pictures (``render``) by the command (``cog``). The extension is ``cog``."""
