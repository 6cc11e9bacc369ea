"""Item-writing checks, in code rather than in a prompt: every generator (extractive or
model-written) runs its items through these, and drops or re-asks what fails.

Each check returns a list of `Problem`s (empty: the item passes). An ERROR makes the item
unusable; a WARNING (a negative stem) is kept on the item as a flag for review.

Beside the shape of an item (`item_problems`, `card_problems`, `set_problems`), what a
teacher would keep (`key_problems`, `course_problems`): a key that is a whole term, value or
formula, never a sentence fragment, a section name or an id; options that are no section
names; on a subject, stems and keys about the subject rather than the course's running; and
citations of the course's own files only (`CourseScope`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from core.content_kind import ContentKind, classify
from core.errors import BadInputError
from core.study.models import OPTIONS_PER_QUESTION, Flashcard, QuizItem, Source

# Chat platforms cap these (a poll's question and options, a button's label); shorter
# options also read better.
MAX_QUESTION_CHARS = 300
MAX_OPTION_CHARS = 100
MAX_CARD_SIDE_CHARS = 600
# When the correct option is the longest in more than this share of a set's questions, a
# test-wise student can guess by length. By chance alone it is about 1 in 4.
LONGEST_SHARE_LIMIT = 0.5
# Below this many questions a share says nothing yet.
LONGEST_MIN_ITEMS = 4
# Two questions whose words overlap this much and share their answer ask the same thing.
NEAR_DUPLICATE_OVERLAP = 0.8
MAX_COUNT = 30


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Rule(StrEnum):
    EMPTY = "empty"
    TOO_LONG = "too_long"
    OPTION_COUNT = "option_count"
    CORRECT_INDEX = "correct_index"
    DUPLICATE_OPTIONS = "duplicate_options"
    ALL_OR_NONE = "all_or_none_of_the_above"
    ANSWER_IN_STEM = "answer_in_stem"
    NEGATIVE_STEM = "negative_stem"
    LONGEST_CORRECT = "correct_is_longest"
    TOO_FEW = "too_few"
    UNRENDERABLE = "unrenderable"
    FRAGMENT = "sentence_fragment"
    SECTION_NAME = "section_name"
    ID_KEY = "id_key"
    LOGISTICS = "logistics_on_a_subject"
    FOREIGN_SOURCE = "foreign_source"
    NOT_TEACHING = "not_teaching_source"
    REPEATED_OPTION = "repeated_option"


@dataclass(frozen=True, slots=True)
class Problem:
    rule: Rule
    message: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        return self.message


def errors(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.ERROR]


def warnings(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity is Severity.WARNING]


# --- normalisation ---------------------------------------------------------------------------

# Sentence punctuation that does not change what an option says. Operators, brackets and
# primes stay: "(f'g - fg')/g^2" and "(fg' - f'g)/g^2" are different answers.
_SENTENCE_PUNCTUATION = re.compile(r"""(?<!\d)[.,](?!\d)|[;:!?"`“”«»¿¡…]""")
_QUOTES = str.maketrans({"‘": "'", "’": "'", "−": "-", "–": "-", "—": "-", "×": "*"})
_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    """What two options must differ in to count as distinct: case, white space and
    sentence punctuation do not count, nor an explicit `*` for multiplication
    ("n * x^(n-1)" is "n x^(n-1)")."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    text = _SENTENCE_PUNCTUATION.sub(" ", text).replace("*", " ")
    return "".join(text.split())


def words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return _WORD.findall(text)


# --- one question -------------------------------------------------------------------------------

_ALL_OR_NONE = re.compile(
    r"\b(all|none|both|neither)\s+(of\s+)?(the\s+)?(above|previous|these|those|options|answers"
    r"|choices)\b",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(r"\b(NOT|EXCEPT)\b")
_NEGATIVE_ANY_CASE = re.compile(
    r"\b(except|false|incorrect|untrue)\b|\bwhich\b[^?]*\b(is|are)\s+not\b", re.IGNORECASE
)


def item_problems(question: str, options: Sequence[str], correct: int) -> list[Problem]:
    """Every problem of one multiple-choice question, as written (before it is a
    `QuizItem`, so a model's 3 or 5 options or a wrong index can be reported)."""
    problems: list[Problem] = []
    if not question.strip():
        problems.append(Problem(Rule.EMPTY, "the question is empty"))
    elif len(question) > MAX_QUESTION_CHARS:
        problems.append(
            Problem(Rule.TOO_LONG, f"the question is longer than {MAX_QUESTION_CHARS} characters")
        )
    if len(options) != OPTIONS_PER_QUESTION:
        problems.append(
            Problem(
                Rule.OPTION_COUNT,
                f"exactly {OPTIONS_PER_QUESTION} options are needed, not {len(options)}",
            )
        )
    if not 0 <= correct < len(options):
        problems.append(
            Problem(
                Rule.CORRECT_INDEX,
                f"correct must be the 0-based index of one option (0 to {len(options) - 1}), "
                f"not {correct}",
            )
        )
    for number, option in enumerate(options, 1):
        if "\n" in option or "\r" in option:
            # A poll option or a button's line holds one line: the rest would not show.
            problems.append(Problem(Rule.UNRENDERABLE, f"option {number} spans several lines"))
        if not option.strip():
            problems.append(Problem(Rule.EMPTY, f"option {number} is empty"))
        elif len(option) > MAX_OPTION_CHARS:
            problems.append(
                Problem(
                    Rule.TOO_LONG, f"option {number} is longer than {MAX_OPTION_CHARS} characters"
                )
            )
        if _ALL_OR_NONE.search(option):
            problems.append(
                Problem(Rule.ALL_OR_NONE, f"option {number} is an 'all/none of the above' option")
            )
    seen: dict[str, int] = {}
    for number, option in enumerate(options, 1):
        key = normalise(option)
        if key and key in seen:
            problems.append(
                Problem(
                    Rule.DUPLICATE_OPTIONS,
                    f"options {seen[key]} and {number} say the same thing",
                )
            )
        seen.setdefault(key, number)
    if 0 <= correct < len(options) and answer_in(options[correct], question):
        problems.append(Problem(Rule.ANSWER_IN_STEM, "the question states its own correct answer"))
    if _NEGATIVE.search(question) or _NEGATIVE_ANY_CASE.search(question):
        problems.append(
            Problem(
                Rule.NEGATIVE_STEM,
                "the question is negative (NOT, EXCEPT, which is false)",
                Severity.WARNING,
            )
        )
    return problems


def answer_in(answer: str, text: str) -> bool:
    """Whether `text` states `answer`: its words in a row, or (for formulas) its normalised
    form inside the text's. Answers of one or two characters are too short to tell."""
    compact = normalise(answer)
    if len(compact) < 3:
        return False
    wanted, found = words(answer), words(text)
    if wanted and any(
        found[start : start + len(wanted)] == wanted
        for start in range(len(found) - len(wanted) + 1)
    ):
        return True
    return len(compact) >= 4 and compact in normalise(text)


def card_problems(front: str, back: str) -> list[Problem]:
    problems = []
    for side, text in (("front", front), ("back", back)):
        if not text.strip():
            problems.append(Problem(Rule.EMPTY, f"the card's {side} is empty"))
        elif len(text) > MAX_CARD_SIDE_CHARS:
            problems.append(
                Problem(
                    Rule.TOO_LONG,
                    f"the card's {side} is longer than {MAX_CARD_SIDE_CHARS} characters",
                )
            )
    if front.strip() and back.strip() and answer_in(back, front):
        problems.append(Problem(Rule.ANSWER_IN_STEM, "the card's front states its back"))
    return problems


# --- what a teacher keeps -------------------------------------------------------------------


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words a whole term, value or formula does not end on: a key ending so was cut from its
# sentence ("Students will", "the limit of").
_DANGLING = _word_set(
    "a an the of to in on at by for from with into onto and or but nor that which who whose "
    "as than is are was were be been being has have had will can may must should would could "
    "shall do does did not its their his her our your this these those if when while where "
    "because since so then"
)
# Words a whole term does not start on: a key starting so is the tail of a sentence.
_LEADING = _word_set("and or but nor of to than that which who whose because so then")
# A code or an id: "CLO1", "PLO12", "LO2", "DBI202", "CQ1_HCM", "K19-K20".
_ID = re.compile(
    r"^(?:C?LO\d+|PLO\d+|[A-Z]{2,}\d{2,}[a-z]?|[A-Z]{2,}\d+[_.][\w.]+|K\d{2}(?:-K\d{2})?)$"
)
_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))


def key_problems(answer: str) -> list[Problem]:
    """A key must be a whole term, value or formula: not cut from a sentence (dangling
    first or last word, unbalanced brackets or quotes, a clause's comma), not an id."""
    problems: list[Problem] = []
    text = answer.strip()
    found = words(text)
    if not found:
        return problems
    if _ID.match(text.replace(" ", "")):
        problems.append(Problem(Rule.ID_KEY, f"the key '{text}' is an id, not something to learn"))
    cut = (
        found[-1] in _DANGLING
        or (found[0] in _LEADING and len(found) > 1)
        or any(text.count(a) != text.count(b) for a, b in _BRACKETS)
        or text.count('"') % 2 == 1
        or text.endswith((",", ":", ";", "-"))
    )
    if cut:
        problems.append(
            Problem(
                Rule.FRAGMENT, f"the key '{text}' is a fragment of a sentence, not a whole term"
            )
        )
    return problems


@dataclass(frozen=True, slots=True)
class CourseScope:
    """What a set is checked against: the documents of the asker's course it may cite, the
    section names of its material (no option is one), which of its chunks teach, and whether
    the set is on a subject (teaching only) or about the course itself."""

    documents: frozenset[str] = frozenset()
    sections: frozenset[str] = frozenset()
    teaching_chunks: frozenset[str] = frozenset()
    subject: bool = True
    # Chunk ids known to be logistics (the rest are unknown, not wrong).
    logistics_chunks: frozenset[str] = field(default_factory=frozenset)
    # The terms the course defines (normalised): "Dropout" titles its section and is a term.
    terms: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls, chunks: Collection[object], *, subject: bool = True, terms: Collection[str] = ()
    ) -> CourseScope:
        """From the chunks the set was made of (`ChunkRecord`s or `SearchHit`s)."""
        records = [getattr(c, "chunk", c) for c in chunks]
        return cls(
            documents=frozenset(getattr(r, "document_id", "") for r in records),
            sections=frozenset(
                normalise(part)
                for r in records
                for part in re.split(r"\s*>\s*", getattr(r, "section", "") or "")
                if part
            ),
            teaching_chunks=frozenset(
                getattr(r, "id", "")
                for r in records
                if getattr(r, "content", None) is ContentKind.TEACHING
            ),
            logistics_chunks=frozenset(
                getattr(r, "id", "")
                for r in records
                if getattr(r, "content", None) is ContentKind.LOGISTICS
            ),
            subject=subject,
            terms=frozenset(normalise(term) for term in terms),
        )


def course_problems(
    question: str, options: Sequence[str], correct: int, source: Source | None, scope: CourseScope
) -> list[Problem]:
    """What a teacher would strike from a question (a card is a question with its back as
    the one option): a key cut from a sentence or an id, a section name among the options,
    on a subject a stem or key about the course's running or a source that is no teaching
    chunk, and a citation outside the course."""
    problems: list[Problem] = []
    if 0 <= correct < len(options):
        problems.extend(key_problems(options[correct]))
    for number, option in enumerate(options, 1):
        if normalise(option) in scope.sections and normalise(option) not in scope.terms:
            problems.append(
                Problem(Rule.SECTION_NAME, f"option {number} '{option}' is a section's name")
            )
    if scope.subject:
        key = options[correct] if 0 <= correct < len(options) else ""
        if classify(f"{question} {key}") is ContentKind.LOGISTICS:
            problems.append(
                Problem(
                    Rule.LOGISTICS, "the question asks about the course's running, not its subject"
                )
            )
        if source is not None and source.chunk_id and source.chunk_id not in scope.teaching_chunks:
            problems.append(Problem(Rule.NOT_TEACHING, "the question cites no teaching material"))
    if source is not None and scope.documents and source.document_id not in scope.documents:
        problems.append(
            Problem(Rule.FOREIGN_SOURCE, f"the question cites {source.file}, not this course's")
        )
    return problems


# Each wrong option at most this often in one quiz: the same few "generic" options on every
# question teach nothing and give the answer away by elimination. (A table column's rows
# may serve each other's questions: a five-row grade table asks each weight once.)
MAX_OPTION_REUSE = 3
MAX_OPTION_APPEARANCES = 5


def repeated_options(items: Sequence[QuizItem]) -> list[Problem]:
    """Options that recur across a quiz more than MAX_OPTION_REUSE times."""
    counts: dict[str, int] = {}
    shown: dict[str, str] = {}
    for item in items:
        for option in item.options:
            key = normalise(option)
            counts[key] = counts.get(key, 0) + 1
            shown.setdefault(key, option)
    return [
        Problem(Rule.REPEATED_OPTION, f"'{shown[key]}' is an option in {n} questions")
        for key, n in counts.items()
        if n > MAX_OPTION_APPEARANCES
    ]


# --- a whole set -------------------------------------------------------------------------------


def _correct_is_longest(item: QuizItem) -> bool:
    length = len(item.answer.strip())
    return all(length > len(o.strip()) for i, o in enumerate(item.options) if i != item.correct)


def longest_share(items: Sequence[QuizItem]) -> float:
    """The share of questions whose correct option is strictly the longest."""
    return sum(map(_correct_is_longest, items)) / len(items) if items else 0.0


def set_problems(items: Sequence[QuizItem]) -> list[Problem]:
    """Problems of the set as a whole (each item checked already)."""
    if len(items) < LONGEST_MIN_ITEMS or longest_share(items) <= LONGEST_SHARE_LIMIT:
        return []
    longest = sum(map(_correct_is_longest, items))
    return [
        Problem(
            Rule.LONGEST_CORRECT,
            f"the correct option is the longest in {longest} of {len(items)} questions; "
            "make wrong options as long as right ones",
        ),
    ]


def rebalance_longest(items: Sequence[QuizItem]) -> list[QuizItem]:
    """The set without the questions that give their answer away by length (widest margin
    first), until the correct option is the longest no more often than the limit allows."""
    kept = list(items)
    giveaways = sorted(
        (position for position, item in enumerate(kept) if _correct_is_longest(item)),
        key=lambda position: -_length_margin(kept[position]),
    )
    dropped: set[int] = set()
    for position in giveaways:
        if not set_problems([item for i, item in enumerate(kept) if i not in dropped]):
            break
        dropped.add(position)
    return [item for i, item in enumerate(kept) if i not in dropped]


def _length_margin(item: QuizItem) -> int:
    others = [len(o) for i, o in enumerate(item.options) if i != item.correct]
    return len(item.answer) - max(others)


def same_question(a: QuizItem, b: QuizItem) -> bool:
    if normalise(a.question) == normalise(b.question):
        return True
    if normalise(a.answer) != normalise(b.answer):
        return False
    words_a, words_b = set(words(a.question)), set(words(b.question))
    union = words_a | words_b
    return bool(union) and len(words_a & words_b) / len(union) >= NEAR_DUPLICATE_OVERLAP


def dedupe_items(items: Sequence[QuizItem]) -> list[QuizItem]:
    """The items without repeats of an earlier one (the first is kept)."""
    kept: list[QuizItem] = []
    for item in items:
        if not any(same_question(item, earlier) for earlier in kept):
            kept.append(item)
    return kept


def dedupe_cards(cards: Sequence[Flashcard]) -> list[Flashcard]:
    """The cards without repeats: the same front, or the same long back (a short back such
    as "20%" may rightly answer several cards)."""
    kept: list[Flashcard] = []
    fronts: set[str] = set()
    backs: set[str] = set()
    for card in cards:
        front, back = normalise(card.front), normalise(card.back)
        if front in fronts or (len(back) >= 20 and back in backs):
            continue
        fronts.add(front)
        backs.add(back)
        kept.append(card)
    return kept


# --- counts ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountRange:
    """How many items a set should have: at least `minimum` (fewer needs a stated reason),
    at most `maximum`."""

    minimum: int
    maximum: int


FLASHCARD_COUNT = CountRange(10, 15)
QUIZ_COUNT = CountRange(15, 20)


def wanted_count(default: CountRange, count: int | None, noun: str) -> CountRange:
    """The range for a request: the default, or exactly `count` when one is asked for."""
    if count is None:
        return default
    if not 1 <= count <= MAX_COUNT:
        raise BadInputError(f"Ask for 1 to {MAX_COUNT} {noun}, not {count}.")
    return CountRange(count, count)


def count_problems(found: int, wanted: CountRange, noun: str) -> list[Problem]:
    if found >= wanted.minimum:
        return []
    return [Problem(Rule.TOO_FEW, f"{found} usable {noun}, at least {wanted.minimum} are needed")]


def shortfall_reason(topic: str, found: int, wanted: CountRange, noun: str) -> str:
    """The reason shown with a set smaller than asked, or "" when it is not."""
    if found >= wanted.minimum:
        return ""
    return f"the material on '{topic}' supports {found} {noun}"
