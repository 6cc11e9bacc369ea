"""Figures for the visual profile: the picture of the cited page kept at ingestion
(`core.page_pictures`), or, when there is none (a Markdown source, pictures not kept), a map
of the lesson drawn with matplotlib: its slides in order as a path, this one highlighted, so
the slide shows where it stands. Labels are whole titles, wrapped, never cut; the slide's
own points are not redrawn (a hub of their first words said less than the slide itself).
Each figure comes with the alt text the PDF carries for it."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
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


def figure_for(
    slide: Slide, pages: PageSource | None, titles: Sequence[str] = (), position: int = 0
) -> SlideFigure:
    """The slide's figure: the first cited PDF page that renders, else the lesson map of
    `titles` (the deck's slide titles) with slide `position` (0-based) highlighted."""
    if pages is not None:
        for citation in slide.citations:
            if citation.page is None:
                continue
            png = pages.page_png(citation.file, citation.page)
            if png is not None:
                return SlideFigure(png, _page_alt(citation, slide), citation.label())
    return lesson_map(list(titles) or [slide.title], position if titles else 0)


def _page_alt(citation: Citation, slide: Slide) -> str:
    where = f"page {citation.page} of {citation.file}"
    section = f", section {citation.section}" if citation.section else ""
    return f"Image of {where}{section}, the course material for: {slide.title}."


MAP_STOPS = 5  # titles shown around the current one; the rest are counted


def lesson_map(titles: list[str], position: int) -> SlideFigure:
    """The lesson as a path of numbered stops, slide `position` highlighted; a long deck
    shows the stops around it and says how many come before and after."""
    first = max(0, min(position - MAP_STOPS // 2, len(titles) - MAP_STOPS))
    shown = list(enumerate(titles))[first : first + MAP_STOPS]
    fig = new_figure(figsize=(3.4, 4.0), dpi=150)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    top, bottom = 0.9, 0.1
    step = (top - bottom) / max(len(shown) - 1, 1)
    ys = [top - n * step for n in range(len(shown))]
    ax.plot([0.12] * len(ys), ys, color="#9fb3c8", lw=2, zorder=1)
    for (index, title), y in zip(shown, ys, strict=True):
        here = index == position
        fill = "#1f4e79" if here else "#ffffff"
        ax.scatter([0.12], [y], s=420 if here else 220, zorder=2,
                   color=fill, edgecolors="#1f4e79", linewidths=1.5)  # fmt: skip
        ax.text(0.12, y, str(index + 1), ha="center", va="center", zorder=3, fontsize=10,
                color="#ffffff" if here else "#1f4e79", weight="bold")  # fmt: skip
        label = textwrap.fill(_plain(title), 20)
        box = {"boxstyle": "round,pad=0.35", "fc": "#d9e8fb", "ec": "#1f4e79"} if here else None
        ax.text(0.24, y, label, ha="left", va="center", fontsize=12 if here else 11,
                color="#102a43", weight="bold" if here else "normal", bbox=box)  # fmt: skip
    if first > 0:
        ax.text(0.12, 0.985, f"{first} before", ha="center", va="top", fontsize=10, color="#486581")
    after = len(titles) - first - len(shown)
    if after > 0:
        ax.text(
            0.12, 0.015, f"{after} after", ha="center", va="bottom", fontsize=10, color="#486581"
        )
    alt = (
        f"Map of the lesson, slide {position + 1} of {len(titles)}: "
        + "; ".join(f"{n + 1}. {_plain(t)}" for n, t in enumerate(titles))
        + f". This slide is {position + 1}, {_plain(titles[position])}."
    )
    return SlideFigure(
        png_of(fig), alt, f"Where this slide is in the lesson ({position + 1} of {len(titles)})"
    )


def _plain(text: str) -> str:
    return " ".join(re.sub(r"\$([^$]*)\$", r"\1", text).split())
