"""Figures for the visual profile: the picture of the cited page kept at ingestion
(`core.page_pictures`), or, when there is none, a diagram of the slide drawn with matplotlib.
Each comes with the alt text the PDF carries for it."""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass
from typing import Protocol

import structlog

from core.lessons.models import Citation, Slide
from core.pictures import new_figure, png_of

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class SlideFigure:
    png: bytes
    alt: str
    caption: str


class PageSource(Protocol):
    """The pictures of the course's pages a request may see (`core.page_pictures`)."""

    def page_png(self, file_name: str, page: int) -> bytes | None: ...


def figure_for(slide: Slide, pages: PageSource | None) -> SlideFigure:
    """The slide's figure: the first cited PDF page that renders, else a diagram."""
    if pages is not None:
        for citation in slide.citations:
            if citation.page is None:
                continue
            png = pages.page_png(citation.file, citation.page)
            if png is not None:
                return SlideFigure(png, _page_alt(citation, slide), citation.label())
    return concept_diagram(slide)


def _page_alt(citation: Citation, slide: Slide) -> str:
    where = f"page {citation.page} of {citation.file}"
    section = f", section {citation.section}" if citation.section else ""
    return f"Image of {where}{section}, the course material for: {slide.title}."


def concept_diagram(slide: Slide) -> SlideFigure:
    """A hub-and-spoke diagram: the slide's title in the middle, a short label for each of
    its points around it, numbered in reading order."""
    labels = [_short_label(item) for item in slide.content[:6]] or [_short_label(slide.title)]
    fig = new_figure(figsize=(4.2, 3.6), dpi=150)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.35, 1.35)
    ax.axis("off")
    hub = textwrap.fill(slide.title, 18)
    hub_box = {"boxstyle": "round,pad=0.5", "fc": "#d9e8fb", "ec": "#1f4e79", "lw": 1.2}
    ax.text(0, 0, hub, ha="center", va="center", fontsize=10, weight="bold", color="#102a43",
            bbox=hub_box)  # fmt: skip
    count = len(labels)
    for n, label in enumerate(labels):
        angle = math.pi / 2 - 2 * math.pi * n / count
        x, y = 1.05 * math.cos(angle), 0.95 * math.sin(angle)
        ax.annotate("", xy=(0.62 * x, 0.62 * y), xytext=(0.28 * x, 0.28 * y),
                    arrowprops={"arrowstyle": "-|>", "color": "#486581", "lw": 1.2})  # fmt: skip
        ax.text(x, y, f"{n + 1}. {textwrap.fill(label, 16)}", ha="center", va="center",
                fontsize=8, color="#102a43",
                bbox={"boxstyle": "round,pad=0.35", "fc": "#fff4d6", "ec": "#b7791f"})  # fmt: skip
    listed = "; ".join(f"{n + 1}. {label}" for n, label in enumerate(labels))
    alt = f"Diagram of {slide.title}, linked to its points: {listed}."
    return SlideFigure(png_of(fig), alt, "Diagram of the slide's points")


def _short_label(text: str, words: int = 5) -> str:
    plain = re.sub(r"\$[^$]*\$", "(formula)", text)
    parts = plain.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")
