"""Knucklebones: the slash commands and the session handler (``cog``), what runs inside a
move (``moves``), the board's buttons (``controls``), its texts (``render``) and its board
picture (``picture``). The extension is ``cog``."""
