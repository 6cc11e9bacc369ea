"""Start-up checks: a configured service that cannot be used stops the command with one line
naming the service, the setting and the cause (exit 2, no traceback), before anything else
starts: no chat prompt, no ingestion, no connection to Telegram or Discord."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO_ROOT, SAMPLE_COURSE

from bot.cli import main
from bot.startup import StartupError, check_data_dir

CLOSED_REDIS = "redis://127.0.0.1:1"
REDIS_REFUSED = (
    "coursebot: cannot reach Redis (COURSEBOT_REDIS_URL): connection refused at 127.0.0.1:1"
)
# The tests' PostgreSQL server, with a database name nobody creates.
MISSING_DATABASE = "postgresql://postgres@127.0.0.1:5432/no_such_db_xyz"


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.mark.parametrize(
    "argv",
    [
        ["chat", "--course", "sample"],
        ["ask", "--course", "sample", "When is the final exam?"],
        ["ingest", str(SAMPLE_COURSE), "--course", "sample"],
        ["sources", "--course", "sample"],
        ["telegram"],
        ["discord"],
    ],
    ids=["chat", "ask", "ingest", "sources", "telegram", "discord"],
)
def test_a_closed_redis_port_stops_every_command_with_one_line(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_REDIS_URL", CLOSED_REDIS)
    # Dummy tokens: the check must come before any contact with Telegram or Discord.
    monkeypatch.setenv("COURSEBOT_TELEGRAM_TOKEN", "123456:dummy-token")
    monkeypatch.setenv("COURSEBOT_DISCORD_TOKEN", "dummy-discord-token")
    monkeypatch.setattr("sys.stdin", None)  # the chat must not even read a line
    assert one_line_exit_2(argv, capsys) == REDIS_REFUSED


def test_a_missing_postgresql_database_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_DATABASE_URL", MISSING_DATABASE)
    line = one_line_exit_2(["sources", "--course", "c"], capsys)
    assert line == (
        'coursebot: cannot use PostgreSQL (COURSEBOT_DATABASE_URL): database "no_such_db_xyz" '
        "does not exist"
    )


def test_a_wrong_postgresql_port_is_refused_without_showing_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_DATABASE_URL", "postgresql://bot:hunter2@127.0.0.1:1/course")
    line = one_line_exit_2(["ask", "--course", "c", "hi"], capsys)
    assert line == (
        "coursebot: cannot reach PostgreSQL (COURSEBOT_DATABASE_URL): "
        "connection refused at 127.0.0.1:1"
    )
    assert "hunter2" not in line


def test_a_data_dir_under_a_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tests run as root, which chmod does not stop: a regular file in the way does.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("COURSEBOT_DATA_DIR", str(blocker / "data"))
    line = one_line_exit_2(["ingest", str(SAMPLE_COURSE), "--course", "sample"], capsys)
    assert line == (
        "coursebot: cannot write to the data directory (COURSEBOT_DATA_DIR): "
        f"{blocker} is a file, not a folder"
    )


def test_a_data_dir_that_is_itself_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("x")
    with pytest.raises(StartupError, match="is a file, not a folder"):
        check_data_dir(blocker)


def test_a_data_dir_that_cannot_be_created_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_DATA_DIR", "/proc/coursebot-test/data")
    line = one_line_exit_2(["chat", "--course", "c"], capsys)
    assert line.startswith(
        "coursebot: cannot write to the data directory (COURSEBOT_DATA_DIR): "
        "/proc/coursebot-test/data: "
    )


def test_an_unreachable_qdrant_server_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSEBOT_QDRANT_URL", "http://127.0.0.1:1")
    assert one_line_exit_2(["sources", "--course", "c"], capsys) == (
        "coursebot: cannot reach Qdrant (COURSEBOT_QDRANT_URL): connection refused at 127.0.0.1:1"
    )


def _coursebot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        cwd=REPO_ROOT,
    )


def _env(tmp_path: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEBOT_")}
    return env | {"COURSEBOT_DATA_DIR": str(tmp_path / "data")} | settings


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"COURSEBOT_REDIS_URL": CLOSED_REDIS}, REDIS_REFUSED),
        (
            {"COURSEBOT_DATABASE_URL": MISSING_DATABASE},
            'coursebot: cannot use PostgreSQL (COURSEBOT_DATABASE_URL): database "no_such_db_xyz" '
            "does not exist",
        ),
    ],
    ids=["redis", "postgresql"],
)
def test_the_real_command_prints_exactly_one_line(
    tmp_path: Path, settings: dict[str, str], expected: str
) -> None:
    result = _coursebot("chat", "--course", "sample", env=_env(tmp_path, **settings))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [expected]
    assert result.stdout == ""  # the chat never started
