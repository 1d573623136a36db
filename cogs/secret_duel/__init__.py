"""The flow both secret-move duels share (Diceman, Dimension Duel): challenges, DMs with each
player's private controls, lock-ins, reveals, timeouts and results. Not an extension itself:
``cogs.diceman`` and ``cogs.dimension_duel`` plug their games into it.

A game fills the plug-in (``game``: engine calls, words, private controls); the rest is done
once here: what a move does (``moves``, on the stored envelope of ``state``), the handler the
session service calls (``handler``) with the public message (``messages``), the presses
behind the games' components (``controls``), the slash commands both games share
(``commands``) and the texts both show (``render``).

Secrecy: public messages are rendered from the engine's ``public_view`` and the revealed
events only; a player's own choice is shown only in their DM or their ephemeral message;
error texts never name a choice; nothing here logs a choice (actions are never logged).
"""
