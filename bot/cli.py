"""`coursebot`: the command line. Each sub-command parses its arguments, loads settings and
hands over to an adapter or a pipeline; errors become one clear line and an exit code."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import Any

from rich.console import Console

from bot.console.progress import ingest_progress_bar
from bot.console.render import render, render_ingest_report
from bot.console.repl import ask_once, console_context, run_chat, stdin_reader
from config import Settings, SettingsError, configure_logging, load_settings
from core.factory import open_core
from core.index import IndexMismatchError
from core.replies import ErrorReply
from ingestion.loaders import LOADERS
from ingestion.pipeline import IngestReport, discover
from ingestion.schedule import FolderWatch, build_scheduler, parse_interval

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


async def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    sources, missing = discover(args.paths)
    owner = args.owner if args.private else None
    ctx = console_context(args.course, owner or "console")
    console = Console(stderr=True)
    async with open_core(settings) as bot:
        with ingest_progress_bar(console) as show:
            report = await bot.ingest(ctx, sources, on_progress=show, private=args.private)
    report.results[:0] = missing
    print(render_ingest_report(report))
    return 1 if report.failed else 0


async def cmd_sources(args: argparse.Namespace, settings: Settings) -> int:
    async with open_core(settings) as bot:
        print(render(await bot.sources(console_context(args.course, args.user))))
    return 0


async def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    private = args.owner is not None
    ctx = console_context(args.course, args.owner or "console")
    async with open_core(settings) as bot:
        replies = await bot.handle_call(ctx, bot.forget(ctx, args.document, private=private))
    for reply in replies:
        print(render(reply))
    return 1 if any(isinstance(r, ErrorReply) for r in replies) else 0


async def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    watch = FolderWatch(args.course, tuple(args.paths), args.every)
    ctx = console_context(args.course, "scheduler")
    async with open_core(settings) as bot:

        async def run(job: FolderWatch) -> IngestReport:
            sources, missing = discover(list(job.paths))
            report = await bot.ingest(ctx, sources)
            report.results[:0] = missing
            print(render_ingest_report(report), flush=True)
            return report

        scheduler = build_scheduler([watch], run)
        scheduler.start()
        print(
            f"watching {len(args.paths)} path(s) for '{args.course}' every {args.every}; "
            "Ctrl-C stops",
            flush=True,
        )
        try:
            await asyncio.Event().wait()
        finally:
            scheduler.shutdown(wait=False)
    return 0


def _interval(text: str) -> timedelta:
    try:
        return parse_interval(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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

    ingest = sub.add_parser(
        "ingest",
        help="add course material (files or folders) to a course",
        description="Load, chunk, embed and index files into a course. Folders are read "
        f"recursively. Supported: {', '.join(sorted(LOADERS))}. Unchanged files are skipped, "
        "changed ones replace their old version; a file that fails is reported and leaves "
        "the index as it was. Exits 1 if any file failed.",
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    ingest.add_argument("--course", required=True, help="course id, e.g. sample")
    ingest.add_argument(
        "--private", action="store_true", help="index as private notes only --owner can see"
    )
    ingest.add_argument("--owner", help="user id owning private notes (with --private)")
    ingest.set_defaults(run=cmd_ingest)

    sources = sub.add_parser(
        "sources",
        help="list a course's documents",
        description="List the documents of a course that --user may see, with chunk counts.",
    )
    _course_and_user(sources)
    sources.set_defaults(run=cmd_sources)

    forget = sub.add_parser(
        "forget",
        help="remove a document from a course",
        description="Remove a document (by file name or document id) and all its chunks. "
        "With --owner, removes that user's private notes of that name instead.",
    )
    forget.add_argument("document", help="file name or document id (see `coursebot sources`)")
    forget.add_argument("--course", required=True, help="course id")
    forget.add_argument("--owner", help="remove this user's private document")
    forget.set_defaults(run=cmd_forget)

    watch = sub.add_parser(
        "watch",
        help="re-ingest folders on a schedule",
        description="Ingest PATHs into a course now and again every --every (unchanged files "
        "are skipped quickly). Runs until interrupted.",
    )
    watch.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    watch.add_argument("--course", required=True, help="course id")
    watch.add_argument(
        "--every", type=_interval, default=timedelta(minutes=30), help="interval (default 30m)"
    )
    watch.set_defaults(run=cmd_watch)
    return parser


def _course_and_user(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", required=True, help="course id, e.g. sample")
    parser.add_argument("--user", default="console", help="your user id (default: console)")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "private", False) and not args.owner:
        parser.error("--private needs --owner USER")
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
    except IndexMismatchError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
