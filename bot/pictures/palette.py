"""The house palette: every picture and every game embed takes its colours from here.

The pictures are opaque dark cards: their contrast never depends on the reader's Discord
theme (a dark card reads as a card on the light theme too). ``tests/cogs/test_pictures_*``
check every text/background pair used at 4.5:1 or more and every cue at 3:1 or more.
"""

from __future__ import annotations

RGB = tuple[int, int, int]

# Surfaces, darkest first.
BACKGROUND: RGB = (30, 31, 36)  # the card
SURFACE: RGB = (46, 48, 56)  # panels, trays, bars
RAISED: RGB = (62, 65, 76)  # tracks, chips on a panel
OUTLINE: RGB = (146, 150, 164)  # empty slots and hairlines: a cue (3:1 on RAISED)

# Ink.
TEXT: RGB = (242, 243, 245)
MUTED: RGB = (178, 181, 192)  # secondary text: 4.5:1 on SURFACE and BACKGROUND
INK_ON_LIGHT: RGB = (24, 25, 29)  # text on light fills (dice, gold chips)

# Dice.
DIE_FACE: RGB = (246, 242, 233)
PIP: RGB = (28, 29, 33)
PAIR: RGB = (245, 196, 82)  # two of a kind in a column (always with "×2")
TRIPLE: RGB = (118, 188, 245)  # three of a kind (always with "×3")

# Meaning.
ACCENT: RGB = (150, 160, 255)  # whose turn it is, the house's choice
GOLD: RGB = (245, 196, 82)  # winners, totals that matter
DANGER: RGB = (255, 122, 122)  # knocked out, damage (text-safe on the dark surfaces)
GOOD: RGB = (110, 220, 150)  # healing, chances in a player's favour
TAU: RGB = (255, 170, 92)  # Dimension Duel's two particle types
KAON: RGB = (120, 200, 255)

# Embed accents (Discord's colour bar), one meaning each across every game.
EMBED_RUNNING = 0x5865F2  # a game in progress (blurple)
EMBED_FINISHED = 0xF5C452  # a finished game (the winners' gold)
EMBED_CANCELLED = 0x80848E  # stopped without a result
EMBED_INFO = 0x5865F2  # help, rules, /odds
