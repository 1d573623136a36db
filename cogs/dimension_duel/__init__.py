"""Dimension Duel: what the shared secret-duel flow (``cogs.secret_duel``) needs to play it
(``cog``) and its exchange picture (``picture``). The extension is ``cog``."""
