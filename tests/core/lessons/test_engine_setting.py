"""COURSEBOT_LESSON_ENGINE: Typst by default, pdflatex when asked for; asked for where
pdflatex is not installed, one warning at start-up and lessons render with Typst, without
a warning per deck."""

from __future__ import annotations

import pytest
import structlog

from bot import composition
from config import SettingsError, load_settings
from core.index.chunk_index import SearchHit
from core.lessons import Engine, Profile, SlideBounds, build_extractive_deck, render, render_deck
from core.lessons.render import resolve_engine


def test_typst_is_the_default() -> None:
    settings = load_settings(env_file=None)
    assert settings.lesson_engine == "typst"
    assert composition.lesson_engine(settings) is Engine.TYPST


def test_pdflatex_is_chosen_where_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_LESSON_ENGINE", "pdflatex")
    monkeypatch.setattr(composition, "pdflatex_available", lambda: True)
    with structlog.testing.capture_logs() as logs:
        assert composition.lesson_engine(load_settings(env_file=None)) is Engine.PDFLATEX
    assert logs == []


def test_pdflatex_missing_is_said_once_and_typst_renders(
    monkeypatch: pytest.MonkeyPatch, sample_hits: list[SearchHit]
) -> None:
    monkeypatch.setenv("COURSEBOT_LESSON_ENGINE", "pdflatex")
    monkeypatch.setattr(composition, "pdflatex_available", lambda: False)
    monkeypatch.setattr(render, "pdflatex_available", lambda: False)
    with structlog.testing.capture_logs() as logs:
        engine = composition.lesson_engine(load_settings(env_file=None))
        # What the service is given renders quietly, deck after deck.
        deck = build_extractive_deck(
            "derivatives", sample_hits, profile=Profile.STANDARD, bounds=SlideBounds.parse("3-4")
        )
        for _ in range(2):
            assert render_deck(deck, engine=engine).startswith(b"%PDF")
        assert resolve_engine(engine) is Engine.TYPST
    assert engine is Engine.TYPST
    warnings = [entry for entry in logs if entry["log_level"] == "warning"]
    assert len(warnings) == 1
    assert "COURSEBOT_LESSON_ENGINE=pdflatex" in warnings[0]["event"]
    assert "Typst" in warnings[0]["event"]


def test_an_unknown_engine_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_LESSON_ENGINE", "word")
    with pytest.raises(SettingsError) as error:
        load_settings(env_file=None)
    message = str(error.value)
    assert message.startswith("bad setting COURSEBOT_LESSON_ENGINE") and "\n" not in message
