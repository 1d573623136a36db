"""Knucklebones: the slash commands and buttons (``cog``), its texts (``render``) and its
board picture (``picture``). The extension is ``cog``."""
