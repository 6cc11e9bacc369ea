"""structlog set-up: readable on a terminal, JSON elsewhere, secrets masked in every line.

The standard library's loggers (qdrant, httpx, discord, telegram) go through the same
processors, so no library can print a token or a connection string either."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import structlog

from config.redaction import redact_text
from config.settings import Settings


class _Redactor:
    """A structlog processor masking URL credentials and known secrets in every value."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = [s for s in secrets if s]

    def __call__(self, _logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
        return {key: self._clean(value) for key, value in event.items()}

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return redact_text(value, self._secrets)
        if isinstance(value, (int, float, bool)) or value is None:
            return value
        return redact_text(str(value), self._secrets)


def configure_logging(settings: Settings, stream: TextIO | None = None) -> None:
    """Route structlog and the standard library's logging through one masked renderer."""
    stream = stream or sys.stderr
    as_json = settings.log_format == "json" or (
        settings.log_format == "auto" and not stream.isatty()
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso"),
        structlog.processors.format_exc_info,
        _Redactor(settings.secret_values()),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # Request lines from HTTP clients name hosts and paths; keep them out of INFO. Alembic
    # announces its plugins at import and its dialect ("Context impl SQLiteImpl.") at every
    # start: migrations run on every command, so only its warnings are worth a line.
    for noisy in ("httpx", "httpcore", "urllib3", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
