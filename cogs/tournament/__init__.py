"""Tournaments for the duels (issue 31): the event's picture (``picture``: the bracket or
the Swiss standings, with their alt text; ``render``: what the cog hands the picture
worker) beside the runtime's cog. The pure rules of an event are ``game_core.tournament``."""
