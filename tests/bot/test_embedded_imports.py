"""The embedded default (no model configured) opens its core without importing llama-index
or matplotlib: each takes a second or more at every command's start, and only a configured
Ollama model (`bot.composition.chat_model`, `structured_model`) or a picture
(`core.pictures`) uses them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.paths import REPO_ROOT

OPEN_THE_CORE = """
import asyncio, sys
from bot.composition import open_assembly
from config import load_settings

async def main():
    async with open_assembly(load_settings(env_file=None)) as assembly:
        assert assembly.bot is not None

asyncio.run(main())
print(sorted({name.split(".")[0] for name in sys.modules} & {"llama_index", "matplotlib"}))
"""


def test_the_embedded_default_opens_its_core_without_llama_index_or_matplotlib(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEBOT_")}
    env["COURSEBOT_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-c", OPEN_THE_CORE],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
