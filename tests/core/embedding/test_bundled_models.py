"""The two bundled MiniLM files: the fast fused int8 one is the default and gives nearly the
legacy file's vectors; each is checked against its hash; COURSEBOT_EMBEDDER picks one."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from bot.composition import embedder as configured_embedder
from config import Settings, SettingsError, load_settings
from core.embedding.minilm_onnx import (
    BundledModel,
    MiniLMOnnxEmbedder,
    ModelFileError,
    fast_model,
    legacy_model,
)

SENTENCES = [
    "When is the final exam?",
    "The final exam takes place on 14 December in room B204.",
    "Late homework loses ten percent per day, up to three days.",
    "Grading: midterm 30%, final 40%, weekly problem sets 30%.",
    "Cats purr when they are content.",
]


@pytest.fixture(scope="module")
def legacy() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder(model=legacy_model())


def test_the_fast_model_is_the_default_and_names_its_file(embedder: MiniLMOnnxEmbedder) -> None:
    assert embedder.name == "all-MiniLM-L6-v2-int8-vnni"
    assert embedder.identity == f"{embedder.name} sha256:{fast_model().sha256[:16]}"


async def test_fast_vectors_are_close_to_the_legacy_ones(
    embedder: MiniLMOnnxEmbedder, legacy: MiniLMOnnxEmbedder
) -> None:
    fast, slow = await embedder.embed(SENTENCES), await legacy.embed(SENTENCES)
    cosines = (fast * slow).sum(axis=1)
    assert cosines.min() > 0.97
    # The same neighbours: each sentence's nearest other sentence is unchanged.
    assert ((fast @ fast.T) - 2 * np.eye(5)).argmax(axis=1).tolist() == (
        (slow @ slow.T) - 2 * np.eye(5)
    ).argmax(axis=1).tolist()
    assert embedder.identity != legacy.identity


def test_the_session_leaves_skip_layer_norm_unfused(embedder: MiniLMOnnxEmbedder) -> None:
    options = embedder._session.get_session_options()
    entry = options.get_session_config_entry("optimization.disable_specified_optimizers")
    assert entry == "SkipLayerNormFusion"


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    model = fast_model()
    copy = tmp_path / "model.onnx"
    shutil.copy(model.path, copy)
    with copy.open("r+b") as handle:
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 1]))
    with pytest.raises(ModelFileError, match="unexpected checksum"):
        MiniLMOnnxEmbedder(model=BundledModel(model.name, copy, model.sha256))
    with pytest.raises(ModelFileError, match="not found"):
        MiniLMOnnxEmbedder(model=BundledModel(model.name, tmp_path / "gone.onnx", model.sha256))


async def test_the_setting_selects_the_bundled_model(tmp_path: Path) -> None:
    chosen = await configured_embedder(
        Settings(_env_file=None, data_dir=tmp_path, embedder="legacy"),  # type: ignore[call-arg]
        None,
    )
    assert chosen.name == "all-MiniLM-L6-v2-int8"


def test_an_unknown_embedder_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEBOT_EMBEDDER", "slow")
    with pytest.raises(SettingsError, match="COURSEBOT_EMBEDDER") as raised:
        load_settings(env_file=None)
    assert "\n" not in str(raised.value)
