"""The chat commands, each declared once: its handler, its typed options and its flags.

Everything else is derived from this table: the core's dispatch (`CourseBot._route`), the
help text, the chat-line parser (`/quiz limits 5 --new` typed on Telegram or the console),
Telegram's menus and handler sets, and Discord's application commands, whose typed option
values reach the core as they are (`ParsedCommand.options`), never rebuilt into a line.

This module imports nothing heavy: the adapters' command-line faces read it."""

from __future__ import annotations

import itertools
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from core.catalog.rules import MAX_AHEAD
from core.context import Role
from core.errors import BadInputError
from core.reading_profiles import Profile

if TYPE_CHECKING:
    from core.catalog import CatalogDesk
    from core.context import Context
    from core.course_bot import CourseBot
    from core.courses.access import CourseAccess
    from core.feedback import Digest, InstructorLoop
    from core.generation.materials import MaterialsDesk
    from core.lessons import LessonService
    from core.practice import PracticeService
    from core.practice.review import MistakeReview
    from core.progress import StepReport
    from core.replies import Reply
    from core.requests import Request
    from core.schedules import ScheduleDesk
    from core.study.desk import StudyDesk
    from core.uploads import UploadDesk

Value = str | int | bool


class Kind(StrEnum):
    """What an option holds. A user is a principal key (`telegram:42`); a principal is a
    user or a role of the platform (`discord:role:7`)."""

    TEXT = "text"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    USER = "user"
    PRINCIPAL = "principal"


class Source(StrEnum):
    """Where autocomplete reads its suggestions (`CourseBot.*_choices`)."""

    COURSES = "courses"
    DOCUMENTS = "documents"
    EXERCISES = "exercises"


@dataclass(frozen=True, slots=True)
class Option:
    """One typed option. In a chat line a boolean is spelled `--name`; a `named` option
    `--name VALUE`; a `keyword` one `name VALUE`; a `rest` option takes the words the others
    leave (at most one per command); the others are positional, in order."""

    name: str
    help: str
    kind: Kind = Kind.TEXT
    required: bool = False
    rest: bool = False
    named: bool = False
    keyword: bool = False
    choices: tuple[str, ...] = ()
    # Choices may also be given by their number from 1 (`/pick 2 3` for C).
    numbered: bool = False
    low: int | None = None
    high: int | None = None
    complete: Source | None = None
    metavar: str = ""
    # How an unknown value of a named choice is refused ("There is no reading profile 'x'").
    noun: str = ""

    @property
    def positional(self) -> bool:
        return not (self.named or self.keyword or self.kind is Kind.BOOLEAN)

    def usage(self) -> str:
        word = self.metavar or ("|".join(self.choices) if self.choices else self.name.upper())
        if self.kind is Kind.BOOLEAN:
            text = f"--{self.name}"
        elif self.named:
            text = f"--{self.name} {word}"
        elif self.keyword:
            text = f"{self.name} {word}"
        else:
            text = word
        # A metavar that brackets its own parts is shown as it is.
        return text if self.required or text.startswith("[") else f"[{text}]"

    def accept(self, value: object, misuse: str) -> Value:
        """`value` (a chat word or a platform's typed value) as this option's type."""
        if self.kind is Kind.BOOLEAN:
            if isinstance(value, bool):
                return value
            raise BadInputError(misuse)
        if self.kind is Kind.INTEGER:
            number = _integer(value)
            if number is None:
                raise BadInputError(misuse)
            if (self.low is not None and number < self.low) or (
                self.high is not None and number > self.high
            ):
                raise BadInputError(f"{self.name.capitalize()} must be {self._bounds()}.")
            return number
        if not isinstance(value, str):
            raise BadInputError(misuse)
        if self.choices:
            return self._choice(value, misuse)
        return value

    def _choice(self, value: str, misuse: str) -> str:
        wanted = value.strip().lower()
        if self.numbered and wanted.isdigit() and 1 <= int(wanted) <= len(self.choices):
            return self.choices[int(wanted) - 1]
        for choice in self.choices:
            if choice.lower() == wanted:
                return choice
        if self.positional:  # a word out of place: the usage says what goes there
            raise BadInputError(misuse)
        raise BadInputError(
            f"There is no {self.noun or self.name} '{value}': choose {', '.join(self.choices)}."
        )

    def _bounds(self) -> str:
        if self.low is not None and self.high is not None:
            return f"from {self.low} to {self.high}"
        return f"at least {self.low}" if self.low is not None else f"at most {self.high}"


@dataclass(frozen=True, slots=True)
class Arguments:
    """A command's typed option values, by option name (absent: not given)."""

    values: Mapping[str, Value] = field(default_factory=dict)

    def text(self, name: str) -> str:
        value = self.values.get(name)
        return value if isinstance(value, str) else ""

    def number(self, name: str) -> int | None:
        value = self.values.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def flag(self, name: str) -> bool:
        return self.values.get(name) is True


@dataclass(frozen=True, slots=True)
class Desks:
    """What a command's handler may call: the core's services, and the core itself for its
    own use cases (questions, bindings, help)."""

    core: CourseBot
    access: CourseAccess
    practice: PracticeService
    review: MistakeReview
    uploads: UploadDesk
    lessons: LessonService
    study: StudyDesk
    materials: MaterialsDesk
    catalog: CatalogDesk
    schedules: ScheduleDesk
    loop: InstructorLoop
    digest: Digest


@dataclass(frozen=True, slots=True)
class Call:
    """One command being handled: the request, its context (None for a command that needs
    no course) and its typed arguments."""

    request: Request
    ctx: Context | None
    args: Arguments
    # Where a job command reports its steps (`core.progress.Steps`); None when nobody waits.
    report: StepReport | None = None
    # The id of the job running a job command: what it saves is saved once per job, so a
    # retried run finds its first run's set (`MaterialStore.saved_by`). None outside jobs.
    job: str | None = None

    @property
    def context(self) -> Context:
        if self.ctx is None:  # `needs_course` commands always have one
            raise ValueError("a command without a course")
        return self.ctx


Handler = Callable[[Desks, Call], Awaitable["Reply | list[Reply]"]]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    summary: str
    handler: Handler
    options: tuple[Option, ...] = ()
    role: Role = Role.STUDENT
    # The reply is for the asker alone (ephemeral on Discord): it is about them, or refusals.
    private: bool = False
    # What the reply shows that the rest of a group must not read ("" if nothing): such a
    # command is answered only where the reply can be kept from them.
    confidential: str = ""
    # In the help and the menus; unlisted commands are what buttons send.
    listed: bool = True
    # Works before a course is known (help, choosing or binding one).
    needs_course: bool = True
    # Slow enough (retrieval, a model, rendering) for a "typing…" sign while it works.
    slow: bool = False
    # Heavy (rendering, a model writing a set): run as a background job, on a worker when
    # jobs go through Redis (core/jobs). A run after the first never makes a *new* set.
    job: bool = False
    # A button's press: answered from a stored set, to the presser alone where the platform
    # can whisper, so it counts against the person's limit only.
    tap: bool = False
    # Whether the sender administers the chat matters (an adapter may have to ask).
    chat_admin: bool = False
    # Files a slash command takes as attachments (the first required), and what they are.
    files: int = 0
    files_help: str = ""
    # What to say when a chat line does not fit the options ("" -> the usage line).
    misuse: str = ""
    # Another form of the command, after the derived usage (`| edit N "instruction"`).
    also: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def usage(self) -> str:
        return " ".join(option.usage() for option in self.options) + self.also

    @property
    def misuse_line(self) -> str:
        return self.misuse or f"Usage: /{self.name} {self.usage}".rstrip()

    @property
    def staff(self) -> bool:
        return self.role is not Role.STUDENT

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def user_position(self) -> int | None:
        """How many positional words come before the one naming a user or role (Telegram
        lets a reply name them instead), or None if no option names one."""
        positional = [o for o in self.options if o.positional]
        for number, option in enumerate(positional):
            if option.kind in (Kind.USER, Kind.PRINCIPAL):
                return number
        return None

    def arguments(self, parsed: ParsedCommand) -> Arguments:
        """The typed arguments: a platform's typed options checked, or a chat line parsed."""
        if parsed.options is None:
            return parse_line(self, parsed.argument)
        values: dict[str, Value] = {}
        for name, value in parsed.options.items():
            option = self.option(name)
            if option is None:
                raise BadInputError(self.misuse_line)
            values[name] = option.accept(value, self.misuse_line)
        _require(self, values)
        return Arguments(values)


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A command as an adapter hands it over: a chat line's words after the name
    (`argument`), or a platform's typed option values (`options`, by option name)."""

    name: str
    argument: str = ""
    options: Mapping[str, Value] | None = None

    def text(self) -> str:
        """What the person typed, for the length cap."""
        if self.options is None:
            return self.argument
        return " ".join(v for v in self.options.values() if isinstance(v, str))


# The line parser ----------------------------------------------------------------------------

# A word, or a quoted phrase at the start of one (`--skill "chain rule"`).
_WORD = re.compile(r"\"[^\"]*\"|'[^']*'|\S+")
_QUOTES = "\"'"


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    start: int
    end: int

    @property
    def value(self) -> str:
        if len(self.text) > 1 and self.text[0] in _QUOTES and self.text[-1] == self.text[0]:
            return self.text[1:-1]
        return self.text


def parse_line(spec: CommandSpec, line: str) -> Arguments:
    """`line` (what follows `/name`) as `spec`'s typed arguments; a `BadInputError` with one
    line when it does not fit."""
    misuse = spec.misuse_line
    words = [_Word(m.group(), m.start(), m.end()) for m in _WORD.finditer(line)]
    values: dict[str, Value] = {}
    loose: list[_Word] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        option = _spelled(spec, word.text, loose)
        if option is None:
            loose.append(word)
            continue
        if option.kind is Kind.BOOLEAN:
            values[option.name] = True
            continue
        inline = word.text.partition("=")[2] if option.named else ""
        if inline:
            values[option.name] = option.accept(inline, misuse)
        elif index < len(words) and not words[index].text.startswith("--"):
            values[option.name] = option.accept(words[index].value, misuse)
            index += 1
        elif option.named:
            raise BadInputError(f"--{option.name} needs a value. {misuse}")
        else:  # a keyword alone (`/materials send`)
            raise BadInputError(misuse)
    values.update(_positional(spec, line, loose, misuse))
    _require(spec, values)
    return Arguments(values)


def _spelled(spec: CommandSpec, word: str, before: Sequence[_Word]) -> Option | None:
    """The option `word` names: `--name` (a flag or a named option), or a keyword that opens
    the line (`/materials send 4`)."""
    if word.startswith("--"):
        name = word[2:].partition("=")[0].lower()
        option = spec.option(name)
        if option is not None and (option.named or option.kind is Kind.BOOLEAN):
            return option
        return None
    option = spec.option(word.lower())
    return option if option is not None and option.keyword and not before else None


def _positional(spec: CommandSpec, line: str, words: list[_Word], misuse: str) -> dict[str, Value]:
    options = [o for o in spec.options if o.positional]
    rest = next((n for n, o in enumerate(options) if o.rest), None)
    if rest is None:
        return _in_order(options, words, misuse)
    head, tail = options[:rest], options[rest + 1 :]
    values = _in_order(head, words[: len(head)], misuse)
    words = words[len(head) :]
    # Options after the rest are read from the end, an optional one only if the word fits
    # it (`/quiz limits 5`, `/exercise limits hard`).
    for option in reversed(tail):
        if words and _fits(option, words[-1].value):
            values[option.name] = option.accept(words.pop().value, misuse)
        elif option.required:
            raise BadInputError(misuse)
    if words:
        text = line[words[0].start : words[-1].end]
        # Words the flags were taken from between are joined by single spaces; otherwise
        # the line is kept as typed (an answer over several lines).
        if any(
            a.end != b.start and line[a.end : b.start].strip() for a, b in itertools.pairwise(words)
        ):
            text = " ".join(w.text for w in words)
        values[options[rest].name] = text.strip()
    return values


def _in_order(options: Sequence[Option], words: Sequence[_Word], misuse: str) -> dict[str, Value]:
    required = sum(1 for o in options if o.required)
    if not required <= len(words) <= len(options):
        raise BadInputError(misuse)
    optional = len(words) - required  # the first optional ones are filled
    values: dict[str, Value] = {}
    queue = list(words)
    for option in options:
        if not option.required:
            if optional == 0:
                continue
            optional -= 1
        values[option.name] = option.accept(queue.pop(0).value, misuse)
    return values


def _fits(option: Option, word: str) -> bool:
    if option.kind is Kind.INTEGER:
        return _integer(word) is not None
    if option.choices:
        lowered = word.lower()
        return any(c.lower() == lowered for c in option.choices)
    return True


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        # "#12" as `/materials` lists ids; "2." or "2)" as a numbered list writes them.
        digits = value.strip().removeprefix("#").rstrip(".:)")
        if digits.isdigit():
            return int(digits)
    return None


def _require(spec: CommandSpec, values: Mapping[str, Value]) -> None:
    if any(o.required and o.name not in values for o in spec.options):
        raise BadInputError(spec.misuse_line)


# Parsing a line, the help --------------------------------------------------------------------


def parse_command(text: str) -> ParsedCommand | None:
    """`/name rest` -> ParsedCommand; a plain line -> None. Accepts Telegram's `/name@bot`."""
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) == 1:
        return None
    head, _, rest = stripped[1:].partition(" ")
    name = head.split("@", 1)[0].lower()
    return ParsedCommand(name=name, argument=rest.strip())


def help_text(roles: frozenset[Role], holders: Callable[[Role], Sequence[Role]]) -> str:
    """The commands `roles` may use, with their usage; then the staff's commands with the
    roles that may use them (`holders`, the permissions' word), so a newcomer learns who
    answers their questions and reads their votes."""
    lines = [
        "Ask me anything about the course: send your question as a plain message.",
        "During a guided exercise, plain messages are your answers.",
    ]
    others: list[str] = []
    for spec in COMMANDS:
        if not spec.listed:
            continue
        if spec.role in roles:
            usage = f" {spec.usage}" if spec.usage else ""
            lines.append(f"/{spec.name}{usage} — {spec.summary}")
        else:
            who = ", ".join(f"{role.value}s" for role in holders(spec.role))
            others.append(f"/{spec.name} — {who}: {spec.summary}")
    if others:
        lines += ["", "For the course's staff:", *others]
    return "\n".join(lines)


# The commands --------------------------------------------------------------------------------

_TOPIC = Option("topic", "the topic", required=True, rest=True)
_NEW = Option("new", "make a new one instead of the one made before", Kind.BOOLEAN)
_COURSE_CODE = Option(
    "course", "a course code, a code prefix or a name", required=True, rest=True,
    metavar="CODE|NAME",
)  # fmt: skip
_GRANTED = Option("role", "the role", required=True, choices=("instructor", "moderator"))
_WHO = Option(
    "who", "a user or a role of this server", Kind.PRINCIPAL, required=True, metavar="USER"
)


GRANT_USAGE = (
    "Usage: /{command} instructor|moderator USER (on Telegram, reply to one of their messages "
    "or give their numeric id; on Discord, mention the user or the role)."
)


LESSON_MISUSE = (
    f"Which topic? Send /lesson TOPIC [--slides MIN-MAX] [--profile {'|'.join(Profile)}] "
    '[--new], or /lesson edit N "instruction".'
)
MATERIALS_USAGE = "Send /materials for the list, or /materials send ID to get one again."
SCHEDULE_USAGE = (
    "Usage: /schedule ingest FOLDER|URL every 1d, /schedule quiz TOPIC mon 09:00 "
    "(or daily 09:00), /schedule reminders on|off, or (in a direct message) /schedule digest "
    "mon 09:00."
)
BIND_USAGE = "Which course? Send /bind COURSE, for example /bind calc101."


def _catalog_misuse(name: str) -> str:
    return f"Which course? Usage: /{name} CODE (a code, a code prefix or a name)."


_ANSWER_ID = Option(
    "answer", "the answer's number (your last answer when left out)", Kind.INTEGER, named=True,
    low=1, metavar="ID",
)  # fmt: skip
QUESTIONS_SHOWN = "students' questions"
FORGET_USAGE = (
    "Which document? Send /forget DOCUMENT with its file name, as /sources lists it, or "
    "/forget --answer ID to remove a staff answer."
)


def _forget(d: Desks, c: Call) -> Awaitable[Reply]:
    number = c.args.number("answer")
    if number is not None:
        return d.loop.forget(c.context, number)
    return d.core.forget(c.context, c.args.text("document"), private=c.args.flag("private"))


def _study_misuse(name: str, extra: str = "") -> str:
    return f"Which topic? Use /{name} TOPIC{extra} [--new]."


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "help", "show what I can do", lambda d, c: d.core.help(c.request),
        private=True, needs_course=False,
    ),
    CommandSpec(
        "start", "join a course by its invite code (what an invite link sends)",
        lambda d, c: d.core.start(c.request, c.args.text("code")),
        (Option("code", "the course's invite code", metavar="CODE"),),
        private=True, needs_course=False, listed=False,
    ),
    CommandSpec(
        "ask", "ask a question about the course",
        lambda d, c: d.core.ask(c.context, c.args.text("question")),
        (Option("question", "your question about the course material", required=True,
                rest=True),),
        slow=True, misuse="Please write a question.",
    ),
    CommandSpec(
        "sources", "list the course's documents", lambda d, c: d.core.sources(c.context),
        private=True,
    ),
    CommandSpec(
        "page", "a picture of a page of the material (a citation's \"Show page\")",
        lambda d, c: d.core.show_page(
            c.context, c.args.text("document"), c.args.number("page") or 0
        ),
        (
            Option("document", "the document's file name (see /sources)", required=True,
                   rest=True, complete=Source.DOCUMENTS, metavar="DOCUMENT"),
            Option("page", "the page's number", Kind.INTEGER, required=True, low=1,
                   metavar="N"),
        ),
        tap=True, misuse="Which page? Send /page DOCUMENT N, as a citation names them.",
    ),
    CommandSpec(
        "good", "rate an answer helpful (your last one, or the one a 👍 button names)",
        lambda d, c: d.core.rate(c.request, c.args.number("answer"), helpful=True),
        (_ANSWER_ID,), private=True, needs_course=False, tap=True,
        misuse="Usage: /good (your last answer) or /good --answer ID.",
    ),
    CommandSpec(
        "bad", "rate an answer not helpful, and why if you like (only the staff see it)",
        lambda d, c: d.core.rate(
            c.request, c.args.number("answer"), helpful=False, reason=c.args.text("why")
        ),
        (
            Option("why", "wrong, incomplete, wrong course, not what I asked, or your words",
                   rest=True, metavar="[WHY]"),
            _ANSWER_ID,
        ),
        private=True, needs_course=False, tap=True,
        misuse="Usage: /bad [WHY] (your last answer) or /bad --answer ID [WHY].",
    ),
    CommandSpec(
        "practice", "start a guided exercise",
        lambda d, c: d.practice.start(c.context, c.args.text("topic"), fresh=c.args.flag("new")),
        (
            Option("topic", "an exercise, or a topic to find one for", required=True,
                   rest=True, complete=Source.EXERCISES, metavar="TOPIC|ID"),
            Option("new", "start it anew, even if it is open", Kind.BOOLEAN),
        ),
        slow=True, misuse="Which exercise? Use /practice TOPIC or /practice ID.",
    ),
    CommandSpec(
        "exercise", "a generated exercise on a topic",
        lambda d, c: d.practice.exercise(
            c.context, c.args.text("topic"), c.args.text("difficulty") or "medium",
            report=c.report, job=c.job,
        ),
        (
            Option("topic", "the topic to practise", required=True, rest=True),
            Option("difficulty", "medium when left out", choices=("easy", "medium", "hard")),
        ),
        slow=True, job=True, misuse="Which topic? Use /exercise TOPIC [easy|medium|hard].",
    ),
    CommandSpec(
        "lesson", "a short lesson on a topic as PDF slides",
        lambda d, c: d.lessons.command(
            c.context, c.args.text("topic"), slides=c.args.text("slides") or None,
            profile=c.args.text("profile") or None, fresh=c.args.flag("new"), report=c.report,
            job=c.job,
        ),
        (
            Option("topic", 'the topic, or edit N "instruction" to revise slide N of your '
                   "last lesson", required=True, rest=True),
            Option("slides", "how many slides, like 4-8 (3-8 when left out)", named=True,
                   metavar="MIN-MAX"),
            Option("profile", "the reading profile (standard when left out)", named=True,
                   choices=tuple(p.value for p in Profile),
                   noun="reading profile"),
            _NEW,
        ),
        slow=True, job=True, also=' | edit N "instruction"',
        misuse=LESSON_MISUSE,
    ),
    CommandSpec(
        "solution", "the worked solution of your current exercise",
        lambda d, c: d.practice.solution(c.context), private=True,
    ),
    CommandSpec(
        "flashcards", "flashcards on a topic (backs hidden)",
        lambda d, c: d.study.flashcards(
            c.context, c.args.text("topic"), fresh=c.args.flag("new"), csv=c.args.flag("csv"),
            anki=c.args.flag("anki"), report=c.report, job=c.job,
        ),
        (
            _TOPIC, _NEW,
            Option("csv", "attach a CSV too", Kind.BOOLEAN),
            Option("anki", "attach an Anki deck (.apkg) too", Kind.BOOLEAN),
        ),
        slow=True, job=True, misuse=_study_misuse("flashcards"),
    ),
    CommandSpec(
        "quiz", "a multiple-choice quiz on a topic",
        lambda d, c: d.study.quiz(
            c.context, c.args.text("topic"), count=c.args.number("questions"),
            fresh=c.args.flag("new"), report=c.report, job=c.job,
        ),
        (
            _TOPIC,
            Option("questions", "how many", Kind.INTEGER, low=1, high=30, metavar="N"),
            _NEW,
        ),
        slow=True, job=True, misuse=_study_misuse("quiz", " [N]"),
    ),
    CommandSpec(
        "pick", "answer a quiz question",
        lambda d, c: d.study.pick(
            c.context, c.args.number("quiz"), c.args.number("question") or 0,
            c.args.text("option"),
        ),
        (
            Option("quiz", "the quiz's number (your latest when left out)", Kind.INTEGER,
                   low=1, metavar="QUIZ"),
            Option("question", "the question's number", Kind.INTEGER, required=True, low=1,
                   high=30, metavar="N"),
            Option("option", "your answer", required=True, choices=("A", "B", "C", "D"),
                   numbered=True),
        ),
        tap=True, misuse="Answer with /pick N B: the question's number, then A, B, C or D.",
    ),
    CommandSpec(
        "card", "one flashcard of a set, or its back",
        lambda d, c: d.study.card(
            c.context, c.args.number("set") or 0, c.args.number("number") or 0,
            back=c.args.text("side") == "back",
        ),
        (
            Option("set", "the flashcard set", Kind.INTEGER, required=True, low=1),
            Option("number", "the card's number", Kind.INTEGER, required=True, low=1,
                   metavar="N"),
            Option("side", "the back of the card", choices=("back",)),
        ),
        listed=False, tap=True, misuse="Use /card SET N [back] (the numbers the buttons carry).",
    ),
    CommandSpec(
        "mindmap", "a mind map of a topic, as a picture",
        lambda d, c: d.study.mindmap(
            c.context, c.args.text("topic"), fresh=c.args.flag("new"), report=c.report,
            job=c.job,
        ),
        (_TOPIC, _NEW), slow=True, job=True, misuse=_study_misuse("mindmap"),
    ),
    CommandSpec(
        "materials", "your generated lessons, quizzes and exercises; `/materials send ID` again",
        lambda d, c: d.materials.command(c.context, c.args.number("send")),
        (Option("send", "the id of one to send again (leave out for the list)", Kind.INTEGER,
                keyword=True, low=1, metavar="ID"),),
        private=True,
        misuse=MATERIALS_USAGE,
    ),
    CommandSpec(
        "prereq", "a course's whole prerequisite chain and what it unlocks",
        lambda d, c: d.catalog.prereq(c.context, c.args.text("course")),
        (_COURSE_CODE,), misuse=_catalog_misuse("prereq"),
    ),
    CommandSpec(
        "courseinfo", "a course's name, credits, semester and prerequisites",
        lambda d, c: d.catalog.courseinfo(c.context, c.args.text("course")),
        (_COURSE_CODE,), misuse=_catalog_misuse("courseinfo"),
    ),
    CommandSpec(
        "cantake", "whether your passed courses let you take a course",
        lambda d, c: d.catalog.cantake(c.context, c.args.text("course")),
        (_COURSE_CODE,), private=True, confidential="what your record lets you take",
        misuse=_catalog_misuse("cantake"),
    ),
    CommandSpec(
        "profile", "your semester and passed and failed courses (for /cantake)",
        lambda d, c: d.catalog.profile(c.context, c.args.text("details")),
        (Option("details", "like: semester 4 passed MAE101,CSI106 failed MAS291 (leave out "
                "to see yours)", rest=True,
                metavar="[semester N] [passed CODE,CODE] [failed CODE] | clear"),),
        private=True, confidential="your passed and failed courses",
    ),
    CommandSpec(
        "advising", "rules of the course its documents don't state: `/advising ahead N`",
        lambda d, c: d.catalog.advising(c.context, c.args.number("ahead")),
        (Option("ahead", "how many courses of the next semester a student may take ahead in "
                "a semester (0: none); leave out to see the rules", Kind.INTEGER, keyword=True,
                low=0, high=MAX_AHEAD, metavar="N"),),
        Role.INSTRUCTOR, private=True,
        misuse=f"Usage: /advising, or /advising ahead N (N from 0 to {MAX_AHEAD}).",
    ),
    CommandSpec(
        "answer", "answer the current step of your exercise",
        lambda d, c: d.core.answer(c.context, c.args.text("answer")),
        (Option("answer", "your answer to the current step", required=True, rest=True),),
        slow=True, misuse="Please write your answer after /answer.",
    ),
    CommandSpec(
        "hint", "get a hint for the current step", lambda d, c: d.practice.hint(c.context),
        private=True,
    ),
    CommandSpec(
        "skip", "skip the current step (shows its solution)",
        lambda d, c: d.practice.skip(c.context),
    ),
    CommandSpec(
        "status", "where you are in the current exercise",
        lambda d, c: d.practice.status(c.context), private=True,
    ),
    CommandSpec("quit", "stop the current exercise", lambda d, c: d.practice.quit(c.context)),
    CommandSpec(
        "course", "choose the course of your direct messages, or join one by its code",
        lambda d, c: d.core.choose_course(c.request, c.args.text("course")),
        (Option("course", "the course id, e.g. calc101 (or: join CODE)", rest=True,
                complete=Source.COURSES, metavar="COURSE | join CODE"),),
        private=True, needs_course=False,
    ),
    CommandSpec(
        "notes", "add files to your private notes, in a direct message (only you can see them)",
        lambda d, c: d.uploads.announce(c.context, private=True),
        private=True, files=3,
        files_help="a document of yours (PDF, Word, PowerPoint, Markdown, text…)",
    ),
    CommandSpec(
        "mistakes", "the class's mistakes by skill, as a chart (and CSV)",
        lambda d, c: d.review.report(
            c.context, c.args.text("skill") or None, c.args.text("student") or None,
            csv=c.args.flag("csv"),
        ),
        (
            Option("skill", "only this skill", named=True, metavar="S"),
            Option("student", "only this student's mistakes", Kind.USER, named=True,
                   metavar="U"),
            Option("csv", "also send the log as a CSV file", Kind.BOOLEAN),
        ),
        Role.MODERATOR, private=True, confidential="students' names and answers", slow=True,
        misuse="Usage: /mistakes [--skill SKILL] [--student USER] [--csv]",
    ),
    CommandSpec(
        "unanswered", "questions the material failed (declined or 👎), grouped, most asked first",
        lambda d, c: d.loop.unanswered(c.context),
        role=Role.MODERATOR, private=True, confidential=QUESTIONS_SHOWN,
    ),
    CommandSpec(
        "reply", "answer a group of /unanswered questions (it becomes course material)",
        lambda d, c: d.core.reply_to_group(
            c.request, c.context, c.args.number("id") or 0, c.args.text("answer")
        ),
        (
            Option("id", "the number /unanswered shows", Kind.INTEGER, required=True, low=1,
                   metavar="ID"),
            Option("answer", "your answer (a new one replaces the old)", required=True,
                   rest=True),
        ),
        Role.MODERATOR, private=True, confidential=QUESTIONS_SHOWN, slow=True,
        misuse="Usage: /reply ID your answer (the ID /unanswered shows).",
    ),
    CommandSpec(
        "digest", "the class's questions, votes and mistakes this week or month (chart, CSV)",
        lambda d, c: d.digest.digest(
            c.context, c.args.text("period") or "week", student=c.args.text("student"),
            whisper=c.request.place.whisper,
        ),
        (
            Option("period", "week when left out", choices=("week", "month")),
            Option("student", "only this student's questions (named only in a DM)", Kind.USER,
                   named=True, metavar="U"),
        ),
        Role.MODERATOR, private=True, confidential=QUESTIONS_SHOWN, slow=True,
        misuse="Usage: /digest [week|month] [--student USER]",
    ),
    CommandSpec(
        "bind", "bind this chat to a course",
        lambda d, c: d.core.bind_here(c.request, c.args.text("course")),
        (Option("course", "the course id, e.g. calc101", required=True, rest=True,
                complete=Source.COURSES, metavar="COURSE"),),
        Role.INSTRUCTOR, needs_course=False, chat_admin=True,
        misuse=BIND_USAGE,
    ),
    CommandSpec(
        "unbind", "unbind this chat from its course",
        lambda d, c: d.core.unbind_here(c.request),
        role=Role.INSTRUCTOR, needs_course=False, chat_admin=True,
    ),
    CommandSpec(
        "ingest", "add files to the course material (attach them)",
        lambda d, c: d.uploads.announce(c.context, private=False),
        role=Role.INSTRUCTOR, private=True, files=5,
        files_help="course material (PDF, Word, PowerPoint, Markdown, exercise YAML…)",
    ),
    CommandSpec(
        "forget", "remove a document, or a staff answer (--answer ID), from the course",
        _forget,
        (
            Option("document", "the document's file name (see /sources)", rest=True,
                   complete=Source.DOCUMENTS, metavar="DOCUMENT"),
            Option("private", "remove one of your private notes instead", Kind.BOOLEAN),
            Option("answer", "remove the staff answer to this /unanswered number", Kind.INTEGER,
                   named=True, low=1, metavar="ID"),
        ),
        Role.INSTRUCTOR, private=True, misuse=FORGET_USAGE,
    ),
    CommandSpec(
        "grant", "give someone a role on this course",
        lambda d, c: d.access.grant(c.context, c.args.text("role"), c.args.text("who")),
        (_GRANTED, _WHO), Role.INSTRUCTOR, private=True,
        misuse=GRANT_USAGE.format(command="grant"),
    ),
    CommandSpec(
        "revoke", "take a role on this course away",
        lambda d, c: d.access.grant(
            c.context, c.args.text("role"), c.args.text("who"), revoke=True
        ),
        (_GRANTED, _WHO), Role.INSTRUCTOR, private=True,
        misuse=GRANT_USAGE.format(command="revoke"),
    ),
    CommandSpec(
        "staff", "who teaches and moderates this course",
        lambda d, c: d.access.staff(c.context), role=Role.INSTRUCTOR, private=True,
    ),
    CommandSpec(
        "transfer", "hand this course to another instructor (site staff only)",
        lambda d, c: d.access.transfer(c.request, c.context, c.args.text("who")),
        (Option("who", "the course's new instructor", Kind.USER, required=True,
                metavar="USER"),),
        Role.INSTRUCTOR, private=True,
        misuse="Usage: /transfer USER (the course's new instructor).",
    ),
    CommandSpec(
        "schedule", "ingest a folder or URL, post a quiz, or remind of exams, on a timetable",
        lambda d, c: d.schedules.add(c.request, c.context, c.args.text("what")),
        (Option("what", "ingest FOLDER|URL every 1d, quiz TOPIC mon 09:00, or reminders "
                "on|off", required=True, rest=True,
                metavar="ingest SOURCE every 1d | quiz TOPIC mon 09:00 | reminders on|off"),),
        Role.INSTRUCTOR, private=True, misuse=SCHEDULE_USAGE,
    ),
    CommandSpec(
        "schedules", "the course's schedules and how their last runs went",
        lambda d, c: d.schedules.listing(c.context), role=Role.INSTRUCTOR, private=True,
    ),
    CommandSpec(
        "unschedule", "remove a schedule",
        lambda d, c: d.schedules.remove(c.context, c.args.number("id") or 0),
        (Option("id", "the schedule's number (see /schedules)", Kind.INTEGER, required=True,
                low=1, metavar="ID"),),
        Role.INSTRUCTOR, private=True, misuse="Usage: /unschedule ID (see /schedules).",
    ),
    CommandSpec(
        "invite", "the code students join this course with; `/invite open|closed`",
        lambda d, c: d.access.invite(
            c.context, c.args.text("state") or None, link=c.request.invite_link
        ),
        (Option("state", "open or close the course to anyone; leave out for the code",
                choices=("open", "closed")),),
        Role.INSTRUCTOR, private=True,
        misuse="Usage: /invite, /invite open or /invite closed.",
    ),
)  # fmt: skip

_BY_NAME = {name: spec for spec in COMMANDS for name in (spec.name, *spec.aliases)}


def command_spec(name: str) -> CommandSpec | None:
    return _BY_NAME.get(name)
