"""`coursebot`: the command line. Each sub-command parses its arguments, loads settings and
hands over to an adapter or a pipeline; errors become one clear line and an exit code."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from bot.console.repl import ask_once, run_chat, stdin_reader
from config import Settings, SettingsError, configure_logging, load_settings
from core.factory import open_core

DESCRIPTION = """coursebot: a study assistant answering from your course material, with citations.

With nothing configured it runs on this machine alone (Qdrant local mode and SQLite under
COURSEBOT_DATA_DIR, in-process sessions, a bundled embedding model, quoted answers).
Set COURSEBOT_* variables or a .env file to use Qdrant, Redis, PostgreSQL and Ollama servers;
`coursebot config` shows the effective settings."""

Command = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]


async def cmd_config(_args: argparse.Namespace, settings: Settings) -> int:
    view = settings.masked()
    width = max(len(name) for name in view)
    for name, value in view.items():
        print(f"{name.ljust(width)}  {value}")
    return 0


async def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    async with open_core(settings) as bot:
        await run_chat(bot, args.course, args.user, stdin_reader, sys.stdout)
    return 0


async def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    async with open_core(settings) as bot:
        ok = await ask_once(bot, args.course, args.user, " ".join(args.question), sys.stdout)
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coursebot",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    config = sub.add_parser(
        "config",
        help="print the effective settings, secrets masked",
        description="Print every COURSEBOT_* setting as it is in effect, with tokens, API keys "
        "and credentials inside URLs masked. Settings come from the environment and .env.",
    )
    config.set_defaults(run=cmd_config)

    chat = sub.add_parser(
        "chat",
        help="chat with the bot in this terminal",
        description="A console chat speaking the same commands as Telegram and Discord. "
        "Plain lines are questions; /help lists commands; /exit or Ctrl-D leaves.",
    )
    _course_and_user(chat)
    chat.set_defaults(run=cmd_chat)

    ask = sub.add_parser(
        "ask",
        help="answer one question and exit",
        description="Answer one question from the course material and exit (for scripts). "
        "Exits 1 when the question could not be answered (for instance an empty course).",
    )
    _course_and_user(ask)
    ask.add_argument("question", nargs="+", help="the question, quoted or as separate words")
    ask.set_defaults(run=cmd_ask)
    return parser


def _course_and_user(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", required=True, help="course id, e.g. sample")
    parser.add_argument("--user", default="console", help="your user id (default: console)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2
    configure_logging(settings)
    run: Command = args.run
    try:
        return asyncio.run(run(args, settings))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
