"""Copying a prepared data dir (an ingested course) for each test that changes it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def copy_data_dir(source: Path, target: Path) -> None:
    """Copy `source` to `target`, keeping sparse files sparse. Qdrant Edge's WAL and segment
    files are 32 MB each and nearly all holes: shutil.copytree writes them out in full (about
    200 MB a test, most of an adapter test's setup and teardown), GNU cp keeps the holes."""
    cp = shutil.which("cp")
    if cp is None:
        shutil.copytree(source, target)
        return
    subprocess.run([cp, "-r", "--sparse=always", str(source), str(target)], check=True)
