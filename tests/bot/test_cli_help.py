"""`coursebot --help` loads no engine, adapter or core module (so it answers at once), and
every sub-command's own --help still works."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import REPO_ROOT

from bot.cli import SUBCOMMANDS, build_parser, main

HEAVY = (
    "bot.composition",
    "core.course_bot",
    "qdrant_client",
    "sqlalchemy",
    "telegram",
    "discord",
    "rich",
    "redis",
    "onnxruntime",
)


def test_top_level_help_imports_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from bot.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "chat with the bot in this terminal" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("command", ["telegram", "discord"])
def test_an_adapters_help_imports_neither_its_library_nor_the_core(command: str) -> None:
    # The package faces (`bot.telegram`, `bot.discord`) load their public names lazily.
    probe = (
        "import sys\n"
        "from bot.cli import main\n"
        "try:\n"
        f"    main([{command!r}, '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('telegram', 'discord', 'core')]\n"
        "print(sorted(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert f"COURSEBOT_{command.upper()}_TOKEN" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_top_level_help_lists_every_sub_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    listing = capsys.readouterr().out
    for name, help_line, _define in SUBCOMMANDS:
        assert name in listing
        assert help_line.split()[0] in listing


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        ("ingest", ".pdf"),
        ("eval", "dbsf"),
        ("telegram", "COURSEBOT_TELEGRAM_TOKEN"),
        ("discord", "COURSEBOT_DISCORD_TOKEN"),
        ("watch", "--every"),
        ("ask", "--group"),
    ],
)
def test_each_sub_command_still_has_its_own_help(
    command: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert needle in capsys.readouterr().out


def test_the_parser_without_argv_defines_every_sub_command() -> None:
    args = build_parser().parse_args(["watch", "x", "--course", "c", "--every", "15m"])
    assert args.every.total_seconds() == 900
