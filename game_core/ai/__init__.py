"""Computer opponents: pure functions of the game state and an injected RNG."""
