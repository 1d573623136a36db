"""A palette-indexed canvas: sprites pasted as palette indices, a PNG encoded straight away.

Game pictures are a few flat colours, anti-aliased edges between them, and text. Drawing
them in RGB and quantizing every render costs more than drawing them in palette indices
from the start: here every sprite (dice, trays, a name) is mapped onto one fixed palette
once, when first drawn, and a render only copies index bytes and encodes the PNG.

- The palette holds the picture's exact colours, an 8-step ramp for every pair of text
  ink and background (anti-aliased text maps onto it exactly, no quantizing), and the
  most frequent colours of the picture's sheets (anti-aliased edges).
- Colour glyphs (emoji in a name) get their own small palette, appended per render in
  the slots kept spare.
- Shapes drawn anti-aliased in RGB (``bot.pictures.draw``: rounded boxes, bars, dice) are
  mapped onto the palette once per shape and size (``IndexedPalette.sprite``) and pasted
  from then on (``IndexedCanvas.box``, ``bar``).

A render's own cost is then copies of index bytes and the PNG's encoding, about a tenth
of drawing in RGB and quantizing: the quantizer alone took two thirds of a Weighted Dice
table's 15 ms.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from PIL import Image

from bot.pictures import draw
from bot.pictures import text as pictures_text
from bot.pictures.palette import RGB

RAMP_STEPS = 8
SPARE = 72  # palette slots left for the colour glyphs of one render
COLOUR_GLYPH_COLOURS = 24  # colours per name with emoji in it
SPRITE_CACHE_LIMIT = 512  # indexed shapes kept per palette (boxes of every size seen)


def blend(ink: RGB, background: RGB, share: float) -> RGB:
    return (
        round(ink[0] * share + background[0] * (1 - share)),
        round(ink[1] * share + background[1] * (1 - share)),
        round(ink[2] * share + background[2] * (1 - share)),
    )


def _colour_counts(sheet: Image.Image) -> dict[RGB, int]:
    """How many pixels of each colour ``sheet`` has, in the colours' order (R, G, B). One
    numpy pass: Pillow's ``getcolors`` sets up a hash table of its ``maxcolors`` for every
    call, 6 ms a sheet whatever its size, a third of the picture helper's start-up."""
    pixels = np.asarray(sheet.convert("RGB"), dtype=np.uint32).reshape(-1, 3)
    packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    return {
        (int(value) >> 16, (int(value) >> 8) & 0xFF, int(value) & 0xFF): int(count)
        for value, count in zip(values, counts, strict=True)
    }


class IndexedPalette:
    """One picture's palette: exact colours, text ramps, the sheets' edge colours.
    ``ramp_steps``: the shades of each text ramp, ink and background included (more: text
    edges closer to what FreeType drew, fewer colours left for the sheets' edges);
    ``spare``: the slots kept for a render's colour glyphs (``COLOUR_GLYPH_COLOURS`` a name
    with emoji in it; the names past them map onto the fixed colours)."""

    def __init__(
        self,
        exact: Iterable[RGB],
        ramps: Iterable[tuple[RGB, RGB]],
        sheets: Sequence[Image.Image] = (),
        ramp_steps: int = RAMP_STEPS,
        spare: int = SPARE,
    ) -> None:
        colours: list[RGB] = list(dict.fromkeys(exact))
        self._ramps: dict[tuple[RGB, RGB], bytes] = {}
        for ink, background in ramps:
            steps = []
            for step in range(ramp_steps):
                colour = blend(ink, background, step / (ramp_steps - 1))
                if colour not in colours:
                    colours.append(colour)
                steps.append(colours.index(colour))
            # Coverage 0..255 -> the nearest ramp step.
            self._ramps[ink, background] = bytes(
                steps[round(alpha * (ramp_steps - 1) / 255)] for alpha in range(256)
            )
        room = 256 - spare - len(colours)
        if room < 0:
            raise ValueError("too many exact colours and ramps for one palette")
        counts: Counter[RGB] = Counter()
        for sheet in sheets:
            counts.update(_colour_counts(sheet))
        exact_colours = list(colours)
        for colour, _ in counts.most_common():
            if room == 0:
                break
            # A shade off an exact colour is resampling noise: it maps to the exact one.
            if any(max(abs(a - b) for a, b in zip(colour, e, strict=True)) <= 3
                   for e in exact_colours):  # fmt: skip
                continue
            if colour not in colours:
                colours.append(colour)
                room -= 1
        self.colours: tuple[RGB, ...] = tuple(colours)
        self.flat: list[int] = [channel for colour in colours for channel in colour]
        self._index = {colour: index for index, colour in enumerate(colours)}
        self._sprites: dict[Hashable, Image.Image] = {}

    def index_of(self, colour: RGB) -> int:
        return self._index[colour]

    def ramp(self, ink: RGB, background: RGB) -> bytes:
        return self._ramps[ink, background]

    def sprite(self, key: Hashable, make: Callable[[], Image.Image]) -> Image.Image:
        """The RGB sprite ``make()`` draws, mapped onto the palette (``index``) once per
        ``key`` (the shape, its size and colours) and kept."""
        indexed = self._sprites.get(key)
        if indexed is None:
            if len(self._sprites) >= SPRITE_CACHE_LIMIT:
                self._sprites.clear()
            indexed = self._sprites[key] = self.index(make())
        return indexed

    def index(self, sheet: Image.Image) -> Image.Image:
        """``sheet`` (RGB/RGBA) mapped onto the palette by nearest colour, no dithering.

        Done here rather than by Pillow's quantizer, which matches colours at reduced
        precision and can send a flat background to a neighbouring dark colour."""
        pixels = np.asarray(sheet.convert("RGB")).astype(np.int32)
        packed = (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]
        unique, inverse = np.unique(packed, return_inverse=True)
        rgb = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255], axis=-1)
        palette = np.array(self.colours, dtype=np.int32)
        distance = ((rgb[:, None, :] - palette[None, :, :]) ** 2).sum(axis=-1)
        nearest = distance.argmin(axis=1).astype(np.uint8)
        indices = nearest[inverse].reshape(packed.shape)
        return Image.frombytes("P", sheet.size, indices.tobytes())


def _p_image(size: tuple[int, int], data: bytes) -> Image.Image:
    return Image.frombytes("P", size, data)


@lru_cache(maxsize=1024)
def _colour_line(
    content: str,
    size: int,
    weight: pictures_text.Weight,
    squeeze: float,
    ink: RGB,
    background: RGB,
) -> tuple[bytes, tuple[int, int], tuple[RGB, ...]]:
    """A line with colour glyphs, composed on its background and given its own small
    palette: (index bytes, size, palette)."""
    text_line = pictures_text.line(content, size, weight, squeeze)
    composed = Image.new("RGB", text_line.mask.size, background)
    composed.paste(ink, (0, 0, *text_line.mask.size), text_line.mask)
    if text_line.colour is not None:
        composed.paste(text_line.colour, (0, 0), text_line.colour)
    small = composed.quantize(colors=COLOUR_GLYPH_COLOURS, method=Image.Quantize.MEDIANCUT)
    flat = small.getpalette() or []
    used = max(small.tobytes()) + 1
    palette = tuple((flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(used))
    return small.tobytes(), small.size, palette


class IndexedCanvas:
    """One render: a copy of the base picture, sprites pasted, then ``png()``."""

    def __init__(self, palette: IndexedPalette, base: Image.Image) -> None:
        self.palette = palette
        self.image = base.copy()
        # Every sprite is pasted through the image's core: ``Image.paste`` checks the
        # modes, loads both images and ensures a writable copy on every call (4 us a call
        # against 0.5), and a render pastes 40-80 sprites, all of them loaded P images.
        self._core = self.image.im
        self._extra: list[RGB] = []

    def paste(self, sprite: Image.Image, xy: tuple[int, int]) -> None:
        self._put(sprite, xy)

    def _put(self, sprite: Image.Image, xy: tuple[int, int]) -> None:
        left, top = xy
        self._core.paste(sprite.im, (left, top, left + sprite.width, top + sprite.height))

    def box(
        self,
        box: tuple[float, float, float, float],
        radius: int,
        fill: RGB,
        background: RGB,
        outline: RGB | None = None,
    ) -> None:
        """``bot.pictures.draw.paste_box`` on the canvas: the same pixels, the shape mapped
        onto the palette once per size."""
        left, top, right, bottom = (round(v) for v in box)
        size = (right - left, bottom - top)
        sprite = self.palette.sprite(
            ("box", size, radius, fill, background, outline),
            lambda: draw.rounded_box(size, radius, fill, background, outline),
        )
        self._put(sprite, (left, top))

    def bar(
        self,
        box: tuple[float, float, float, float],
        share: float,
        fill: RGB,
        track: RGB,
        background: RGB,
    ) -> None:
        """``bot.pictures.draw.bar`` on the canvas: ``share`` (0..1) of the track filled."""
        left, top, right, bottom = (round(v) for v in box)
        height = bottom - top
        self.box((left, top, right, bottom), height // 2, track, background)
        filled = round((right - left) * min(1.0, max(0.0, share)))
        if filled > 0:
            filled = max(filled, height)
            self.box((left, top, left + filled, bottom), height // 2, fill, track)

    def text(
        self,
        xy: tuple[float, float],
        content: str,
        size: int,
        ink: RGB,
        background: RGB,
        *,
        slot: pictures_text.Box,
        weight: pictures_text.Weight = "regular",
        anchor: str = "lm",
        min_size: int | None = None,
        name: bool = False,
    ) -> int:
        """One line over a flat ``background`` (its whole line box must lie on it), fitted
        to ``slot`` (``bot.pictures.text.layout_text``); returns its width."""
        if not content.strip():
            return 0
        layout = pictures_text.layout_text(
            xy, content, size, slot=slot, weight=weight, anchor=anchor, min_size=min_size,
            name=name,
        )  # fmt: skip
        self.paste_layout(layout, ink, background, weight)
        return layout.width

    def block(
        self,
        slot: pictures_text.Box,
        content: str,
        size: int,
        ink: RGB,
        background: RGB,
        *,
        weight: pictures_text.Weight = "regular",
        min_size: int | None = None,
        max_lines: int = 2,
        leading: float = 1.25,
        name: bool = False,
        align: Literal["l", "m", "r"] = "l",
        valign: Literal["t", "m"] = "t",
    ) -> pictures_text.Layout:
        """Up to ``max_lines`` lines inside ``slot`` (``bot.pictures.text.layout_block``)."""
        layout = pictures_text.layout_block(
            slot, content, size, weight=weight, min_size=min_size, max_lines=max_lines,
            leading=leading, name=name, align=align, valign=valign,
        )  # fmt: skip
        self.paste_layout(layout, ink, background, weight)
        return layout

    def paste_layout(
        self,
        layout: pictures_text.Layout,
        ink: RGB,
        background: RGB,
        weight: pictures_text.Weight,
    ) -> None:
        size, squeeze = layout.fitted.size, layout.fitted.squeeze
        for placed in layout.placed:
            text_line, left, top = placed.line, placed.left, placed.top
            pictures_text.note_drawn(
                self.image, layout, placed, ink, background,
                palette=[*self.palette.colours, *self._extra],
            )  # fmt: skip
            # Only the inked box is pasted, so a line's empty margins never cover a neighbour.
            if text_line.colour is None:
                inked = _ramp_sprite(
                    placed.shown, size, weight, squeeze, self.palette, ink, background
                )
                if inked is not None:
                    sprite, (dx, dy) = inked
                    self._put(sprite, (left + dx, top + dy))
            else:
                sprite = self._colour_sprite(placed.shown, size, weight, squeeze, ink, background)
                ink_box = _ink_box(text_line)
                if ink_box is not None:
                    self._put(sprite.crop(ink_box), (left + ink_box[0], top + ink_box[1]))

    def _colour_sprite(
        self,
        content: str,
        size: int,
        weight: pictures_text.Weight,
        squeeze: float,
        ink: RGB,
        background: RGB,
    ) -> Image.Image:
        data, box, colours = _colour_line(content, size, weight, squeeze, ink, background)
        offset = len(self.palette.colours) + len(self._extra)
        if offset + len(colours) > 256:
            # No room left this render: nearest colours of the fixed palette instead.
            composed = Image.new("RGB", box)
            composed.putdata([colours[i] for i in data])  # type: ignore[arg-type]
            return self.palette.index(composed)
        self._extra.extend(colours)
        table = bytes((offset + i) % 256 for i in range(256))
        return _p_image(box, data.translate(table))

    def png(self, compress_level: int = 1) -> bytes:
        self.image.putpalette(self.palette.flat + [c for rgb in self._extra for c in rgb])
        buffer = io.BytesIO()
        self.image.save(buffer, format="PNG", compress_level=compress_level)
        return buffer.getvalue()


def _ink_box(text_line: pictures_text.Line) -> tuple[int, int, int, int] | None:
    return pictures_text.inked_box(text_line)


_ramp_cache: dict[tuple[object, ...], tuple[Image.Image, tuple[int, int]] | None] = {}
_RAMP_CACHE_LIMIT = 2048


def _ramp_sprite(
    content: str,
    size: int,
    weight: pictures_text.Weight,
    squeeze: float,
    palette: IndexedPalette,
    ink: RGB,
    background: RGB,
) -> tuple[Image.Image, tuple[int, int]] | None:
    """The inked part of a line as palette indices on its ramp, and its offset."""
    key = (content, size, weight, squeeze, id(palette), ink, background)
    if key in _ramp_cache:
        return _ramp_cache[key]
    mask = pictures_text.line(content, size, weight, squeeze).mask
    box = mask.getbbox()
    inked = None
    if box is not None:
        cropped = mask.crop(box)
        sprite = _p_image(cropped.size, cropped.tobytes().translate(palette.ramp(ink, background)))
        inked = sprite, (box[0], box[1])
    if len(_ramp_cache) >= _RAMP_CACHE_LIMIT:
        _ramp_cache.clear()
    _ramp_cache[key] = inked
    return inked
