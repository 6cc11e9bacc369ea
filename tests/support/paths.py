"""Where the repository's and the shared evaluation data live."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_COURSE = REPO_ROOT / "examples" / "sample-course"
# A worktree sits one folder deeper than the main checkout: it names the datasets with
# CBTEST_SHARED_DATASETS.
SHARED_DATASETS = Path(
    os.environ.get("CBTEST_SHARED_DATASETS", REPO_ROOT.parent / "shared" / "datasets")
)
# CBTEST_, not COURSEBOT_: the settings refuse COURSEBOT_ variables they do not know.
REDIS_URL = os.environ.get("CBTEST_REDIS_URL", "redis://127.0.0.1:6379/0")
