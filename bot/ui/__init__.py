"""The Discord side of the runtime: answering interactions, publishing every message as a
projection of the stored game, the buttons every game shares (challenges, play on), the
languages texts speak, permissions, and the checks on what the bot sends Discord. Nothing
here imports ``bot.app``: the bot reaches it through ``bot.ui.delivery``."""
