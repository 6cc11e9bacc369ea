"""The fonts every engine uses: the DejaVu family matplotlib ships inside its wheel (so
every machine has the same files, no system font is read) plus Typst's own embedded fonts
(New Computer Modern Math for formulas). DejaVu Sans is the sans-serif body face the
dyslexia profile needs; it has no italic, only an oblique, and we use neither."""

from __future__ import annotations

import functools
from pathlib import Path

import typst


@functools.cache
def font_dir() -> Path:
    import matplotlib  # about a second to import: only where a deck is rendered

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


@functools.cache
def typst_fonts() -> typst.Fonts:
    """Loaded once: the font book is read-only after this."""
    return typst.Fonts(
        include_system_fonts=False, include_embedded_fonts=True, font_paths=[str(font_dir())]
    )
