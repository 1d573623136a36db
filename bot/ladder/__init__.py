"""The ladder: finished games' results, ratings, seasons and the standings read from them.
Recorded in the move's own transaction (``bot.play.sessions``); read by ``/leaderboard``,
``/stats`` and ``/history``. Discord-free."""
