"""Play: the session service (every move one transaction), the durable deadlines that fire
timers, and each server's game settings. Discord-free: the layers above show what it stores."""
