"""The flow both secret-move duels share (Diceman, Dimension Duel): challenges, DMs with each
player's private controls, lock-ins, reveals, timeouts and results. Not an extension itself:
``cogs.diceman`` and ``cogs.dimension_duel`` plug their games into it."""
