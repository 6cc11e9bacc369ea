"""A PNG bar chart of mistakes per skill, for moderators. Drawn on a bare matplotlib Figure
with the Agg canvas: pyplot, its global state and the configured backend are left alone."""

from __future__ import annotations

from core.mistakes.log import SkillCount
from core.pictures import new_figure, png_of

EMPTY_TEXT = "No mistakes logged yet"
MAX_BARS = 20
MAX_LABEL_CHARS = 40
_BAR_COLOUR = "#4c72b0"
_WIDTH_IN = 8.0
_DPI = 100


def mistakes_by_skill_png(counts: list[SkillCount], title: str) -> bytes:
    """Horizontal bars, most frequent skill on top, each labelled with its count; at most
    MAX_BARS skills (the title says when more were left out). No data: a placeholder image."""
    from matplotlib.ticker import MaxNLocator  # here, not at import: see core.pictures

    if not counts:
        return _empty_png(title)
    ranked = sorted(counts, key=lambda count: (-count.count, count.skill))
    shown = ranked[:MAX_BARS]
    if len(ranked) > len(shown):
        title = f"{title} (top {len(shown)} of {len(ranked)} skills)"

    figure = new_figure(
        figsize=(_WIDTH_IN, 1.4 + 0.42 * len(shown)), dpi=_DPI, layout="constrained"
    )
    axes = figure.add_subplot()
    positions = range(len(shown))
    bars = axes.barh(positions, [count.count for count in shown], color=_BAR_COLOUR, height=0.6)
    # parse_math=False: a "$" in a skill name is text, not the start of a formula.
    axes.set_yticks(
        list(positions), [_label(count.skill) for count in shown], parse_math=False, fontsize=10
    )
    axes.invert_yaxis()
    axes.bar_label(bars, padding=3, fontsize=10)
    axes.set_xlim(0, max(count.count for count in shown) * 1.15 + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("Mistakes")
    axes.spines[["top", "right"]].set_visible(False)
    axes.set_title(title, parse_math=False, fontsize=12, loc="left")
    return png_of(figure)


def _empty_png(title: str) -> bytes:
    figure = new_figure(figsize=(_WIDTH_IN, 3.0), dpi=_DPI, layout="constrained")
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.set_title(title, parse_math=False, fontsize=12, loc="left")
    axes.text(
        0.5,
        0.5,
        EMPTY_TEXT,
        transform=axes.transAxes,
        ha="center",
        va="center",
        fontsize=14,
        color="#666666",
    )
    return png_of(figure)


def _label(skill: str) -> str:
    skill = " ".join(skill.split())
    if len(skill) <= MAX_LABEL_CHARS:
        return skill
    return skill[: MAX_LABEL_CHARS - 1].rstrip() + "…"
