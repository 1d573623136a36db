"""Shapes every game picture shares, drawn anti-aliased (at 4x, then reduced)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from bot.pictures import palette as colours
from bot.pictures.palette import RGB

SUPERSAMPLE = 4

PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


def snap(image: Image.Image, exact: Iterable[RGB], tolerance: int = 3) -> Image.Image:
    """``image`` with every pixel within ``tolerance`` of one of the ``exact`` colours set
    to it: resampling leaves flat areas a shade off, and text drawn over them later is
    checked (and anti-aliased) against the exact colour."""
    pixels = np.asarray(image.convert("RGB")).astype(np.int16)
    for colour in exact:
        target = np.array(colour, dtype=np.int16)
        close = (np.abs(pixels - target) <= tolerance).all(axis=-1)
        pixels[close] = target
    return Image.fromarray(pixels.astype(np.uint8))


@lru_cache(maxsize=256)
def rounded_box(
    size: tuple[int, int], radius: int, fill: RGB, background: RGB, outline: RGB | None = None
) -> Image.Image:
    """A filled rounded rectangle (optionally outlined 2 px) on ``background``."""
    scale = SUPERSAMPLE
    big = Image.new("RGB", (size[0] * scale, size[1] * scale), background)
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, big.width - 1, big.height - 1),
        radius=radius * scale,
        fill=fill,
        outline=outline,
        width=2 * scale if outline else 0,
    )
    return snap(big.resize(size, Image.Resampling.LANCZOS), (fill, background))


def paste_box(
    image: Image.Image,
    box: tuple[float, float, float, float],
    radius: int,
    fill: RGB,
    background: RGB,
    outline: RGB | None = None,
) -> None:
    left, top, right, bottom = (round(v) for v in box)
    image.paste(
        rounded_box((right - left, bottom - top), radius, fill, background, outline), (left, top)
    )


@lru_cache(maxsize=64)
def die(face: int, size: int, background: RGB, fill: RGB = colours.DIE_FACE) -> Image.Image:
    """A d6 face with pips."""
    scale = SUPERSAMPLE
    big_size = size * scale
    big = Image.new("RGB", (big_size, big_size), background)
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle((0, 0, big_size - 1, big_size - 1), radius=big_size // 6, fill=fill)
    step = big_size / 4
    pip = big_size * 0.09
    for column, row in PIPS[face]:
        cx, cy = step * (column + 1), step * (row + 1)
        draw.ellipse((cx - pip, cy - pip, cx + pip, cy + pip), fill=colours.PIP)
    return snap(big.resize((size, size), Image.Resampling.LANCZOS), (background, fill, colours.PIP))


def bar(
    image: Image.Image,
    box: tuple[float, float, float, float],
    share: float,
    fill: RGB,
    track: RGB,
    background: RGB,
) -> None:
    """A rounded progress bar: ``share`` (0..1) of the track filled."""
    left, top, right, bottom = (round(v) for v in box)
    height = bottom - top
    paste_box(image, (left, top, right, bottom), height // 2, track, background)
    filled = round((right - left) * min(1.0, max(0.0, share)))
    if filled > 0:
        filled = max(filled, height)
        paste_box(image, (left, top, left + filled, bottom), height // 2, fill, track)


def encode(image: Image.Image) -> bytes:
    """A PNG of an RGB picture, reduced to 256 colours (flat art with anti-aliased edges:
    indistinguishable, and a fraction of the bytes)."""
    indexed = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
