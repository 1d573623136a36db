FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/dicebot.db

WORKDIR /app

# Pillow's wheels shape Arabic and Indic names with Raqm, which loads FriBiDi from the
# system when it runs; the slim image lacks it (pictures would then fall back, unshaped).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfribidi0 \
    && rm -rf /var/lib/apt/lists/*

# Dependencies from the lock file alone (--no-deps: nothing outside it can come in), in a
# layer of their own that stays cached while only the code changes. Two builds a month
# apart install the same versions; the base image still takes Debian's security updates.
COPY requirements.lock ./
RUN pip install --no-cache-dir --no-deps -r requirements.lock

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY game_core ./game_core
# pip check: fails the build if the lock is missing anything the code depends on.
RUN pip install --no-cache-dir --no-deps . \
    && pip check \
    && useradd --create-home --uid 10001 dicebot \
    && mkdir -p /data \
    && chown dicebot:dicebot /data

USER dicebot
# The database, its backups (python -m bot backup) and the heartbeat live here.
VOLUME ["/data"]

# Healthy = a fresh heartbeat from a bot connected to Discord (see bot/service/health.py).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "healthcheck"]

# Exec form: the bot is PID 1 and receives docker stop's SIGTERM itself; it stops within
# 5 seconds, well inside docker stop's 10.
CMD ["python", "-m", "bot"]
