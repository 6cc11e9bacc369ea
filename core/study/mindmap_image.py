"""A mind map as a PNG: a left-to-right tree, the topic on the left, one column per level,
each leaf on a row of its own and each parent centred on its children. Drawn on a bare
matplotlib Figure with the Agg canvas (pyplot's global state is left alone), off the event
loop."""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import dataclass

from core.pictures import new_figure, png_of
from core.study.models import MindMap, MindNode

MAX_NODES = 60  # beyond this the picture would be unreadable: deeper levels are cut
WRAP_CHARS = 24
MAX_LINES = 3
_DPI = 100
_COLUMN_IN = 2.9
_ROW_IN = 0.62
_COLOURS = ("#2f4b7c", "#4c72b0", "#dd8452", "#55a868", "#8172b3", "#937860")
_TEXT_COLOURS = ("white", "white", "black", "black", "white", "white")


@dataclass(frozen=True, slots=True)
class _Placed:
    label: str
    depth: int
    row: float
    parent: int | None


def _layout(root: MindNode, max_nodes: int) -> list[_Placed]:
    """Every node's column (depth) and row: leaves take rows in order, parents sit midway
    between their first and last child."""
    placed: list[_Placed] = []
    next_row = 0.0

    def place(node: MindNode, depth: int, parent: int | None) -> float:
        nonlocal next_row
        index = len(placed)
        placed.append(_Placed(node.label, depth, 0.0, parent))
        rows = [
            place(child, depth + 1, index) for child in node.children if len(placed) < max_nodes
        ]
        if rows:
            row = (rows[0] + rows[-1]) / 2
        else:
            row = next_row
            next_row += 1
        placed[index] = _Placed(node.label, depth, row, parent)
        return row

    place(root, 0, None)
    return placed


def _wrapped(label: str) -> str:
    lines = textwrap.wrap(" ".join(label.split()), WRAP_CHARS) or [""]
    if len(lines) > MAX_LINES:
        lines = [
            *lines[: MAX_LINES - 1],
            textwrap.shorten(" ".join(lines[MAX_LINES - 1 :]), WRAP_CHARS, placeholder="…"),
        ]
    return "\n".join(lines)


def mindmap_png(mindmap: MindMap, *, max_nodes: int = MAX_NODES) -> bytes:
    """The picture of `mindmap` (blocking: call `render_mindmap` from async code)."""
    placed = _layout(mindmap.root, max_nodes)
    columns = max(p.depth for p in placed) + 1
    rows = max(p.row for p in placed) + 1
    figure = new_figure(
        figsize=(max(columns * _COLUMN_IN, 4.0), max(rows * _ROW_IN + 0.8, 2.5)),
        dpi=_DPI,
        layout="constrained",
    )
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.set_xlim(-0.55, columns - 0.45)
    axes.set_ylim(rows - 0.5, -0.5)  # first row at the top
    for node in placed:
        if node.parent is not None:
            parent = placed[node.parent]
            # A horizontal-vertical-horizontal elbow, drawn under the boxes.
            middle = parent.depth + 0.5
            axes.plot(
                [parent.depth, middle, middle, node.depth],
                [parent.row, parent.row, node.row, node.row],
                color="#9aa5b1",
                linewidth=1.2,
                zorder=1,
            )
    for node in placed:
        colour = node.depth % len(_COLOURS)
        axes.text(
            node.depth,
            node.row,
            _wrapped(node.label),
            ha="center",
            va="center",
            fontsize=11 if node.depth == 0 else 9,
            fontweight="bold" if node.depth <= 1 else "normal",
            color=_TEXT_COLOURS[colour],
            parse_math=False,  # "$" and "^" in a label are text, not TeX
            zorder=2,
            bbox={
                "boxstyle": "round,pad=0.35",
                "facecolor": _COLOURS[colour],
                "edgecolor": "none",
            },
        )
    return png_of(figure)


async def render_mindmap(mindmap: MindMap, *, max_nodes: int = MAX_NODES) -> bytes:
    """`mindmap_png` in a worker thread: drawing takes long enough to stall the loop."""
    return await asyncio.to_thread(mindmap_png, mindmap, max_nodes=max_nodes)
