"""The model: what a game session is (the contract a game's handler fills), the errors a player
may see, the clock, the game catalog, what the shared commands say of each game (its guide)
and the series arithmetic. Discord-free and storage-free: every other layer of the runtime
builds on it."""
