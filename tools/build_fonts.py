"""Build the fonts the pictures draw with (``bot/pictures/fonts/``) from Debian's font packages.

The pictures draw names in any script and emoji, so they ship a font stack rather than
rely on whatever a server has installed. Run this only to change that stack; its output
is committed:

    apt-get install fonts-noto-core fonts-droid-fallback fonts-noto-color-emoji
    .venv/bin/python tools/build_fonts.py --source /usr/share/fonts

What it does, and why:

- Noto Sans Regular and Bold (OFL 1.1) are copied as they are: Latin, Greek, Cyrillic.
- Every fallback after them is cut down (fontTools' subsetter, which keeps the shaping
  rules) to the characters no earlier font has, so nothing is shipped twice.
- Noto Sans Math is cut to the "fancy letters" people put in nicknames (mathematical
  alphanumerics, letterlike symbols).
- Droid Sans Fallback (Apache 2.0) covers Chinese, Japanese and Korean (every Hangul
  syllable) in 3.4 MB, against 16 MB or more for one weight of Noto Sans CJK.
- Noto Color Emoji (OFL 1.1) keeps every emoji, but its 109 px bitmaps are shrunk to
  32 px with a 64-colour palette (11 MB -> 3.5 MB): the pictures never draw an emoji
  larger than about 40 px.

It prints the size of each file and the total.
"""

from __future__ import annotations

import argparse
import io
import shutil
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont
from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "bot" / "pictures" / "fonts"

PRIMARY = ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf")
# Living scripts people write their names in, most common first (order is fallback order).
SCRIPTS = (
    "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Telugu", "Thai", "Georgian",
    "Armenian", "Gujarati", "Gurmukhi", "Kannada", "Malayalam", "Sinhala", "Khmer", "Lao",
    "Myanmar", "Oriya", "Ethiopic", "Thaana", "CanadianAboriginal", "Cherokee", "Tifinagh",
    "NKo",
)  # fmt: skip
# Fancy-letter nicknames: 𝓙𝓸𝓼𝓮, 𝕁𝕠𝕤𝕖, ℌ, ℭ...
MATH_RANGES = ((0x1D400, 0x1D7FF), (0x2100, 0x214F), (0x2200, 0x22FF))
EMOJI_PPEM = 32
EMOJI_COLOURS = 64
# Characters every subset keeps: shaping needs the joiners and the dotted circle.
ALWAYS = {0x200C, 0x200D, 0x25CC}


def find(source: Path, name: str) -> Path:
    matches = sorted(source.rglob(name))
    if not matches:
        raise SystemExit(f"{name} not found under {source}: install the font packages first")
    return matches[0]


def cmap(path: Path) -> set[int]:
    return set(TTFont(path, lazy=True).getBestCmap())


def subset_to(source: Path, target: Path, keep: set[int]) -> set[int]:
    """Write ``source`` cut down to ``keep`` (its shaping rules kept); returns what it has."""
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.hinting = False
    options.drop_tables += ["DSIG"]
    font = TTFont(source)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(keep))
    subsetter.subset(font)
    font.save(target)
    return set(font.getBestCmap())


def shrink_emoji(source: Path, target: Path) -> None:
    """Noto Color Emoji with its one bitmap strike scaled from 109 px to EMOJI_PPEM."""
    font = TTFont(source)
    strike = font["CBLC"].strikes[0].bitmapSizeTable
    scale = EMOJI_PPEM / strike.ppemX
    for glyph in font["CBDT"].strikeData[0].values():
        picture = Image.open(io.BytesIO(glyph.imageData)).convert("RGBA")
        metrics = glyph.metrics
        width = max(1, round(metrics.width * scale))
        height = max(1, round(metrics.height * scale))
        small = picture.resize((width, height), Image.Resampling.LANCZOS).quantize(
            colors=EMOJI_COLOURS, method=Image.Quantize.FASTOCTREE
        )
        buffer = io.BytesIO()
        small.save(buffer, format="PNG", optimize=True)
        glyph.imageData = buffer.getvalue()
        metrics.width, metrics.height = width, height
        metrics.BearingX = round(metrics.BearingX * scale)
        metrics.BearingY = round(metrics.BearingY * scale)
        metrics.Advance = round(metrics.Advance * scale)
    strike.ppemX = strike.ppemY = EMOJI_PPEM
    for line in (strike.hori, strike.vert):
        line.ascender = round(line.ascender * scale)
        line.descender = round(line.descender * scale)
        line.widthMax = round(line.widthMax * scale)
    font.save(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=Path("/usr/share/fonts"))
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.ttf"):
        old.unlink()

    covered: set[int] = set()
    for name in PRIMARY:
        shutil.copyfile(find(args.source, name), OUT / name)
        covered |= cmap(OUT / name)

    fallbacks = [f"NotoSans{script}-Regular.ttf" for script in SCRIPTS]
    fallbacks += ["NotoSansMath-Regular.ttf", "NotoSansSymbols-Regular.ttf"]
    fallbacks += ["NotoSansSymbols2-Regular.ttf", "DroidSansFallback.ttf"]
    for name in fallbacks:
        source = find(args.source, name)
        keep = cmap(source) - covered
        if name.startswith("NotoSansMath"):
            keep = {cp for cp in keep if any(lo <= cp <= hi for lo, hi in MATH_RANGES)}
        if not keep:
            continue
        covered |= subset_to(source, OUT / name, keep | ALWAYS) - ALWAYS

    shrink_emoji(find(args.source, "NotoColorEmoji.ttf"), OUT / "NotoColorEmoji-32px.ttf")

    total = 0
    for path in sorted(OUT.glob("*.ttf")):
        size = path.stat().st_size
        total += size
        print(f"{size / 1e6:6.2f} MB  {path.name}")
    print(f"{total / 1e6:6.2f} MB  in all")


if __name__ == "__main__":
    main()
