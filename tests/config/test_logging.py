from __future__ import annotations

import io
import json
import logging

import structlog

from config import configure_logging, load_settings


def test_log_lines_never_carry_secrets_or_connection_strings() -> None:
    settings = load_settings(
        env_file=None,
        log_format="json",
        telegram_token="4242:tg-token-value",
        discord_token="dc-token-value",
        qdrant_api_key="qd-key-value",
    )
    stream = io.StringIO()
    configure_logging(settings, stream=stream)

    structlog.get_logger("test").info(
        "connecting",
        url="postgresql://coursebot:db-password@db:5432/x",
        token="4242:tg-token-value",
    )
    logging.getLogger("some.library").warning(
        "retrying redis://:redis-password@cache:6379/0 with dc-token-value and qd-key-value"
    )
    try:
        raise RuntimeError("failed at https://u:http-password@host/path")
    except RuntimeError:
        structlog.get_logger("test").exception("boom")

    output = stream.getvalue()
    lines = [json.loads(line) for line in output.splitlines()]
    assert len(lines) == 3
    for secret in (
        "tg-token-value",
        "dc-token-value",
        "qd-key-value",
        "db-password",
        "redis-password",
        "http-password",
    ):
        assert secret not in output
    assert lines[0]["url"] == "postgresql://***@db:5432/x"


def test_console_format_is_human_readable() -> None:
    settings = load_settings(env_file=None, log_format="console")
    stream = io.StringIO()
    configure_logging(settings, stream=stream)
    structlog.get_logger("test").warning("sessions are in-process")
    line = stream.getvalue()
    assert "sessions are in-process" in line
    assert not line.lstrip().startswith("{")


def test_log_lines_never_carry_url_encoded_secrets_or_credential_parameters() -> None:
    settings = load_settings(env_file=None, log_format="json", telegram_token="123:SECRETxyz")
    stream = io.StringIO()
    configure_logging(settings, stream=stream)

    logging.getLogger("httpx").warning(
        "HTTP Request: POST https://api.telegram.org/bot123%3ASECRETxyz/getMe failed"
    )
    logging.getLogger("telegram.ext").error(
        "retrying https://api.telegram.org/bot123%3aSECRETxyz/getUpdates"
    )
    structlog.get_logger("test").info(
        "calling", url="https://api.example.com/v1/search?q=x&api_key=abc-key-value&page=2"
    )
    structlog.get_logger("test").info("calling https://h/x?Token=tok-value&API_KEY=k2-value")

    output = stream.getvalue()
    lines = [json.loads(line) for line in output.splitlines()]
    assert len(lines) == 4
    for secret in ("SECRETxyz", "abc-key-value", "tok-value", "k2-value"):
        assert secret not in output
    assert "https://api.telegram.org/bot***/getMe" in lines[0]["event"]
    assert lines[2]["url"] == "https://api.example.com/v1/search?q=x&api_key=***&page=2"
