"""Slides (PPTX) printed to PDF by LibreOffice, so a deck's slides are pictured as a PDF's
pages are (`ingestion.page_pictures`: the same size, cap and privacy).

The `soffice` binary is optional (the image's `--build-arg WITH_SLIDES=1`): without it,
`SlideConverter.find` gives None and decks are ingested without pictures, as before. Each
conversion runs in a folder of its own with a profile of its own (two cannot share one),
without the bot's environment (no tokens), within a time limit, its whole process group
killed when over it. Hidden slides are printed too, so page N is slide N as the PPTX loader
numbers them; a PDF whose page count differs from the deck's is not used."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

TIMEOUT_S = 120.0
SLIDE_SUFFIXES = (".pptx",)
# Hidden slides printed too (LibreOffice leaves them out by default), JSON filter options.
_PDF_FILTER = 'pdf:impress_pdf_Export:{"ExportHiddenSlides":{"type":"boolean","value":"true"}}'


class SlideConversionError(Exception):
    """LibreOffice did not print the deck (it failed, timed out or wrote nothing)."""


def is_deck(file_name: str) -> bool:
    """Whether a file is a deck of slides LibreOffice can print."""
    return file_name.lower().endswith(SLIDE_SUFFIXES)


@dataclass(frozen=True, slots=True)
class SlideConverter:
    """Prints decks to PDF with LibreOffice's `binary`, `timeout_s` a deck at most."""

    binary: str
    timeout_s: float = TIMEOUT_S

    @classmethod
    def find(cls, binary: str = "soffice", timeout_s: float = TIMEOUT_S) -> SlideConverter | None:
        """The converter where `binary` (a name on PATH or a path) is installed; None (logged)
        where it is not, so decks get no pictures."""
        found = shutil.which(binary)
        if found is None:
            # Debug only: every command looks, and a deck without pictures still reads.
            log.debug("LibreOffice (soffice) not found: slides are not pictured", binary=binary)
            return None
        return cls(found, timeout_s)

    def print_pdf(self, deck: Path, work: Path) -> Path:
        """The deck at `deck` printed to a PDF in the empty folder `work` (blocking)."""
        # A fixed name: the file's own could start with '-' or hold anything.
        source = work / "deck.pptx"
        shutil.copyfile(deck, source)
        self._run(work, source)
        pdf = work / "out" / "deck.pdf"
        if not pdf.is_file():
            raise SlideConversionError("LibreOffice wrote no PDF")
        return pdf

    def _run(self, work: Path, source: Path) -> None:
        command = [
            self.binary,
            "--headless",
            "--norestore",
            f"-env:UserInstallation={(work / 'profile').as_uri()}",
            "--convert-to",
            _PDF_FILTER,
            "--outdir",
            str(work / "out"),
            str(source),
        ]
        path = os.environ.get("PATH", "/usr/bin:/bin")
        env = {"HOME": str(work), "PATH": path, "LANG": "C.UTF-8"}
        # A session of its own: soffice starts soffice.bin under it, killed with it on timeout.
        process = subprocess.Popen(
            command,
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            _, stderr = process.communicate(timeout=self.timeout_s)
        except subprocess.TimeoutExpired as error:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise SlideConversionError(f"LibreOffice took over {self.timeout_s:g} s") from error
        if process.returncode != 0:
            tail = stderr.decode(errors="replace").strip()[-200:]
            raise SlideConversionError(f"LibreOffice failed ({process.returncode}): {tail}")
