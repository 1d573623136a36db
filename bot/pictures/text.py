"""Text in any script and emoji, from the fonts bundled in ``fonts/``.

A line of text is split into clusters (a letter with its accents, an emoji sequence with
its joiners and skin tone), and each cluster is drawn by the first font of the stack that
has every character of it: Noto Sans (Latin, Greek, Cyrillic), Noto's fonts for the
living scripts, fancy letters and symbols, Droid Sans Fallback (Chinese, Japanese,
Korean), and Noto Color Emoji for emoji. Neighbouring clusters of one font form a run,
shaped by HarfBuzz (Pillow's Raqm layout), so Arabic joins and Devanagari conjuncts form.
Runs are put in visual order for right-to-left names.

A cluster that no font has (a historic script, a private-use character) is drawn as
U+FFFD, so a picture never shows a font's empty box for a name. Lines are cached: names
repeat from one picture to the next.

``record()`` lets tests see every run drawn and the font that drew it.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

from bot.pictures.palette import RGB

FONT_DIR = Path(__file__).resolve().parent / "fonts"
Weight = Literal["regular", "bold"]
PRIMARY: dict[str, str] = {"regular": "NotoSans-Regular.ttf", "bold": "NotoSans-Bold.ttf"}
EMOJI_FILE = "NotoColorEmoji-32px.ttf"
EMOJI_STRIKE = 32  # the emoji font's only bitmap size (see tools/build_fonts.py)
EMOJI_SCALE = 1.12  # emoji look small beside letters of the same size
REPLACEMENT = "\ufffd"
ELLIPSIS = "…"
# Noto Sans: capital letters are 0.714 em tall; "middle" anchors centre them.
CAP_HEIGHT = 0.714

# Characters shown with their emoji picture even without U+FE0F (Emoji_Presentation=Yes
# below U+1F000; everything the emoji font has from U+1F000 up is shown as emoji).
_EMOJI_PRESENTATION = frozenset(
    (
        *(0x231A, 0x231B, 0x23E9, 0x23EA, 0x23EB, 0x23EC, 0x23F0, 0x23F3, 0x25FD, 0x25FE),
        *(0x2614, 0x2615, *range(0x2648, 0x2654), 0x267F, 0x2693, 0x26A1, 0x26AA, 0x26AB),
        *(0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26F3, 0x26F5),
        *(0x26FA, 0x26FD, 0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754),
        *(0x2755, 0x2757, 0x2795, 0x2796, 0x2797, 0x27B0, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50),
        0x2B55,
    )
)
_ZWJ = 0x200D
_KEYCAP = 0x20E3


def _is_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _is_regional(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def _extends(cp: int) -> bool:
    """Characters that belong to the cluster before them."""
    return (
        unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me")
        or _is_selector(cp)
        or cp in (_ZWJ, 0x200C, _KEYCAP)
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
    )


def clusters(text: str) -> list[str]:
    """``text`` split where a cursor may stop: accents, joiners, skin tones, flag pairs and
    keycaps stay with what they modify."""
    found: list[str] = []
    for char in text:
        cp = ord(char)
        if found:
            last = found[-1]
            joined = ord(last[-1]) == _ZWJ
            flag_pair = _is_regional(cp) and len(last) == 1 and _is_regional(ord(last))
            if _extends(cp) or joined or flag_pair:
                found[-1] = last + char
                continue
        found.append(char)
    return found


# ---------------------------------------------------------------------------------------
# The font stack
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Face:
    """One bundled font file and the characters it has."""

    path: Path
    coverage: frozenset[int]
    colour: bool = False  # a colour bitmap font (emoji), drawn at its strike and scaled

    @property
    def name(self) -> str:
        return self.path.name

    def covers(self, cluster: str) -> bool:
        return all(ord(c) in self.coverage or _is_selector(ord(c)) for c in cluster)


def _load(name: str, *, colour: bool = False) -> Face:
    path = FONT_DIR / name
    font = TTFont(path, lazy=True)
    try:
        coverage = frozenset(font.getBestCmap())
    finally:
        font.close()
    return Face(path, coverage, colour)


_stack_lock = threading.Lock()


@cache
def _fallbacks() -> tuple[Face, ...]:
    """Every bundled font after the primary ones, in the order they are tried."""
    names = sorted(
        p.name
        for p in FONT_DIR.glob("*.ttf")
        if p.name not in PRIMARY.values() and p.name != EMOJI_FILE
    )
    # Scripts first, then fancy letters and symbols, CJK last: CJK fonts carry their own
    # Latin and punctuation, which should not win over the scripts' own.
    late = ["NotoSansMath-Regular.ttf", "NotoSansSymbols-Regular.ttf"]
    late += ["NotoSansSymbols2-Regular.ttf", "DroidSansFallback.ttf"]
    ordered = [n for n in names if n not in late] + [n for n in late if n in names]
    return tuple(_load(name) for name in ordered)


@cache
def emoji_face() -> Face:
    return _load(EMOJI_FILE, colour=True)


@cache
def primary_face(weight: Weight) -> Face:
    return _load(PRIMARY[weight])


def stack(weight: Weight) -> tuple[Face, ...]:
    """The text fonts for ``weight``, in fallback order (emoji are chosen apart)."""
    with _stack_lock:
        return (primary_face(weight), *_fallbacks())


def bundled_faces() -> tuple[Face, ...]:
    with _stack_lock:
        return (primary_face("regular"), primary_face("bold"), *_fallbacks(), emoji_face())


def _wants_emoji(cluster: str) -> bool:
    codes = [ord(c) for c in cluster]
    if 0xFE0E in codes:
        return False
    if 0xFE0F in codes or _KEYCAP in codes or _ZWJ in codes:
        return True
    first = codes[0]
    return (
        first >= 0x1F000
        or first in _EMOJI_PRESENTATION
        or (len(codes) > 1 and (0x1F3FB <= codes[1] <= 0x1F3FF))
    )


def face_for(cluster: str, weight: Weight) -> Face | None:
    """The font that draws ``cluster``, or None when no bundled font has all of it."""
    if _wants_emoji(cluster):
        emoji = emoji_face()
        if emoji.covers(cluster):
            return emoji
    for face in stack(weight):
        if face.covers(cluster):
            return face
    emoji = emoji_face()
    return emoji if emoji.covers(cluster) else None


@dataclass(frozen=True)
class Run:
    face: Face
    text: str


def runs(text: str, weight: Weight) -> list[Run]:
    """``text`` as runs of one font each, in logical order. Variation selectors are kept
    only for the emoji font (text fonts have no glyph for them)."""
    found: list[Run] = []
    for cluster in clusters(text):
        face = face_for(cluster, weight)
        if face is None:
            face, cluster = primary_face(weight), REPLACEMENT
        elif not face.colour:
            cluster = "".join(c for c in cluster if not _is_selector(ord(c)))
            if not cluster:
                continue
        if found and found[-1].face is face:
            found[-1] = Run(face, found[-1].text + cluster)
        else:
            found.append(Run(face, cluster))
    return found


def _direction(text: str) -> str | None:
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return None


def visual_order(found: list[Run]) -> list[Run]:
    """Runs left to right as shown: in a right-to-left name the runs go right to left,
    while a left-to-right stretch inside it keeps its own order (and vice versa). Runs
    with no strong direction (emoji, digits) take the direction of the name."""
    directions = [_direction(run.text) for run in found]
    base = next((d for d in directions if d is not None), "ltr")
    groups: list[tuple[str, list[Run]]] = []
    for run, direction in zip(found, directions, strict=True):
        level = direction or base
        if groups and groups[-1][0] == level:
            groups[-1][1].append(run)
        else:
            groups.append((level, [run]))
    if base == "rtl":
        groups.reverse()
    return [run for level, group in groups for run in (group[::-1] if level == "rtl" else group)]


# ---------------------------------------------------------------------------------------
# Lines
# ---------------------------------------------------------------------------------------


_fonts = threading.local()


def font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    """A font object for this thread: FreeType faces must not be used by two threads at
    once, and renders may run on more than one worker thread."""
    loaded: dict[tuple[Path, int], ImageFont.FreeTypeFont] | None = getattr(_fonts, "loaded", None)
    if loaded is None:
        loaded = _fonts.loaded = {}
    key = (path, size)
    if key not in loaded:
        loaded[key] = ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.RAQM)
    return loaded[key]


@dataclass(frozen=True)
class Line:
    """One line of text, drawn once and pasted wherever it is needed.

    ``mask`` holds the coverage of every glyph in one colour (any ink can be applied),
    ``colour`` the emoji (RGBA) or None. Both share one size; ``baseline`` is the y of the
    baseline in them and ``width`` the advance width. ``ascent``/``cap`` are the primary
    font's, so lines in different scripts line up."""

    mask: Image.Image
    colour: Image.Image | None
    width: int
    baseline: int
    ascent: int
    descent: int
    cap: int
    pad: int  # from the sprites' left edge to where the advance width starts
    runs: tuple[Run, ...]

    @property
    def height(self) -> int:
        return self.mask.height


def _run_box(run: Run, size: int) -> tuple[float, float, float, float, float]:
    """(advance, left, top, right, bottom) of a run drawn at ``size`` from its baseline."""
    if run.face.colour:
        emoji = font(run.face.path, EMOJI_STRIKE)
        scale = size * EMOJI_SCALE / EMOJI_STRIKE
        left, top, right, bottom = emoji.getbbox(run.text, anchor="ls")
        advance = emoji.getlength(run.text)
        return advance * scale, left * scale, top * scale, right * scale, bottom * scale
    face_font = font(run.face.path, size)
    left, top, right, bottom = face_font.getbbox(run.text, anchor="ls")
    return face_font.getlength(run.text), left, top, right, bottom


@lru_cache(maxsize=2048)
def line(text: str, size: int, weight: Weight = "regular") -> Line:
    """``text`` drawn at ``size`` pixels (the em size of the primary font)."""
    primary = font(primary_face(weight).path, size)
    ascent, descent = primary.getmetrics()
    shown = visual_order(runs(" ".join(text.split()), weight))
    boxes = [_run_box(run, size) for run in shown]
    top = min([-ascent, *(box[2] for box in boxes)])
    bottom = max([descent, *(box[4] for box in boxes)])
    pen, left_ink, right_ink = 0.0, 0.0, 0.0
    for (advance, left, _, right, _), _run in zip(boxes, shown, strict=True):
        left_ink = min(left_ink, pen + left)
        right_ink = max(right_ink, pen + right)
        pen += advance
    pad = int(-left_ink) + 1
    width = max(1, int(max(pen, right_ink)) + pad + 2)
    height = int(bottom - top) + 2
    baseline = int(-top) + 1
    mask = Image.new("L", (width, height), 0)
    colour: Image.Image | None = None
    draw = ImageDraw.Draw(mask)
    pen = float(pad)
    for (advance, *_), run in zip(boxes, shown, strict=True):
        if run.face.colour:
            colour = colour or Image.new("RGBA", (width, height), (0, 0, 0, 0))
            _paste_emoji(colour, run.text, size, pen, baseline)
        else:
            draw.text((pen, baseline), run.text, font=font(run.face.path, size), fill=255,
                      anchor="ls")  # fmt: skip
        pen += advance
    return Line(
        mask=mask,
        colour=colour,
        width=round(pen) - pad,
        baseline=baseline,
        ascent=ascent,
        descent=descent,
        cap=round(CAP_HEIGHT * size),
        pad=pad,
        runs=tuple(shown),
    )


def _paste_emoji(target: Image.Image, text: str, size: int, pen: float, baseline: int) -> None:
    emoji = font(emoji_face().path, EMOJI_STRIKE)
    left, top, right, bottom = emoji.getbbox(text, anchor="ls")
    strip = Image.new("RGBA", (max(1, int(right - left)), max(1, int(bottom - top))))
    ImageDraw.Draw(strip).text((-left, -top), text, font=emoji, anchor="ls", embedded_color=True)
    scale = size * EMOJI_SCALE / EMOJI_STRIKE
    shrunk = strip.resize(
        (max(1, round(strip.width * scale)), max(1, round(strip.height * scale))),
        Image.Resampling.LANCZOS,
    )
    target.alpha_composite(shrunk, (round(pen + left * scale), round(baseline + top * scale)))


def width(text: str, size: int, weight: Weight = "regular") -> int:
    return line(text, size, weight).width


@lru_cache(maxsize=2048)
def fit(text: str, size: int, max_width: float, weight: Weight = "regular") -> str:
    """``text``, shortened at a cluster boundary with "…" until it is at most
    ``max_width`` pixels wide."""
    text = " ".join(text.split())
    if line(text, size, weight).width <= max_width:
        return text
    parts = clusters(text)
    low, high = 0, len(parts)
    while low < high:
        middle = (low + high + 1) // 2
        if line("".join(parts[:middle]).rstrip() + ELLIPSIS, size, weight).width <= max_width:
            low = middle
        else:
            high = middle - 1
    return "".join(parts[:low]).rstrip() + ELLIPSIS


def wrap(
    text: str, size: int, max_width: float, weight: Weight = "regular", max_lines: int = 2
) -> list[str]:
    """``text`` broken at spaces into lines at most ``max_width`` wide; the last line
    allowed is shortened with "…" when the text does not fit."""
    lines: list[str] = []
    current = ""
    words = text.split()
    for index, word in enumerate(words):
        candidate = f"{current} {word}".strip()
        if line(candidate, size, weight).width <= max_width or not current:
            current = candidate
            continue
        lines.append(current)
        current = word
        if len(lines) == max_lines - 1:
            current = " ".join(words[index:])
            break
    if current:
        lines.append(fit(current, size, max_width, weight))
    return lines[:max_lines]


# ---------------------------------------------------------------------------------------
# Placing lines, and recording what was drawn
# ---------------------------------------------------------------------------------------

Anchor = Literal["lm", "mm", "rm", "ls", "ms", "rs", "lt", "mt", "rt"]


def origin(text_line: Line, x: float, y: float, anchor: str) -> tuple[int, int]:
    """The top-left corner of ``text_line``'s sprites for a point and an anchor:
    l/m/r (left, middle, right of the advance width) and m/s/t (the middle of the capital
    letters, the baseline, the top of the ascent)."""
    horizontal, vertical = anchor[0], anchor[1]
    pad = text_line.pad
    left = x - {"l": 0.0, "m": text_line.width / 2, "r": float(text_line.width)}[horizontal]
    baseline = {
        "m": y + text_line.cap / 2,
        "s": y,
        "t": y + text_line.ascent,
    }[vertical]
    return round(left) - pad, round(baseline) - text_line.baseline


@dataclass(frozen=True)
class Drawn:
    """One piece of text as drawn: what, in which colour, on which declared background,
    the colours actually under it, and the runs with the fonts that drew them."""

    text: str
    size: int
    ink: RGB
    background: RGB
    found_under: frozenset[RGB]
    runs: tuple[Run, ...]
    box: tuple[int, int, int, int]


_recording = threading.local()


@contextmanager
def record() -> Iterator[list[Drawn]]:
    """Collect every piece of text drawn in this thread while the block runs."""
    drawn: list[Drawn] = []
    previous = getattr(_recording, "drawn", None)
    _recording.drawn = drawn
    try:
        yield drawn
    finally:
        _recording.drawn = previous


def recording() -> list[Drawn] | None:
    return getattr(_recording, "drawn", None)


def note_drawn(
    image: Image.Image,
    text: str,
    size: int,
    ink: RGB,
    background: RGB,
    text_line: Line,
    left: int,
    top: int,
    palette: list[RGB] | None = None,
) -> None:
    """Record a piece of text about to be pasted at (left, top) (only while recording)."""
    drawn = recording()
    if drawn is None:
        return
    bbox = text_line.mask.getbbox()
    if bbox is None:
        box = (left, top, left, top)
        under: frozenset[RGB] = frozenset()
    else:
        box = (left + bbox[0], top + bbox[1], left + bbox[2], top + bbox[3])
        region = image.crop(box)
        colours = region.getcolors(maxcolors=1 << 16) or []
        # A palette image's colours are palette indexes, an RGB(A) image's are tuples.
        if image.mode == "P" and palette is not None:
            under = frozenset(palette[int(c)] for _, c in colours if not isinstance(c, tuple))
        else:
            under = frozenset((c[0], c[1], c[2]) for _, c in colours if isinstance(c, tuple))
    drawn.append(Drawn(text, size, ink, background, under, text_line.runs, box))


def draw_text(
    image: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    ink: RGB,
    background: RGB,
    *,
    weight: Weight = "regular",
    anchor: str = "lm",
    max_width: float | None = None,
) -> int:
    """Draw ``text`` on an RGB(A) image over a flat ``background``; returns its width."""
    shown = text if max_width is None else fit(text, size, max_width, weight)
    if not shown:
        return 0
    text_line = line(shown, size, weight)
    left, top = origin(text_line, xy[0], xy[1], anchor)
    note_drawn(image, shown, size, ink, background, text_line, left, top)
    image.paste(ink, (left, top, left + text_line.mask.width, top + text_line.height),
                text_line.mask)  # fmt: skip
    if text_line.colour is not None:
        image.paste(text_line.colour, (left, top), text_line.colour)
    return text_line.width
