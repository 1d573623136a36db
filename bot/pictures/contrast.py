"""WCAG 2 relative luminance and contrast ratio, computed from the colours drawn."""

from __future__ import annotations

from bot.pictures.palette import RGB

TEXT_MINIMUM = 4.5  # WCAG AA for text
CUE_MINIMUM = 3.0  # WCAG AA for graphical objects (rings, outlines, bars, marks)


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def luminance(colour: RGB) -> float:
    red, green, blue = (_linear(c) for c in colour)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def ratio(first: RGB, second: RGB) -> float:
    """The contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def readable_ink(fill: RGB, light: RGB, dark: RGB) -> RGB:
    """Whichever of two inks contrasts more with ``fill``."""
    return light if ratio(light, fill) >= ratio(dark, fill) else dark
