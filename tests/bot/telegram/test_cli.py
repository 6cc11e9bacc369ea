"""`coursebot telegram`: its options, its help and its refusals, without starting a bot."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from bot.cli import build_parser
from bot.telegram.cli import run_telegram
from bot.telegram.serving import Polling, Webhook, webhook_secret
from config import Settings


def parser() -> argparse.ArgumentParser:
    return build_parser(["telegram"])


def test_help_explains_the_settings_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["telegram", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for needed in (
        "COURSEBOT_TELEGRAM_TOKEN",
        "COURSEBOT_TELEGRAM_WEBHOOK_SECRET",
        "COURSEBOT_COURSE_ROLES",
        '\'{"calc101": {"instructor": ["telegram:42"], "moderator": ["telegram:7"]}}\'',
        "COURSEBOT_REDIS_URL",
        "--webhook URL",
        "--listen",
        "--port",
    ):
        assert needed in text


def test_polling_is_the_default_and_webhook_options_parse() -> None:
    args = parser().parse_args(["telegram"])
    assert args.webhook is None and args.run is run_telegram
    args = parser().parse_args(
        ["telegram", "--webhook", "https://bot.example.edu/tg", "--port", "8080"]
    )
    assert (args.webhook, args.listen, args.port) == ("https://bot.example.edu/tg", "0.0.0.0", 8080)


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (["--webhook", "http://bot.example.edu/tg"], "is not an https:// URL"),
        (["--webhook", "bot.example.edu"], "is not an https:// URL"),
        (["--port", "70000"], "is not a port number"),
    ],
)
def test_bad_options_are_refused(
    options: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["telegram", *options])
    assert exit_.value.code == 2
    assert complaint in capsys.readouterr().err


async def test_a_missing_token_is_one_clear_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    code = await run_telegram(parser().parse_args(["telegram"]), settings)
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("coursebot: COURSEBOT_TELEGRAM_TOKEN is not set")
    assert not (tmp_path / "data").exists()  # nothing was opened


async def test_a_malformed_webhook_secret_is_refused_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        telegram_token="123:abc",
        telegram_webhook_secret="not allowed!",
    )
    args = parser().parse_args(["telegram", "--webhook", "https://bot.example.edu/tg"])
    assert await run_telegram(args, settings) == 2
    assert "COURSEBOT_TELEGRAM_WEBHOOK_SECRET may only hold" in capsys.readouterr().err


def test_the_webhook_secret_comes_from_settings_or_is_generated(tmp_path: Path) -> None:
    configured = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path, telegram_webhook_secret="shared_secret-1"
    )
    assert webhook_secret(configured) == "shared_secret-1"
    unset = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    first, second = webhook_secret(unset), webhook_secret(unset)
    assert first != second
    assert re.fullmatch(r"[A-Za-z0-9_-]{32,256}", first)


def test_the_webhook_listens_on_the_urls_path() -> None:
    assert Webhook("https://bot.example.edu/telegram/hook", "s").path == "/telegram/hook"
    assert Webhook("https://bot.example.edu", "s").path == "/"
    assert Polling().timeout_s > 0
