"""Diceman: what the shared secret-duel flow (``cogs.secret_duel``) needs to play it: its
plug-in (``game``: engine calls and words), its components (``controls``) and its texts
(``render``). The extension is ``cog``."""
