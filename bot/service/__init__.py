"""Running the bot as a service: start-up and shutdown, logging, the heartbeat and health check,
backups and the copy to PostgreSQL. The top of the runtime: it starts ``bot.app``."""
