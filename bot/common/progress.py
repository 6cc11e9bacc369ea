"""A job's progress (an ingestion, a lesson or set being made) as an edited chat message,
throttled: platforms rate-limit edits, and a student needs a sign of life every second or
two, not every chunk. Every adapter shows progress through this one class."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import structlog

from bot.common.wording import progress_text
from core.progress import JobProgress

log = structlog.get_logger(__name__)


class ProgressMessage:
    """A `ShowProgress` that edits one message through `edit(text)`, at most once per
    `interval_s` (the final update, the last file's or "ready", is always shown). A failed
    edit is logged and does not stop the job."""

    def __init__(
        self,
        edit: Callable[[str], Awaitable[object]],
        interval_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._edit = edit
        self._interval_s = interval_s
        self._clock = clock
        self._last_at: float | None = None
        self._last_text = ""

    async def __call__(self, progress: JobProgress) -> None:
        now = self._clock()
        final = progress.finished
        due = self._last_at is None or now - self._last_at >= self._interval_s
        text = progress_text(progress)
        if not (due or final) or text == self._last_text:
            return
        self._last_at, self._last_text = now, text
        try:
            await self._edit(text)
        except Exception:
            log.warning("progress message not updated", exc_info=True)
