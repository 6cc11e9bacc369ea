"""The embedded default (no model configured) starts without importing llama-index: the
library takes seconds to import on every command, and only a configured Ollama model uses it
(`bot.composition.chat_model`, `structured_model`)."""

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
print(sorted(name for name in sys.modules if name.startswith("llama_index")))
"""


def test_the_embedded_default_opens_its_core_without_llama_index(tmp_path: Path) -> None:
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
