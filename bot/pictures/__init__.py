"""Pictures every game draws: one palette, one font stack, contrast checks, ``Picture``.

- ``palette``: the house colours (pictures and embed accents), defined once.
- ``contrast``: WCAG relative luminance and contrast ratios, for tests and for choosing ink.
- ``text``: text in any script and emoji, glyph cluster by glyph cluster from the bundled
  fonts (``fonts/``, see its README), as cached line sprites, each fitted into its slot.
- ``canvas``: a palette-indexed canvas that pastes cached sprites and encodes a PNG fast.
- ``picture``: ``Picture`` (PNG bytes plus the alt text screen readers read), and how big
  Discord shows a picture (``DESKTOP_BOX``) with the least text size there (``MIN_TEXT_PX``).

Pure drawing: no Discord calls, no I/O beyond reading the bundled fonts once.
"""
