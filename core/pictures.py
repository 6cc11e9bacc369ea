"""Pictures drawn with matplotlib (mistake charts, mind maps, slide diagrams): a bare Figure on
the Agg canvas, so pyplot's global state and the configured backend are left alone, saved as
PNG bytes without the matplotlib version in them.

matplotlib is imported on first use: it takes about a second at every start, and a command
or a bot that draws nothing should not pay it."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def new_figure(**options: Any) -> Figure:
    """A Figure with its own Agg canvas; `options` are matplotlib's (figsize, dpi, layout)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(**options)
    FigureCanvasAgg(figure)
    return figure


def png_of(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
