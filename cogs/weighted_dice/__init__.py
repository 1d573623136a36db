"""Weighted Dice: the table's commands and buttons (``cog``), its stored table (``state``),
texts (``render``) and picture (``picture``). The extension is ``cog``."""
