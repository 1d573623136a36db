"""Dimension Duel: what the shared secret-duel flow (``cogs.secret_duel``) needs to play it:
its plug-in (``game``: engine calls and words), its components (``controls``), its texts
(``render``) and its exchange picture (``picture``). The extension is ``cog``."""
