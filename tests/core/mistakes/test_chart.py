"""The mistakes-by-skill chart is a PNG for any data, including none at all."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from PIL import Image

from core.mistakes import SkillCount, mistakes_by_skill_png
from core.mistakes.chart import MAX_BARS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NOW = datetime(2025, 3, 1, tzinfo=UTC)


def skill(name: str, count: int) -> SkillCount:
    return SkillCount(skill=name, count=count, students=1, last_at=NOW)


def open_png(content: bytes) -> Image.Image:
    assert content.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(content))
    image.load()
    return image


def test_chart_of_counts_is_a_png() -> None:
    counts = [skill("chain rule", 12), skill("limits", 3), skill("integration by parts", 7)]

    image = open_png(mistakes_by_skill_png(counts, "math101: mistakes by skill"))

    assert image.format == "PNG"
    assert image.width > 300 and image.height > 100


def test_empty_chart_is_a_png_placeholder() -> None:
    empty = mistakes_by_skill_png([], "math101: mistakes by skill")
    with_data = mistakes_by_skill_png([skill("limits", 1)], "math101: mistakes by skill")

    assert open_png(empty).width > 300
    assert empty != with_data


def test_chart_survives_many_long_and_dollar_skill_names() -> None:
    counts = [skill(f"cost in $ of skill {i} " + "very long name " * 5, i) for i in range(30)]

    image = open_png(mistakes_by_skill_png(counts, "$5 budget: 100% {braces}"))

    # Only MAX_BARS bars are drawn; the image grows with them but stays bounded.
    assert image.height < 100 * (2 + MAX_BARS)
