FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATABASE_PATH=/data/dicebot.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY game_core ./game_core
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 dicebot \
    && mkdir -p /data \
    && chown dicebot:dicebot /data

USER dicebot
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
