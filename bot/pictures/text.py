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

Every text is drawn into a slot, the box its picture gives it (``draw_text``,
``draw_block``): it is fitted there at draw time (``fit_lines``: smaller down to a least
size, in more lines, narrowed a little; a name narrowed further, and cut after its 16th
character only), measured on its ink, not its advance width.

``record()`` lets tests see every line drawn: the fonts that drew it, its inked box, the
slot it was given, its size and narrowing, and whether anything of it was left out.
"""

from __future__ import annotations

import itertools
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
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
    # The ink's reach from where the advance width starts: glyphs may overhang it (a W, an
    # accent, an emoji), and a slot must hold the ink, not just the advance.
    ink_left: int = 0
    ink_right: int = 0

    @property
    def height(self) -> int:
        return self.mask.height

    @property
    def span(self) -> int:
        """The room the line takes: from its advance or ink, whichever starts first, to
        whichever ends last."""
        return max(self.width, self.ink_right) - min(0, self.ink_left)


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
def line(text: str, size: int, weight: Weight = "regular", squeeze: float = 1.0) -> Line:
    """``text`` drawn at ``size`` pixels (the em size of the primary font); ``squeeze`` < 1
    narrows it (condensed), its height and size unchanged."""
    if squeeze < 1.0:
        return _squeezed(line(text, size, weight), squeeze)
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
    drawn = Line(
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
    ink = inked_box(drawn)
    if ink is None:
        return drawn
    return replace(drawn, ink_left=ink[0] - pad, ink_right=ink[2] - pad)


def _squeezed(wide: Line, squeeze: float) -> Line:
    """``wide`` narrowed to ``squeeze`` of its width: the glyphs keep their height, so a
    condensed name is still read at its size."""
    size = (max(1, round(wide.mask.width * squeeze)), wide.mask.height)
    colour = None
    if wide.colour is not None:
        colour = wide.colour.resize(size, Image.Resampling.LANCZOS)
    narrow = Line(
        mask=wide.mask.resize(size, Image.Resampling.LANCZOS),
        colour=colour,
        width=max(1, round(wide.width * squeeze)),
        baseline=wide.baseline,
        ascent=wide.ascent,
        descent=wide.descent,
        cap=wide.cap,
        pad=round(wide.pad * squeeze),
        runs=wide.runs,
    )
    ink = inked_box(narrow)
    if ink is None:
        return narrow
    return replace(narrow, ink_left=ink[0] - narrow.pad, ink_right=ink[2] - narrow.pad)


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


def width(text: str, size: int, weight: Weight = "regular", squeeze: float = 1.0) -> int:
    return line(text, size, weight, squeeze).width


@lru_cache(maxsize=2048)
def fit(text: str, size: int, max_width: float, weight: Weight = "regular") -> str:
    """``text``, shortened at a cluster boundary with "…" until it is at most
    ``max_width`` pixels wide."""
    text = " ".join(text.split())
    if line(text, size, weight).span <= max_width:
        return text
    parts = clusters(text)
    low, high = 0, len(parts)
    while low < high:
        middle = (low + high + 1) // 2
        if line("".join(parts[:middle]).rstrip() + ELLIPSIS, size, weight).span <= max_width:
            low = middle
        else:
            high = middle - 1
    return "".join(parts[:low]).rstrip() + ELLIPSIS


# ---------------------------------------------------------------------------------------
# Fitting a text into its slot
# ---------------------------------------------------------------------------------------

# A name is shown whole up to this many clusters (what a reader counts as characters: a
# letter with its accents, an emoji with its joiners); a longer one may be cut after them,
# with "…" (the pictures' alt text always has it whole).
NAME_CLUSTERS = 16
# How far a text may be narrowed (condensed) to fit, once it is at its smallest size: a
# name a long way (16 emoji, or wide letters, take twice a Latin name's room), other
# words a little (a longer translation).
NAME_SQUEEZE = 0.6
WORDS_SQUEEZE = 0.85


@dataclass(frozen=True)
class Fitted:
    """How a text fits its room: its lines, the size and narrowing they are drawn at, and
    whether any of the text had to be left out (``cut``)."""

    lines: tuple[str, ...]
    size: int
    squeeze: float
    cut: bool


def short_name(name: str) -> str:
    """``name`` as it may be shown when it does not fit: its first ``NAME_CLUSTERS``
    clusters and "…" (the name itself when it is no longer)."""
    name = " ".join(name.split())
    parts = clusters(name)
    if len(parts) <= NAME_CLUSTERS:
        return name
    return "".join(parts[:NAME_CLUSTERS]).rstrip() + ELLIPSIS


def _break(
    text: str, size: int, room: float, weight: Weight, max_lines: int, name: bool
) -> tuple[str, ...] | None:
    """``text`` broken into at most ``max_lines`` lines of at most ``room`` pixels, at
    spaces (and, in a name, between clusters where one word alone is too wide), or None."""
    lines: list[str] = []
    current = ""
    words = text.split(" ")
    for word in words:
        candidate = f"{current} {word}" if current else word
        if line(candidate, size, weight).span <= room:
            current = candidate
            continue
        if current:
            lines.append(current)
            current = ""
        if line(word, size, weight).span <= room:
            current = word
            continue
        if not name or max_lines == 1:
            return None
        for part in clusters(word):
            if current and line(current + part, size, weight).span > room:
                lines.append(current)
                current = ""
            current += part
            if line(current, size, weight).span > room:
                return None
    if current:
        lines.append(current)
    return tuple(lines) if len(lines) <= max_lines else None


@lru_cache(maxsize=4096)
def fit_lines(
    text: str,
    size: int,
    min_size: int,
    room: float,
    weight: Weight = "regular",
    max_lines: int = 1,
    name: bool = False,
) -> Fitted:
    """How ``text`` fits ``room`` pixels of width in at most ``max_lines`` lines, in as
    few lines as it can: in one line at ``size``, or smaller down to ``min_size``, or at
    ``min_size`` narrowed a little (to ``WORDS_SQUEEZE``); then in two lines the same way,
    and so on; then a name narrowed further (to ``NAME_SQUEEZE``). A name longer than
    ``NAME_CLUSTERS`` clusters that does not fit whole is shown as ``short_name``. Only
    when nothing of that fits is a text cut short with "…" (``cut``): a test fails on any
    such text but a long name."""
    text = " ".join(text.split())
    candidates = [text]
    if name and short_name(text) != text:
        candidates.append(short_name(text))
    least = min(size, min_size)
    stages = [(lines, WORDS_SQUEEZE) for lines in range(1, max_lines + 1)]
    if name:
        stages.append((max_lines, NAME_SQUEEZE))
    for count, narrowest in stages:
        if narrowest == WORDS_SQUEEZE:
            for candidate in candidates:
                for shown_size in range(size, least - 1, -1):
                    lines = _break(candidate, shown_size, room, weight, count, name)
                    if lines is not None:
                        return Fitted(lines, shown_size, 1.0, candidate != text)
        # Narrowed a long way, a name longer than NAME_CLUSTERS is cut rather than kept whole.
        for candidate in candidates if narrowest == WORDS_SQUEEZE else candidates[-1:]:
            lines = _break(candidate, least, room / narrowest, weight, count, name)
            if lines is not None:
                squeeze = _squeeze(lines, least, room, weight)
                if squeeze >= narrowest:
                    return Fitted(lines, least, squeeze, candidate != text)
    # Nothing fits (a word wider than any room): cut the last line short.
    narrowest = NAME_SQUEEZE if name else WORDS_SQUEEZE
    shown = candidates[-1]
    head: list[str] = []
    if max_lines > 1:
        words = shown.split(" ")
        for count in range(len(words) - 1, 0, -1):
            lines = _break(" ".join(words[:count]), least, room / narrowest, weight,
                           max_lines - 1, name)  # fmt: skip
            if lines is not None:
                head, shown = list(lines), " ".join(words[count:])
                break
    last = fit(shown, least, room / narrowest, weight)
    lines = (*head, last)
    return Fitted(lines, least, _squeeze(lines, least, room, weight), True)


def _squeeze(lines: tuple[str, ...], size: int, room: float, weight: Weight) -> float:
    """The least narrowing that brings every line within ``room``: measured on the
    narrowed lines themselves, as resampling spreads the ink a little."""
    widest = max(line(each, size, weight).span for each in lines)
    squeeze = min(1.0, room / widest)
    while squeeze > 0.1 and max(line(each, size, weight, squeeze).span for each in lines) > room:
        squeeze = round(squeeze - 0.01, 2)
    return squeeze


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


Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Placed:
    """One line of a text, ready to paste: its sprites and their top-left corner."""

    shown: str
    line: Line
    left: int
    top: int


@dataclass(frozen=True)
class Layout:
    """A text fitted into its slot (the box it may use) and placed, line by line."""

    wanted: str
    slot: Box
    fitted: Fitted
    placed: tuple[Placed, ...]
    name: bool

    @property
    def width(self) -> int:
        return max((each.line.width for each in self.placed), default=0)

    @property
    def bottom(self) -> int:
        """The bottom of the last line's box (its descent, or an emoji's, below it)."""
        return max((each.top + each.line.height for each in self.placed), default=0)


def _room(x: float, anchor: str, slot: Box) -> float:
    """The width a line anchored at ``x`` may take without leaving ``slot``."""
    left, _, right, _ = slot
    if anchor[0] == "l":
        return right - x
    if anchor[0] == "r":
        return x - left
    return 2 * min(x - left, right - x)


# Layouts are kept like lines: a picture lays out the same texts in the same slots from
# one render to the next (a table's names and scores, a duel's cards).
LAYOUTS_KEPT = 1024


@lru_cache(maxsize=LAYOUTS_KEPT)
def layout_text(
    xy: tuple[float, float],
    text: str,
    size: int,
    *,
    slot: Box,
    weight: Weight = "regular",
    anchor: str = "lm",
    min_size: int | None = None,
    name: bool = False,
) -> Layout:
    """One line at ``xy`` (see ``origin`` for ``anchor``), fitted to the room ``slot``
    leaves it: at ``size``, down to ``min_size`` (``size`` when None), then narrowed."""
    fitted = fit_lines(text, size, size if min_size is None else min_size,
                       _room(xy[0], anchor, slot), weight, 1, name)  # fmt: skip
    placed = []
    for shown in fitted.lines:
        text_line = line(shown, fitted.size, weight, fitted.squeeze)
        left, top = origin(text_line, xy[0], xy[1], anchor)
        placed.append(Placed(shown, text_line, left + _nudge(text_line, anchor), top))
    return Layout(text, slot, fitted, tuple(placed), name)


def _nudge(text_line: Line, anchor: str) -> int:
    """How far to move a line so that ink overhanging its advance width stays on the
    anchor's side: right for a left-aligned line, left for a right-aligned one."""
    if anchor[0] == "l":
        return max(0, -text_line.ink_left)
    if anchor[0] == "r":
        return -max(0, text_line.ink_right - text_line.width)
    return 0


@lru_cache(maxsize=LAYOUTS_KEPT)
def layout_block(
    slot: Box,
    text: str,
    size: int,
    *,
    weight: Weight = "regular",
    min_size: int | None = None,
    max_lines: int = 2,
    leading: float = 1.25,
    name: bool = False,
    align: Literal["l", "m", "r"] = "l",
    valign: Literal["t", "m"] = "t",
) -> Layout:
    """Up to ``max_lines`` lines filling ``slot`` from its top (or centred in it), each
    line ``leading`` times the size below the one before."""
    left, top, right, bottom = slot
    fitted = fit_lines(text, size, size if min_size is None else min_size, right - left,
                       weight, max_lines, name)  # fmt: skip
    x = {"l": left, "m": (left + right) / 2, "r": right}[align]
    lines = [line(shown, fitted.size, weight, fitted.squeeze) for shown in fitted.lines]
    # From one baseline to the next: ``leading`` times the size, or more where a line's
    # ink reaches further (an emoji, an accented capital under a descender), so lines
    # never touch.
    offsets = [0]
    for above, below in itertools.pairwise(lines):
        reach = _ink_below(above) + _ink_above(below) + 1
        offsets.append(offsets[-1] + max(round(fitted.size * leading), reach))
    if valign == "t":
        first = top + max(lines[0].ascent, _ink_above(lines[0]))
        anchor = align + "s"
    else:
        # The capital letters' middles of the lines, centred on the slot's middle.
        first = (top + bottom) / 2 - offsets[-1] / 2
        anchor = align + "m"
    placed = []
    for shown, text_line, offset in zip(fitted.lines, lines, offsets, strict=True):
        left, top = origin(text_line, x, first + offset, anchor)
        placed.append(Placed(shown, text_line, left + _nudge(text_line, anchor), top))
    return Layout(text, slot, fitted, tuple(placed), name)


def _ink_above(text_line: Line) -> int:
    """How far a line's ink reaches above its baseline."""
    box = inked_box(text_line)
    return 0 if box is None else text_line.baseline - box[1]


def _ink_below(text_line: Line) -> int:
    """How far a line's ink reaches below its baseline."""
    box = inked_box(text_line)
    return 0 if box is None else box[3] - text_line.baseline


@dataclass(frozen=True)
class Drawn:
    """One line of text as drawn: what, in which colour, on which declared background,
    the colours actually under it, the runs with the fonts that drew them, its inked box;
    and what it was asked to show (``wanted``, whole), in which ``slot``, at what size and
    narrowing, whether any of it was left out (``cut``), whether it is a player's name,
    and every line of its text (``lines``: a text in two lines is two ``Drawn``)."""

    text: str
    size: int
    ink: RGB
    background: RGB
    found_under: frozenset[RGB]
    runs: tuple[Run, ...]
    box: tuple[int, int, int, int]
    wanted: str
    slot: Box
    squeeze: float = 1.0
    cut: bool = False
    name: bool = False
    lines: tuple[str, ...] = ()


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
    layout: Layout,
    placed: Placed,
    ink: RGB,
    background: RGB,
    palette: list[RGB] | None = None,
) -> None:
    """Record one line about to be pasted (only while recording): its inked box measured
    against its slot, with the fonts it is drawn with, and the colours under it."""
    drawn = recording()
    if drawn is None:
        return
    text_line, left, top = placed.line, placed.left, placed.top
    bbox = inked_box(text_line)
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
    fitted = layout.fitted
    drawn.append(
        Drawn(placed.shown, fitted.size, ink, background, under, text_line.runs, box,
              wanted=layout.wanted, slot=layout.slot, squeeze=fitted.squeeze,
              cut=fitted.cut, name=layout.name, lines=fitted.lines)
    )  # fmt: skip


def inked_box(text_line: Line) -> tuple[int, int, int, int] | None:
    """The box of a line's ink: its glyphs and its emoji."""
    box = text_line.mask.getbbox()
    if text_line.colour is not None:
        colour_box = text_line.colour.getbbox()
        if colour_box is not None:
            box = colour_box if box is None else (
                min(box[0], colour_box[0]), min(box[1], colour_box[1]),
                max(box[2], colour_box[2]), max(box[3], colour_box[3]),
            )  # fmt: skip
    return box


def paste(image: Image.Image, layout: Layout, ink: RGB, background: RGB) -> None:
    """Draw a laid-out text on an RGB(A) image over a flat ``background``."""
    for placed in layout.placed:
        note_drawn(image, layout, placed, ink, background)
        text_line, left, top = placed.line, placed.left, placed.top
        image.paste(ink, (left, top, left + text_line.mask.width, top + text_line.height),
                    text_line.mask)  # fmt: skip
        if text_line.colour is not None:
            image.paste(text_line.colour, (left, top), text_line.colour)


def draw_text(
    image: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    ink: RGB,
    background: RGB,
    *,
    slot: Box,
    weight: Weight = "regular",
    anchor: str = "lm",
    min_size: int | None = None,
    name: bool = False,
) -> int:
    """Draw ``text`` in one line at ``xy`` on an RGB(A) image over a flat ``background``,
    fitted to ``slot`` (``layout_text``); returns its width."""
    if not text.strip():
        return 0
    layout = layout_text(xy, text, size, slot=slot, weight=weight, anchor=anchor,
                         min_size=min_size, name=name)  # fmt: skip
    paste(image, layout, ink, background)
    return layout.width


def draw_block(
    image: Image.Image,
    slot: Box,
    text: str,
    size: int,
    ink: RGB,
    background: RGB,
    *,
    weight: Weight = "regular",
    min_size: int | None = None,
    max_lines: int = 2,
    leading: float = 1.25,
    name: bool = False,
    align: Literal["l", "m", "r"] = "l",
    valign: Literal["t", "m"] = "t",
) -> Layout:
    """Draw ``text`` in up to ``max_lines`` lines inside ``slot`` (``layout_block``)."""
    layout = layout_block(slot, text, size, weight=weight, min_size=min_size,
                          max_lines=max_lines, leading=leading, name=name, align=align,
                          valign=valign)  # fmt: skip
    paste(image, layout, ink, background)
    return layout
