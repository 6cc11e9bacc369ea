"""The mind map picture: a PNG of reasonable size for about 30 nodes, drawn off the event
loop, with labels that matplotlib would otherwise read as TeX."""

from __future__ import annotations

import asyncio
import io
import threading

import pytest
from PIL import Image

import core.study.mindmap_image as image
from core.study.mindmap_image import mindmap_png, render_mindmap
from core.study.models import MindMap, MindNode

PNG = b"\x89PNG\r\n\x1a\n"


def thirty_nodes() -> MindMap:
    documents = tuple(
        MindNode(
            label=f"lecture-0{d}.pdf",
            children=tuple(
                MindNode(
                    label=f"Section {d}.{s}: a rather long title that has to wrap",
                    children=(MindNode(label=f"$x^{s}$ costs $5"),),
                )
                for s in range(5)
            ),
        )
        for d in range(3)
    )
    return MindMap(topic="derivatives", root=MindNode(label="derivatives", children=documents))


def test_a_map_of_thirty_nodes_is_a_readable_png() -> None:
    mindmap = thirty_nodes()
    assert mindmap.nodes() == 34
    png = mindmap_png(mindmap)
    assert png.startswith(PNG)
    assert 10_000 < len(png) < 2_000_000
    width, height = Image.open(io.BytesIO(png)).size
    assert 800 <= width <= 2000 and 800 <= height <= 2500


def test_a_map_of_one_node_still_draws() -> None:
    png = mindmap_png(MindMap(topic="t", root=MindNode(label="t")))
    assert png.startswith(PNG)


def test_a_huge_map_is_cut_to_the_node_limit() -> None:
    leaves = tuple(MindNode(label=f"leaf {n}") for n in range(200))
    layout = image._layout(MindNode(label="root", children=leaves), image.MAX_NODES)
    assert len(layout) == image.MAX_NODES


async def test_drawing_happens_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    draw = image.mindmap_png

    def recording(mindmap: MindMap, **kwargs: int) -> bytes:
        threads.append(threading.current_thread())
        return draw(mindmap, **kwargs)

    monkeypatch.setattr(image, "mindmap_png", recording)
    png = await render_mindmap(thirty_nodes())
    assert png.startswith(PNG)
    assert threads and threads[0] is not threading.current_thread()
    assert asyncio.get_running_loop().is_running()
