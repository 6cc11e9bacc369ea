"""COURSEBOT_RERANKER_MODEL_PATH: optional, and when set it must exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from config import SettingsError, load_settings


def test_reranker_model_path_is_unset_by_default() -> None:
    assert load_settings(env_file=None).reranker_model_path is None


def test_reranker_model_path_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COURSEBOT_RERANKER_MODEL_PATH", str(tmp_path))

    assert load_settings(env_file=None).reranker_model_path == tmp_path


def test_a_missing_reranker_model_path_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COURSEBOT_RERANKER_MODEL_PATH", str(tmp_path / "nope"))

    with pytest.raises(SettingsError) as error:
        load_settings(env_file=None)

    message = str(error.value)
    assert message.startswith("bad setting COURSEBOT_RERANKER_MODEL_PATH: no reranker model at")
    assert "\n" not in message
