"""`coursebot`: the command line. Each sub-command parses its arguments, loads settings and
hands over to an adapter or a pipeline; errors become one clear line and an exit code.

`coursebot --help` must answer at once, so this module imports no engine, adapter or core
module at its top: each sub-command imports what it needs when it runs, and only the chosen
sub-command's arguments are defined (a definition may import, for its choices or its help).
A new sub-command is one `define_*` function and one row in `SUBCOMMANDS`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.common.arguments import positive_int
from bot.startup import StartupError, open_checked_core

if TYPE_CHECKING:
    from bot.console.repl import ConsoleSpeaker
    from config import Settings

DESCRIPTION = """coursebot: a study assistant answering from your course material, with citations.

With nothing configured it runs on this machine alone (Qdrant in-process and SQLite under
COURSEBOT_DATA_DIR, in-process sessions, a bundled embedding model, quoted answers).
Set COURSEBOT_* variables or a .env file to use Qdrant, Redis, PostgreSQL and Ollama servers;
`coursebot config` shows the effective settings."""

Command = Callable[[argparse.Namespace, "Settings"], Coroutine[Any, Any, int]]


async def cmd_config(_args: argparse.Namespace, settings: Settings) -> int:
    view = settings.masked()
    width = max(len(name) for name in view)
    for name, value in view.items():
        print(f"{name.ljust(width)}  {value}")
    return 0


async def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    from bot.console.repl import run_chat, stdin_reader

    async with open_checked_core(settings) as core:
        await run_chat(core, _speaker(args), stdin_reader, sys.stdout)
    return 0


async def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from bot.console.repl import ask_once

    async with open_checked_core(settings) as core:
        ok = await ask_once(core, _speaker(args), " ".join(args.question), sys.stdout)
    return 0 if ok else 1


async def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from rich.console import Console

    from bot.console.progress import ingest_progress_bar
    from bot.console.render import render_ingest_report
    from ingestion.pipeline import discover

    sources, missing = discover(args.paths)
    owner = args.owner if args.private else None
    console = Console(stderr=True)
    async with open_checked_core(settings) as core:
        with ingest_progress_bar(console) as show:
            report = await core.ingest_files(args.course, sources, owner=owner, on_progress=show)
    report.results[:0] = missing
    print(render_ingest_report(report))
    return 1 if report.failed else 0


async def cmd_sources(args: argparse.Namespace, settings: Settings) -> int:
    from bot.console.repl import write
    from core.commands import ParsedCommand

    async with open_checked_core(settings) as core:
        response = await core.handle(_speaker(args).request(command=ParsedCommand("sources")))
    write(response, sys.stdout)
    return _exit_code(response.replies)


async def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    from bot.console.repl import ConsoleSpeaker, write
    from core.commands import ParsedCommand

    speaker = ConsoleSpeaker(args.course, args.owner or "console")
    argument = f"--private {args.document}" if args.owner else args.document
    async with open_checked_core(settings) as core:
        response = await core.handle(speaker.request(command=ParsedCommand("forget", argument)))
    write(response, sys.stdout)
    return _exit_code(response.replies)


async def cmd_course(args: argparse.Namespace, settings: Settings) -> int:
    from bot.console.render import render
    from core.errors import UserFacingError
    from core.replies import ErrorReply, Reply

    async with open_checked_core(settings) as core:
        try:
            if args.action == "create":
                reply: Reply = await core.create_course(args.course, args.instructor)
            else:
                reply = await core.transfer_course(args.course, args.instructor)
        except UserFacingError as error:
            reply = ErrorReply(str(error))
    print(render(reply))
    return _exit_code([reply])


def _speaker(args: argparse.Namespace) -> ConsoleSpeaker:
    from bot.console.repl import ConsoleSpeaker

    return ConsoleSpeaker(args.course, args.user, group=getattr(args, "group", False))


def _exit_code(replies: object) -> int:
    from core.replies import ErrorReply

    return 1 if any(isinstance(r, ErrorReply) for r in replies) else 0  # type: ignore[attr-defined]


async def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    """`watch` is a terminal's way of making ingestion schedules: one per path (kept if it
    exists), then this process runs the course's ingestion schedules until stopped."""
    from bot.runtime import running_core
    from bot.scheduling import running_schedules
    from core.schedules.spec import describe_interval

    every = describe_interval(args.every)
    async with running_core("watch", settings) as (assembly, shell):
        core = assembly.bot
        for path in args.paths:
            line = f"ingest {path.expanduser().resolve()} every {every}"
            response = await core.handle(_operator(args.course, "schedule", line))
            _print_replies(response.replies)
            if _exit_code(response.replies):
                return 1
        async with running_schedules(settings, core, metrics=assembly.metrics):
            print(
                f"watching {len(args.paths)} path(s) for '{args.course}' every {every} "
                "(coursebot schedule list shows the runs); Ctrl-C stops",
                flush=True,
            )
            await shell.wait()
    return 0


async def cmd_schedule(args: argparse.Namespace, settings: Settings) -> int:
    """`schedule add|list|remove`: the chat's /schedule, /schedules and /unschedule."""
    if args.action == "add":
        command, argument = "schedule", " ".join(args.what)
    elif args.action == "list":
        command, argument = "schedules", ""
    else:
        command, argument = "unschedule", str(args.id)
    async with open_checked_core(settings) as core:
        response = await core.handle(_operator(args.course, command, argument))
    _print_replies(response.replies)
    return _exit_code(response.replies)


def _operator(course: str, command: str, argument: str) -> Any:
    from bot.console.repl import ConsoleSpeaker
    from core.commands import ParsedCommand

    return ConsoleSpeaker(course, "console").request(command=ParsedCommand(command, argument))


def _print_replies(replies: Sequence[Any]) -> None:
    from bot.console.render import render

    for reply in replies:
        print(render(reply), flush=True)


WORKER_DESCRIPTION = """Run background jobs from the Redis queue: ingestion of uploads and
watched folders, lessons, and generated exercises, quizzes, flashcards and mind maps. The bots
put them there when COURSEBOT_JOBS=redis (with COURSEBOT_REDIS_URL); run as many workers as
you like, on any machine that shares the bots' settings, index, database and data dir (the
uploads wait in its spool/ folder). Without COURSEBOT_JOBS=redis each bot runs its own jobs
and no worker is needed.

A job a worker was running when it was stopped (SIGTERM) goes back to the queue at once; one
held by a worker that died (SIGKILL, a lost machine) is taken again once
COURSEBOT_JOB_TIMEOUT_S plus 10 s have passed since it started, at most COURSEBOT_JOB_TRIES
times. Runs until interrupted; /healthz, /readyz and /metrics on COURSEBOT_HTTP_PORT."""


async def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    from bot.runtime import running_core, stop_task
    from core.jobs.arq_queue import open_pool, worker

    if settings.redis_url is None:
        print(
            "coursebot: the worker takes jobs from Redis: set COURSEBOT_REDIS_URL (and "
            "COURSEBOT_JOBS=redis for the bots); without them each bot runs its own jobs",
            file=sys.stderr,
        )
        return 2
    async with running_core("worker", settings) as (assembly, shell):
        pool = await open_pool(str(settings.redis_url), settings.redis_prefix)
        runner = worker(
            pool, settings.redis_prefix, assembly.bot.job_handlers(), assembly.metrics,
            job_timeout_s=settings.job_timeout_s, tries=settings.job_tries,
            concurrency=args.jobs or settings.worker_jobs,
        )  # fmt: skip
        main = asyncio.create_task(runner.main())
        runner.main_task = main  # `close` cancels it
        print(f"worker running ({runner.max_jobs} jobs at once); Ctrl-C stops", flush=True)
        stop = asyncio.create_task(shell.wait())
        try:
            await asyncio.wait({main, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await stop_task(stop)
            await runner.close()  # running jobs go back to the queue
            await stop_task(main)
        if main.done() and not main.cancelled() and main.exception() is not None:
            raise main.exception()  # type: ignore[misc]
    return 0


def define_worker(work: argparse.ArgumentParser) -> None:
    work.description = WORKER_DESCRIPTION
    work.formatter_class = argparse.RawDescriptionHelpFormatter
    work.add_argument(
        "--jobs",
        type=positive_int,
        metavar="N",
        help="jobs this worker runs at once (default COURSEBOT_WORKER_JOBS, 2)",
    )
    work.set_defaults(run=cmd_worker)


EVAL_DESCRIPTION = """Measure retrieval (and, with --answers, answers) on a dataset laid out as
DATASET_DIR/courses/<course_id>/<files> and DATASET_DIR/questions.jsonl.

Every courses/<course_id>/ folder is ingested as its own course into a temporary index (or
into --index DIR, kept and reused: unchanged files are skipped), then every question is asked
in its course. The top 10 chunks are retrieved once per question with --variant.

With --budget CHARS, passages are packed the way the answer path packs them
(COURSEBOT_ANSWER_CONTEXT_CHARS, default 4000; core/answering/budget.py): the matched chunks
first, in rank order, whole while they fit (the first that does not is cut at the last
sentence end or line break that fits, and packing stops); then the room left grows them back
to their passages (the chunks around each). Without --budget the answerer reads the top --k
passages whole.

Metrics, overall and per question type:
  source_hit@1, source_hit@5  share of answerable questions with gold_sources whose first 1
                              (5) chunks include one from a gold file (names compared
                              case-insensitively)
  mrr@10                      mean of 1/rank of the first gold-file chunk in the top 10 (0 if
                              none), over the same questions
  span_hit@5                  share of questions with gold_spans where some top-5 chunk holds
                              at least 80% of a gold span's word tokens (as a multiset), both
                              normalised: NFKC, lower case, ligatures, line-end hyphenation,
                              punctuation, whitespace (with --budget: the top 5
                              packed to the budget)
  ctx_chars                   mean characters of the passages the answerer reads (the top
                              --k, packed to --budget)
  abstain                     (--answers) share of unanswerable questions the bot declined
                              (an answer with grounded false)
  wrong_abstain               (--answers) share of answerable questions the bot declined
  answer_span_hit             (--answers) share of questions with gold_spans whose shown
                              answer holds a gold span (the 80% rule above; a decline holds
                              none)
  first_quote_hit             (--answers) the same for the answer's first quote alone (its
                              first line, up to its first citation): is the fact first?
  answer_chars                (--answers) mean characters of the grounded answers shown
  answer_quotes               (--answers) mean quotes (lines citing a source) per grounded
                              answer
  key_facts, key_facts_all    (--answers) over answerable questions whose reference answer
                              holds words with a digit (course codes, numbers, dates): the
                              mean share of those words the shown answer holds, and the
                              share of questions showing all of them
  p50_ms, p95_ms              retrieval latency per question (the retrieve call alone)

The last line of stdout is one summary line, figures not computed left out:
  eval: n=… source_hit@1=… source_hit@5=… mrr@10=… span_hit@5=… ctx_chars=… abstain=…
  wrong_abstain=… answer_span_hit=… first_quote_hit=… answer_chars=… answer_quotes=…
  key_facts=… key_facts_all=… p50_ms=… p95_ms=…
--json OUT also records the run's configuration (variant, k, budget, models, embedder,
package versions, python).
A question whose course has no folder counts as a retrieval miss (with a warning). Exits 2
when DATASET_DIR, its courses/ folder or questions.jsonl is missing."""


async def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from rich.console import Console

    from bot.console.eval_report import (
        question_progress_bar,
        render_header,
        render_ingest_summary,
        render_table,
        report_json,
        summary_line,
    )
    from bot.console.progress import ingest_progress_bar
    from bot.evaluation import DatasetError, EvalOptions, load_dataset, open_evaluation

    try:
        dataset = load_dataset(args.dataset, args.limit)
    except DatasetError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2
    options = EvalOptions(
        k=args.k,
        answers=args.answers,
        variant=args.variant,
        index_dir=args.index,
        budget=args.budget,
        limit=args.limit,
    )
    console = Console(stderr=True)
    async with open_evaluation(dataset, settings, options) as evaluation:
        with ingest_progress_bar(console) as show:
            await evaluation.ingest(show)
        with question_progress_bar(console) as tick:
            await evaluation.ask(tick)
    result = evaluation.result()
    print(render_ingest_summary(result), file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(render_header(result))
    print(render_table(result))
    code = 0
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(report_json(result), indent=2, ensure_ascii=False))
        except OSError as error:
            print(f"coursebot: cannot write {args.json}: {error.strerror}", file=sys.stderr)
            code = 2
    print(summary_line(result.overall))
    return code


def _interval(text: str) -> timedelta:
    from core.errors import BadInputError
    from core.schedules.spec import parse_interval

    try:
        return parse_interval(text)
    except BadInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# Sub-command definitions: each fills in the parser `build_parser` made for it. ----------


def define_config(config: argparse.ArgumentParser) -> None:
    config.description = (
        "Print every COURSEBOT_* setting as it is in effect, with tokens, API keys "
        "and credentials inside URLs masked. Settings come from the environment and .env."
    )
    config.set_defaults(run=cmd_config)


def define_chat(chat: argparse.ArgumentParser) -> None:
    chat.description = (
        "A console chat speaking the same commands as Telegram and Discord. "
        "Plain lines are questions; /help lists commands; /exit or Ctrl-D leaves. "
        "Files the bot sends (charts, CSV exports) are saved under ./coursebot-files/."
    )
    _course_and_user(chat)
    chat.set_defaults(run=cmd_chat)


def define_ask(ask: argparse.ArgumentParser) -> None:
    ask.description = (
        "Answer one question from the course material and exit (for scripts). "
        "Exits 1 when the question could not be answered (for instance an empty course)."
    )
    _course_and_user(ask)
    ask.add_argument(
        "--group",
        action="store_true",
        help="ask as if in a group chat: the reply is seen by others, so no private notes",
    )
    ask.add_argument("question", nargs="+", help="the question, quoted or as separate words")
    ask.set_defaults(run=cmd_ask)


def define_ingest(ingest: argparse.ArgumentParser) -> None:
    from ingestion.loaders import supported_types

    ingest.description = (
        "Load, chunk, embed and index files into a course. Folders are read "
        f"recursively. Supported: {supported_types()}. Unchanged files are skipped, "
        "changed ones replace their old version; a file that fails is reported and leaves "
        "the index as it was. Exits 1 if any file failed."
    )
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    ingest.add_argument("--course", required=True, help="course id, e.g. sample")
    ingest.add_argument(
        "--private", action="store_true", help="index as private notes only --owner can see"
    )
    ingest.add_argument("--owner", help="user id owning private notes (with --private)")
    ingest.set_defaults(run=cmd_ingest)


def define_sources(sources: argparse.ArgumentParser) -> None:
    sources.description = "List the documents of a course that --user may see, with chunk counts."
    _course_and_user(sources)
    sources.set_defaults(run=cmd_sources)


def define_forget(forget: argparse.ArgumentParser) -> None:
    forget.description = (
        "Remove a document (by file name or document id) and all its chunks. "
        "With --owner, removes that user's private notes of that name instead."
    )
    forget.add_argument("document", help="file name or document id (see `coursebot sources`)")
    forget.add_argument("--course", required=True, help="course id")
    forget.add_argument("--owner", help="remove this user's private document")
    forget.set_defaults(run=cmd_forget)


def define_watch(watch: argparse.ArgumentParser) -> None:
    watch.description = (
        "Ingest PATHs into a course now and again every --every (unchanged files "
        "are skipped quickly). Runs until interrupted."
    )
    watch.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    watch.add_argument("--course", required=True, help="course id")
    watch.add_argument(
        "--every", type=_interval, default=timedelta(minutes=30), help="interval (default 30m)"
    )
    watch.set_defaults(run=cmd_watch)


def define_schedule(schedule: argparse.ArgumentParser) -> None:
    schedule.description = (
        "A course's schedules, as /schedule, /schedules and /unschedule in the chat: "
        "`add COURSE ingest FOLDER|URL every 1d` (a folder anywhere on this machine), "
        "`list COURSE` (with each schedule's last runs), `remove COURSE ID`. Quiz polls and "
        "exam reminders are scheduled in the chat they are posted to. The bots and "
        "`coursebot watch` run the schedules."
    )
    actions = schedule.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="add a schedule")
    add.add_argument("course", help="course id")
    add.add_argument("what", nargs="+", help="ingest FOLDER|URL every 1d")
    listing = actions.add_parser("list", help="the course's schedules and their last runs")
    listing.add_argument("course", help="course id")
    remove = actions.add_parser("remove", help="remove a schedule")
    remove.add_argument("course", help="course id")
    remove.add_argument("id", type=positive_int, help="the schedule's number")
    schedule.set_defaults(run=cmd_schedule)


def define_eval(evaluate: argparse.ArgumentParser) -> None:
    from core.retrieval import DEFAULT_VARIANT, VARIANTS

    evaluate.description = EVAL_DESCRIPTION
    evaluate.formatter_class = argparse.RawDescriptionHelpFormatter
    evaluate.add_argument(
        "dataset", type=Path, metavar="DATASET_DIR", help="folder with courses/ and questions.jsonl"
    )
    evaluate.add_argument(
        "--k",
        type=positive_int,
        default=5,
        help="passages retrieved for each answer with --answers (default 5); the retrieval "
        "metrics always use the top 10",
    )
    evaluate.add_argument(
        "--answers",
        action="store_true",
        help="also answer every question through the bot (adds abstain, wrong_abstain, "
        "answer_span_hit and answer_chars)",
    )
    evaluate.add_argument(
        "--budget",
        type=positive_int,
        metavar="CHARS",
        help="pack the passages the answerer reads into CHARS characters, as the answer path "
        "does (default: no budget, the top --k whole)",
    )
    evaluate.add_argument(
        "--limit", type=positive_int, metavar="N", help="only the first N questions, in file order"
    )
    evaluate.add_argument(
        "--json",
        type=Path,
        metavar="OUT",
        help="write the figures and every question's results to OUT as JSON",
    )
    evaluate.add_argument(
        "--index",
        type=Path,
        metavar="DIR",
        help="keep the index in DIR (a data dir, embedded Qdrant) and reuse it next time; "
        "default: a temporary one",
    )
    evaluate.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=DEFAULT_VARIANT,
        help=f"retrieval variant to evaluate (default {DEFAULT_VARIANT}, what the bot uses)",
    )
    evaluate.set_defaults(run=cmd_eval)


def define_course(course: argparse.ArgumentParser) -> None:
    course.description = (
        "Courses have their own staff. `create` makes a course with PRINCIPAL as "
        "its first instructor; `transfer` hands an existing course to PRINCIPAL and removes "
        "every earlier staff role (for a course created under the wrong hands). A principal "
        "is a platform id: telegram:42, discord:1234, or a console user name."
    )
    course.add_argument("action", choices=["create", "transfer"])
    course.add_argument("course", metavar="ID", help="course id, e.g. calc101")
    course.add_argument(
        "--instructor", required=True, metavar="PRINCIPAL", help="who becomes its instructor"
    )
    course.set_defaults(run=cmd_course)


def define_telegram(telegram: argparse.ArgumentParser) -> None:
    from bot.telegram.cli import configure

    configure(telegram)


def define_discord(discord: argparse.ArgumentParser) -> None:
    from bot.discord.cli import configure

    configure(discord)


def define_reindex(reindex: argparse.ArgumentParser) -> None:
    reindex.description = (
        "Give every chunk of a course a new dense vector from the configured embedder, made "
        "from the text stored with the chunk (no file is read or parsed again), then record "
        "that embedder in the index. Needed after changing the embedder (COURSEBOT_EMBEDDER, "
        "COURSEBOT_OLLAMA_EMBED_MODEL of the same vector size): until then the index does "
        "not open."
    )
    which = reindex.add_mutually_exclusive_group(required=True)
    which.add_argument("--course", action="append", metavar="ID", help="course id (repeatable)")
    which.add_argument(
        "--all", action="store_true", help="every course not written by the configured embedder"
    )
    reindex.set_defaults(run=cmd_reindex)


async def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    from bot.composition import embedder, ollama_client, open_index
    from core.embedding.embedder import writes_units
    from ingestion.reindex import reindex_course

    dense = await embedder(settings, ollama_client(settings))
    # Opened without the embedder check: this command is how a mismatch is resolved.
    index = await open_index(settings, dense.dimensions, unit_vectors=writes_units(dense))
    try:
        recorded = await index.embedders()
        courses = args.course or sorted(c for c, who in recorded.items() if who != dense.identity)
        for course in courses:
            if course not in recorded:
                print(f"coursebot: the index has no course '{course}'", file=sys.stderr)
                return 1
        for course in courses:
            report = await reindex_course(index, dense, dense.identity, course)
            note = f", {report.approximated} from their passage" if report.approximated else ""
            if report.classified:
                note += f", {report.classified} newly classified as teaching or logistics"
            print(f"reindexed '{course}': {report.chunks} chunks with {report.embedder}{note}")
    finally:
        await index.close()
    return 0


def define_generate(generate: argparse.ArgumentParser) -> None:
    generate.description = (
        "Generate practice material on a topic, grounded in the course's material and cited: "
        "an exercise, a lesson (PDF slides), flashcards, a quiz or a mind map. With an "
        "Ollama generate model configured (COURSEBOT_OLLAMA_HOST, COURSEBOT_OLLAMA_MODELS) "
        "the model writes it and the core checks it (an exercise's answers are recomputed "
        "by sympy); without one, it is built from the material (an exercise is the next "
        "instance of the course's parametric exercise). `coursebot generate WHAT --help` "
        "for each."
    )
    what = generate.add_subparsers(dest="what", required=True, metavar="WHAT")
    exercise = what.add_parser("exercise", help="a new exercise on a topic")
    _course_and_user(exercise)
    exercise.add_argument("--topic", required=True, help="the topic, e.g. Limits")
    exercise.add_argument(
        "--difficulty",
        choices=("easy", "medium", "hard"),
        default="medium",
        help="asked of the model (parametric exercises have one level)",
    )
    exercise.add_argument("--json", action="store_true", help="print the instance as JSON")
    _define_lesson(what)
    for kind in STUDY_KINDS:
        _define_study(what, kind)
    generate.set_defaults(run=cmd_generate)


async def cmd_generate(args: argparse.Namespace, settings: Settings) -> int:
    from core.errors import UserFacingError

    if args.what == "lesson":
        return await cmd_generate_lesson(args, settings)
    if args.what in STUDY_KINDS:
        return await cmd_generate_study(args, settings)
    async with open_checked_core(settings) as core:
        try:
            instance, sheet = await core.generate_exercise(
                args.course, args.topic, user=args.user, difficulty=args.difficulty
            )
        except UserFacingError as error:
            print(f"coursebot: {error}", file=sys.stderr)
            return 1
    data = await generated_exercise_data(instance, sheet)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(f"{instance.title} ({data['id']})\n{data['statement']}")
    for number, step in enumerate(data["steps"], start=1):
        print(f"\n{number}. {step['prompt']}\n   answer: {step['answer']}")
    print(f"\nsolution:\n{data['solution']}")
    print(f"\nsources: {'; '.join(data['sources'])}; verified: {str(data['verified']).lower()}")
    return 0


STUDY_KINDS = {
    "flashcards": "flashcards on a topic (10-15, from definitions, formulas and tables)",
    "quiz": "a multiple-choice quiz on a topic (15-20 questions, 4 options each)",
    "mindmap": "a mind map of a topic (--out FILE.png writes the picture)",
}


def _define_study(what: Any, kind: str) -> None:
    parser = what.add_parser(
        kind,
        help=STUDY_KINDS[kind],
        description=f"{STUDY_KINDS[kind][0].upper()}{STUDY_KINDS[kind][1:]}: grounded in the "
        "course's material and cited; written by the model when one is configured, otherwise "
        "built from the material. The same request again is served from the store; --new "
        "makes a new one.",
    )
    _course_and_user(parser)
    parser.add_argument("--topic", required=True, help="the topic, e.g. derivatives")
    if kind != "mindmap":
        parser.add_argument("--count", type=positive_int, metavar="N", help="exactly N items")
    parser.add_argument("--new", action="store_true", help="make a new set, replacing one")
    parser.add_argument("--json", action="store_true", help="print the set as JSON")
    suffix = "png" if kind == "mindmap" else "json"
    parser.add_argument(
        "--out", type=Path, metavar=f"FILE.{suffix}", help=f"write the {suffix.upper()} here"
    )


async def cmd_generate_study(args: argparse.Namespace, settings: Settings) -> int:
    from core.errors import UserFacingError

    async with open_checked_core(settings) as core:
        try:
            set_id, value = await core.generate_study_set(
                args.what, args.course, args.topic, user=args.user, fresh=args.new,
                count=getattr(args, "count", None),
            )  # fmt: skip
            picture = await core.mindmap_picture(value) if args.what == "mindmap" else b""
        except UserFacingError as error:
            print(f"coursebot: {error}", file=sys.stderr)
            return 1
    data = {"id": set_id, **value.to_json()}
    if args.out is not None:
        try:
            args.out.write_bytes(picture or json.dumps(data, indent=2).encode())
        except OSError as error:
            print(f"coursebot: cannot write {args.out}: {error.strerror}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(_study_text(args.what, value))
    if args.out is not None:
        print(f"wrote {args.out}")
    return 0


def _study_text(kind: str, value: Any) -> str:
    lines = [f"{kind} on {value.topic}" + (f" ({value.reason})" if value.reason else "")]
    if kind == "flashcards":
        for n, card in enumerate(value.cards, 1):
            lines.append(f"{n}. {card.front}\n   → {card.back}")
    elif kind == "quiz":
        for n, item in enumerate(value.items, 1):
            lines.append(f"{n}. {item.question}")
            lines.extend(f"   {'ABCD'[i]}) {o}" for i, o in enumerate(item.options))
            lines.append(f"   answer: {'ABCD'[item.correct]}")
    else:
        lines.append(value.outline())
    return "\n".join(lines)


def _define_lesson(what: Any) -> None:
    lesson = what.add_parser(
        "lesson",
        help="a short lesson on a topic as PDF slides",
        description="A deck of slides on a topic as a PDF, for a reading profile: written by "
        "the model when one is configured, otherwise assembled from the course's passages "
        "(quoted and cited). The same request again is served from the store; --new makes "
        "a new one.",
    )
    _course_and_user(lesson)
    lesson.add_argument("--topic", required=True, help="the topic, e.g. derivatives")
    lesson.add_argument("--slides", metavar="MIN-MAX", help="how many slides (default 3-8)")
    lesson.add_argument(
        "--profile",
        choices=("standard", "visual", "adhd", "dyslexia"),
        default="standard",
        help="the reading profile the deck is laid out and checked for",
    )
    lesson.add_argument("--out", type=Path, metavar="FILE.pdf", help="write the PDF here")
    lesson.add_argument("--new", action="store_true", help="make a new deck, replacing one")
    lesson.add_argument("--json", action="store_true", help="print the deck as JSON")


async def cmd_generate_lesson(args: argparse.Namespace, settings: Settings) -> int:
    from core.errors import UserFacingError

    async with open_checked_core(settings) as core:
        try:
            result = await core.generate_lesson(
                args.course, args.topic, user=args.user, slides=args.slides,
                profile=args.profile, fresh=args.new,
            )  # fmt: skip
        except UserFacingError as error:
            print(f"coursebot: {error}", file=sys.stderr)
            return 1
    written = []
    if args.out is not None:
        try:
            args.out.write_bytes(result.pdf)
            for name, html in result.widgets:  # beside the PDF, as the slides name them
                (args.out.parent / name).write_bytes(html)
        except OSError as error:
            print(f"coursebot: cannot write {args.out}: {error.strerror}", file=sys.stderr)
            return 1
        written = [str(args.out), *(str(args.out.parent / name) for name, _ in result.widgets)]
    if args.json:
        data = {
            "material_id": result.material_id,
            "cached": result.cached,
            "model": result.model,
            "sources": list(result.sources),
            "notes": list(result.notes),
            "files": written,
            "deck": result.deck.model_dump(mode="json"),
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(result.caption())
    for number, slide in enumerate(result.deck.slides, start=1):
        print(f"\n{number}. {slide.title}")
        for item in slide.content:
            print(f"   - {item}")
    print("\n" + (f"wrote {', '.join(written)}" if written else "(no --out: PDF not written)"))
    return 0


async def generated_exercise_data(instance: Any, sheet: Any) -> dict[str, Any]:
    """An exercise as JSON data. `verified`: every answer is a number or expression
    (recomputed by sympy from the exercise's data) and the grader accepts each expected
    answer."""
    from core.exercises import FreeTextAnswer, Grader
    from core.exercises.parameters import split_instance_id

    base = split_instance_id(instance.id)
    grader = Grader()
    try:
        verified = True
        for step in instance.steps:
            if isinstance(step.answer, FreeTextAnswer):
                verified = False
                continue
            expected = step.answer.expected_text()
            if step.answer.kind == "choice":
                expected = " and ".join(chr(65 + i) for i in step.answer.correct)
            verified = verified and (await grader.grade(step, expected)).correct
    finally:
        await grader.close()
    return {
        "id": instance.id,
        "exercise": base[0] if base else instance.id,
        "title": instance.title,
        "topic": instance.topic,
        "statement": sheet.statement,
        "steps": [
            {
                "prompt": step.prompt,
                "answer": step.answer.expected_text(),
                "kind": step.answer.kind,
                "hints": list(step.hints),
                "skill": step.skill,
            }
            for step in instance.steps
        ],
        "solution": sheet.solution,
        "sources": [citation.label() for citation in sheet.sources],
        "verified": verified and sheet.verified,
    }


# name, one line for `coursebot --help`, the definition (run only when the name is chosen)
SUBCOMMANDS: list[tuple[str, str, Callable[[argparse.ArgumentParser], None]]] = [
    ("config", "print the effective settings, secrets masked", define_config),
    ("chat", "chat with the bot in this terminal", define_chat),
    ("ask", "answer one question and exit", define_ask),
    ("ingest", "add course material (files or folders) to a course", define_ingest),
    ("sources", "list a course's documents", define_sources),
    ("forget", "remove a document from a course", define_forget),
    ("watch", "re-ingest folders on a schedule", define_watch),
    ("schedule", "add, list or remove a course's schedules", define_schedule),
    ("worker", "run background jobs (ingestion, lessons, generation) from Redis", define_worker),
    (
        "eval",
        "measure retrieval and answers on a dataset of courses and questions",
        define_eval,
    ),
    ("course", "create a course or hand it to another instructor", define_course),
    (
        "telegram",
        "run the Telegram bot (long polling, or a webhook with --webhook)",
        define_telegram,
    ),
    ("discord", "run the course bot in Discord servers, with slash commands", define_discord),
    ("reindex", "embed a course's stored text again with the configured embedder", define_reindex),
    ("generate", "an exercise, lesson, flashcards, quiz or mind map on a topic", define_generate),
]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given `argv`, only the sub-command it names gets its arguments (the
    others are listed by name and help only), so `coursebot --help` imports nothing heavy."""
    parser = argparse.ArgumentParser(
        prog="coursebot",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = _command_word(argv) if argv is not None else None
    for name, help_line, define in SUBCOMMANDS:
        command = sub.add_parser(name, help=help_line, description=help_line)
        if argv is None or name == chosen:
            define(command)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The sub-command `argv` names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def _course_and_user(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", required=True, help="course id, e.g. sample")
    parser.add_argument(
        "--user",
        default="console",
        help="speak as this user id, with their roles and notes (default: console, the "
        "operator, who holds every role)",
    )


# The long-running commands: an operator reads their INFO log.
_SERVICES = frozenset({"telegram", "discord", "worker", "watch"})


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "private", False) and not args.owner:
        parser.error("--private needs --owner USER")
    from config import SettingsError, configure_logging, load_settings

    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2
    if args.command not in _SERVICES and "log_level" not in settings.model_fields_set:
        # A terminal command's own lines are its output: the log's INFO lines ("job ended",
        # as JSON when piped) would sit among a chat's replies. Services keep INFO.
        settings = settings.model_copy(update={"log_level": "WARNING"})
    configure_logging(settings)
    run: Command = args.run
    try:
        return asyncio.run(run(args, settings))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `coursebot config | head`: the reader left, nothing to say
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python flushes it at exit)
        return 0
    except StartupError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if not (_index_refused(error) or _said_to_the_user(error)):
            raise
        print(f"coursebot: {error}", file=sys.stderr)
        return 2


def _said_to_the_user(error: Exception) -> bool:
    """A refusal the core words for people ("'bad id!' is not a course id: ..."): one line,
    whichever command met it, never a traceback."""
    from core.errors import UserFacingError

    return isinstance(error, UserFacingError)


def _index_refused(error: Exception) -> bool:
    """The index belongs to another embedder, or another process holds it."""
    from core.index import IndexInUseError, IndexMismatchError

    return isinstance(error, (IndexMismatchError, IndexInUseError))


def entry() -> None:
    """The `coursebot` program. A long-running command (telegram, discord, watch, worker)
    has closed everything in its shell by the time `main` returns, and then ends at once
    (`bot.runtime.exit_now`): the interpreter's own teardown took seconds on a loaded
    machine, out of the 10 s an orchestrator waits after SIGTERM."""
    code = main()
    from bot.runtime import SHELL_COMMANDS, exit_now  # loaded already by those commands

    if _command_word(sys.argv[1:]) in SHELL_COMMANDS:
        exit_now(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
