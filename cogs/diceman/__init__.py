"""Diceman: what the shared secret-duel flow (``cogs.secret_duel``) needs to play it: its
engine calls, texts and private controls (``cog``). The extension is ``cog``."""
