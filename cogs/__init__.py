"""One thin adapter per game, plus the shared commands; each module is an extension."""
