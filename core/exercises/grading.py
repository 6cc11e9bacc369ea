"""Grading one answer to one step. Numbers, expressions and choices are graded here, purely;
free text by a language model when one is configured, by a keyword rubric otherwise (and when
the model does not answer or its reply cannot be read).

A grade's `detail` is shown to the student and never contains the expected answer: it says
whether the answer is right and, when it is not, what kind of problem it has (not a number,
the wrong unit, close but outside the tolerance, an expression that cannot be read).

sympy can run for a very long time on an innocent-looking answer, so expressions (and numbers
written as expressions) are checked by a `SymbolicChecker`: in worker processes, with a hard
time limit after which the worker is killed."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

import snowballstemmer
import structlog
import sympy

from core.exercises.definitions import (
    LETTERS,
    ChoiceAnswer,
    FreeTextAnswer,
    NumericAnswer,
    Step,
    SymbolicAnswer,
    normalise_words,
)
from core.exercises.expressions import (
    ExpressionTooLarge,
    UnreadableExpression,
    compare,
    normalise_math,
    prepare_expression,
    read_expression,
    read_number,
    symbol_names,
)
from core.exercises.fair_pool import Fairness, FairPool
from core.exercises.process_pool import JobTimeoutError, KillableProcessPool
from core.llm import ChatModel, LlmUnavailableError
from core.prompts import GRADE_FREE_TEXT_SYSTEM, GRADE_FREE_TEXT_USER

log = structlog.get_logger(__name__)

MAX_ANSWER_CHARS = 2000
MAX_FEEDBACK_CHARS = 500
# A run of this many words of the model answer in the model's feedback gives it away.
_REVEALING_RUN = 6

AnswerSpec = NumericAnswer | SymbolicAnswer | ChoiceAnswer | FreeTextAnswer


@dataclass(frozen=True, slots=True)
class GradeResult:
    """The verdict on one answer. `detail` is addressed to the student; `expected_shown` is
    true only when the detail deliberately states the expected answer (grading never does).
    `undecided` (never with `correct`): the grader could not tell, so the student is shown
    the model answer to compare with and nothing is logged as a mistake."""

    correct: bool
    detail: str
    expected_shown: bool = False
    undecided: bool = False


_TIMED_OUT = "I could not check that expression in time; write it more simply."
# Digits are read one way only (`\d+(?:\.\d*)?`, not `\d+\.?\d*`): a student's 4,000 digits
# and a letter took 0.9 s to refuse, split every way between the two runs.
_PLAIN_NUMBER = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*")


class SymbolicChecker:
    """Grades expressions, and numbers written as expressions, in worker processes: each
    check gets `timeout_s` seconds, then its worker is killed and replaced, so a runaway
    simplification neither holds up the event loop nor keeps a core busy afterwards.

    Create one in the composition root and `close()` it on shutdown; the workers start on the
    first check. The workers are shared fairly among the people whose answers they check
    (`FairPool`: one check per person at a time, people whose answers keep running into the
    limit last). Two answers are checked in process because that is provably as cheap as it
    looks: an expression written exactly as expected (after normalising the symbols), and a
    number written plainly (no sympy involved)."""

    def __init__(
        self,
        *,
        timeout_s: float = 5.0,
        workers: int = 2,
        pool: KillableProcessPool | None = None,
        fairness: Fairness | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self.pool = pool or KillableProcessPool(workers, preload=(__name__,))
        self.queue = FairPool(self.pool, fairness)

    async def check(
        self, answer: SymbolicAnswer | NumericAnswer, text: str, *, person: str | None = None
    ) -> GradeResult:
        """The verdict on `text`; `GradingBusyError` while `person` has another check going."""
        if isinstance(answer, NumericAnswer) and _PLAIN_NUMBER.fullmatch(normalise_math(text)):
            return grade_numeric(answer, text)
        if isinstance(answer, SymbolicAnswer) and normalise_math(text) == normalise_math(
            answer.expression
        ):
            return _EQUIVALENT
        variables = answer.variable_names if isinstance(answer, SymbolicAnswer) else ()
        try:  # the bounds on an expression's shape are text work: no worker is spent on them
            prepare_expression(text, variables)
        except ExpressionTooLarge as error:
            return _too_large(error)
        except UnreadableExpression:
            if isinstance(answer, SymbolicAnswer):  # it stops at the same line, before sympy
                return grade_symbolic(answer, text)
            # A number may still be read from it after its unit: that takes sympy.
        try:
            return await self.queue.run(self.timeout_s, grade_answer, answer, text, owner=person)
        except JobTimeoutError:
            log.warning("expression check timed out", chars=len(text))
            return GradeResult(False, _TIMED_OUT)

    async def close(self) -> None:
        await self.pool.close()

    def warm_up(self) -> None:
        """Starts the worker processes now (in the background) instead of on the first check."""
        self.pool.warm_up()

    async def __aenter__(self) -> SymbolicChecker:
        self.warm_up()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()


class Grader:
    """Grades answers by their step's kind. `model` grades free text; without one, or when it
    fails, the keyword rubric does and the detail says so. Expressions go to `symbolic` (a
    checker of its own when none is given; `close()` stops it)."""

    def __init__(
        self, model: ChatModel | None = None, *, symbolic: SymbolicChecker | None = None
    ) -> None:
        self.model = model
        self._owns_symbolic = symbolic is None
        self.symbolic = symbolic if symbolic is not None else SymbolicChecker()

    async def grade(self, step: Step, text: str, *, person: str | None = None) -> GradeResult:
        """The verdict on `text`; `person` (a user id) shares the expression workers fairly
        with others, and `GradingBusyError` says they have another answer being checked."""
        answer = step.answer
        refused = _refuse(text)
        if refused is not None:
            return refused
        if isinstance(answer, SymbolicAnswer | NumericAnswer):
            return await self.symbolic.check(answer, text, person=person)
        if isinstance(answer, FreeTextAnswer) and self.model is not None:
            return await self._grade_with_model(step, answer, text)
        return grade_answer(answer, text)

    async def close(self) -> None:
        """Stops the expression checker if this grader made it."""
        if self._owns_symbolic:
            await self.symbolic.close()

    async def _grade_with_model(self, step: Step, answer: FreeTextAnswer, text: str) -> GradeResult:
        assert self.model is not None
        user = GRADE_FREE_TEXT_USER.format(
            prompt=step.prompt,
            model_answer=answer.model_answer,
            rubric="\n".join(f"- {point}" for point in answer.rubric),
            answer=text.replace("<<<", "‹‹‹").replace(">>>", "›››"),
        )
        try:
            reply = await self.model.complete(GRADE_FREE_TEXT_SYSTEM, user)
        except LlmUnavailableError:
            return _keyword_fallback(answer, text, "the grading model did not answer")
        verdict = parse_verdict(reply)
        if verdict is None:
            log.warning("unreadable grading reply", model=self.model.name, chars=len(reply))
            return _keyword_fallback(answer, text, "the grading model's reply could not be read")
        correct, feedback = verdict
        return GradeResult(correct, _safe_feedback(feedback, answer, correct))


def grade_answer(answer: AnswerSpec, text: str) -> GradeResult:
    """Any kind, synchronously; free text by the keyword rubric."""
    refused = _refuse(text)
    if refused is not None:
        return refused
    if isinstance(answer, NumericAnswer):
        return grade_numeric(answer, text)
    if isinstance(answer, SymbolicAnswer):
        return grade_symbolic(answer, text)
    if isinstance(answer, ChoiceAnswer):
        return grade_choice(answer, text)
    return grade_keywords(answer, text)


def _refuse(text: str) -> GradeResult | None:
    if not text.strip():
        return GradeResult(False, "Your answer is empty.")
    if len(text) > MAX_ANSWER_CHARS:
        return GradeResult(
            False, f"Your answer is too long: keep it under {MAX_ANSWER_CHARS} characters."
        )
    return None


# Numbers ---------------------------------------------------------------------------------

_NUMBER_THEN_UNIT = re.compile(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S.*?)\s*$")


def grade_numeric(answer: NumericAnswer, text: str) -> GradeResult:
    number, unit_problem = _read_with_unit(text, answer.unit)
    if unit_problem:
        return GradeResult(False, unit_problem)
    if number is None:
        example = "like 2.5, -3 or 3/2" + (
            ", optionally followed by the unit" if answer.unit else ""
        )
        return GradeResult(
            False, f"I could not read a number in your answer: write just the number, {example}."
        )
    if answer.accepts(number):
        return GradeResult(True, "Correct.")
    error = abs(number - answer.value)
    if error <= max(10 * answer.allowed_error(), 0.02 * abs(answer.value)):
        return GradeResult(
            False,
            "Close, but not within the accepted precision: check your arithmetic and rounding.",
        )
    return GradeResult(False, "Not quite: that number is not right.")


def _read_with_unit(text: str, unit: str | None) -> tuple[float | None, str]:
    """The number, and a problem with the unit to tell the student (empty when none)."""
    if unit:
        key, unit_key = _unit_key(text), _unit_key(unit)
        if key.endswith(unit_key) and len(key) > len(unit_key):
            try:
                return read_number(key[: -len(unit_key)]), ""
            except UnreadableExpression:
                return None, ""
    try:
        return read_number(text), ""
    except UnreadableExpression:
        pass
    match = _NUMBER_THEN_UNIT.fullmatch(normalise_math(text))
    if match and re.search(r"[^\W\d_]|[%°]", match.group(2)):
        if unit:
            return None, f"The unit '{match.group(2)}' is not the unit this step asks for."
        return None, "This step asks for a plain number, without a unit."
    return None, ""


def _unit_key(text: str) -> str:
    return re.sub(r"[\s*]+", "", normalise_math(text).replace("**", "^"))


# Expressions -----------------------------------------------------------------------------


_EQUIVALENT = GradeResult(True, "Correct: your expression is equivalent to the expected one.")


@lru_cache(maxsize=256)
def _expected(expression: str, variables: tuple[str, ...]) -> sympy.Expr:
    return read_expression(expression, variables)


def _too_large(error: ExpressionTooLarge) -> GradeResult:
    return GradeResult(
        False, f"Your expression is too large to check: {error}. Write it more simply."
    )


def grade_symbolic(answer: SymbolicAnswer, text: str) -> GradeResult:
    variables = answer.variable_names
    try:
        given = read_expression(text, variables)
    except ExpressionTooLarge as error:
        return _too_large(error)
    except UnreadableExpression as error:
        return GradeResult(
            False,
            f"I could not read your expression: {error}. Write it like 2x+2, x^2+1 or sin(x)/x.",
        )
    unexpected = sorted(symbol_names(given) - set(variables))
    if unexpected:
        about = ", ".join(variables) if variables else "no variables"
        return GradeResult(
            False, f"Your expression uses {', '.join(unexpected)}, but this step is about {about}."
        )
    expected = _expected(answer.expression, answer.variables or ())
    if compare(expected, given).equivalent:
        return _EQUIVALENT
    return GradeResult(False, "Not quite: your expression is not equivalent to the expected one.")


# Choices ---------------------------------------------------------------------------------

_CHOICE_PREFIX = re.compile(r"^(?:(?:the\s+)?(?:answer|option|choice)(?:\s+is)?\s*:?\s*)")
_SEPARATORS = re.compile(r"\s*(?:,|;|&|/|\band\b|\s)\s*")


def grade_choice(answer: ChoiceAnswer, text: str) -> GradeResult:
    chosen = read_choice(text, answer.options)
    count = len(answer.options)
    if chosen is None:
        return GradeResult(
            False,
            "I could not match your answer to an option: answer with a letter "
            f"(A to {LETTERS[count - 1]}), a number (1 to {count}) or the option's text.",
        )
    expected = set(answer.correct)
    if chosen == expected:
        return GradeResult(True, "Correct.")
    if len(expected) == 1 and len(chosen) > 1:
        return GradeResult(False, "Pick just one option.")
    if len(expected) > 1 and chosen < expected:
        return GradeResult(
            False, "Your choices are right but incomplete: more options are correct."
        )
    if len(expected) > 1:
        return GradeResult(False, "Not quite: at least one of your choices is wrong.")
    return GradeResult(False, "Not quite: that is not the right option.")


def read_choice(text: str, options: tuple[str, ...]) -> set[int] | None:
    """The options named by `text` (indices from 0): by their text (case and spacing ignored),
    or by letters or numbers counted from 1 (`B`, `2`, `a and c`, `1, 3`). None when the text
    names no option or something that is not one."""
    said = normalise_words(text).strip(" .!()'\"")
    said = _CHOICE_PREFIX.sub("", said).strip(" .!()")
    texts = {normalise_words(option).strip(" ."): index for index, option in enumerate(options)}
    if said in texts:
        return {texts[said]}
    tokens = [token.strip(".()") for token in _SEPARATORS.split(said) if token.strip(".()")]
    picked: set[int] = set()
    for token in tokens:
        index = _option_index(token, len(options))
        if index is None:
            break
        picked.add(index)
    else:
        if picked:
            return picked
    parts = [
        normalise_words(part).strip(" .") for part in re.split(r"[,;]|\band\b", text.casefold())
    ]
    if parts and all(part in texts for part in parts):
        return {texts[part] for part in parts}
    return _option_containing(said, options)


def _option_containing(said: str, options: tuple[str, ...]) -> set[int] | None:
    """The one option whose text contains the answer's words in order ("0/0" names
    "0/0, an indeterminate form"); None when none or several do."""
    wanted = _option_words(said)
    if not wanted:
        return None
    size = len(wanted)
    found = {
        index
        for index, option in enumerate(options)
        if any(
            words[start : start + size] == wanted
            for words in [_option_words(normalise_words(option))]
            for start in range(len(words) - size + 1)
        )
    }
    return found if len(found) == 1 else None


def _option_words(text: str) -> list[str]:
    return [word for word in (w.strip(".()") for w in text.split()) if word]


def _option_index(token: str, count: int) -> int | None:
    if len(token) == 1 and token.isalpha():
        index = ord(token.upper()) - ord("A")
        return index if 0 <= index < count else None
    if token.isdigit():
        index = int(token) - 1
        return index if 0 <= index < count else None
    return None


# Free text -------------------------------------------------------------------------------

_STEMMER = snowballstemmer.stemmer("english")
# How many other words may sit between the words of a keyword phrase.
_PHRASE_GAP = 2
# Words that deny what follows them, up to the end of the clause or a few words on.
_NEGATIONS = frozenset(
    {"not", "no", "never", "without", "nothing", "neither", "nor", "none", "nobody", "nowhere"}
)
_NEGATION_REACH = 5
# Where a negation's reach ends: punctuation, and words that start a new clause.
_CLAUSE_BREAKS = frozenset(
    {"but", "and", "or", "then", "because", "so", "since", "while", "however", "instead",
     "though", "although", "yet"}
)  # fmt: skip
_TOKEN = re.compile(r"\w+|[.,;:!?()]")
_CONTRACTED_NOT = re.compile(r"(?<=\w)n['’]t\b|\bcannot\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Word:
    stem: str
    denied: bool  # within the reach of a negation before it


def _stems(text: str) -> list[str]:
    return [word.stem for word in _words(text)]


def _words(text: str) -> list[_Word]:
    """The text's words as stems, each marked when a negation before it in its clause denies
    it ("do not cancel", "never factor", "shouldn't divide")."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _CONTRACTED_NOT.sub(lambda m: " can not" if m.group() == "cannot" else " not", text)
    words: list[_Word] = []
    reach = 0
    for token in _TOKEN.findall(text):
        if not token[0].isalnum() and token[0] != "_":
            reach = 0
            continue
        if token in _NEGATIONS:
            reach = _NEGATION_REACH
            continue
        if token in _CLAUSE_BREAKS:
            reach = 0
        words.append(_Word(_STEMMER.stemWord(token), reach > 0))
        reach = max(0, reach - 1)
    return words


def _same_word(wanted: str, word: str) -> bool:
    # Stems of derived forms differ ("factor", "factoris"): a longer stem may extend a keyword's.
    return word == wanted or (len(wanted) >= 4 and word.startswith(wanted))


def _phrase_spans(phrase: list[str], words: list[str]) -> list[tuple[int, int]]:
    """Where the phrase's words occur in order, at most `_PHRASE_GAP` others between them."""
    spans: list[tuple[int, int]] = []
    if not phrase:
        return spans
    for start, word in enumerate(words):
        if not _same_word(phrase[0], word):
            continue
        position = start
        for wanted in phrase[1:]:
            window = words[position + 1 : position + 2 + _PHRASE_GAP]
            found = next((i for i, w in enumerate(window) if _same_word(wanted, w)), None)
            if found is None:
                break
            position += 1 + found
        else:
            spans.append((start, position + 1))
    return spans


def _phrase_found(phrase: list[str], words: list[str]) -> bool:
    return bool(_phrase_spans(phrase, words))


class _Point(StrEnum):
    MADE = "made"
    DENIED = "denied"  # said the other way round from the model answer
    ABSENT = "absent"


def _polarities(synonyms: tuple[str, ...], words: list[_Word]) -> set[bool]:
    """Whether each mention of the keyword group is denied (True) or affirmed (False)."""
    stems = [word.stem for word in words]
    found: set[bool] = set()
    for synonym in synonyms:
        for start, end in _phrase_spans(_stems(synonym), stems):
            found.add(any(word.denied for word in words[start:end]))
    return found


def _point(synonyms: tuple[str, ...], answer: list[_Word], model: list[_Word]) -> _Point:
    """How the answer treats one key point: made as the model answer makes it (affirmed,
    or denied where the model answer denies it: "you cannot substitute"), said the other way
    round, or not mentioned."""
    said = _polarities(synonyms, answer)
    if not said:
        return _Point.ABSENT
    expected = _polarities(synonyms, model)
    denied_by_model = expected == {True}
    if denied_by_model in said:
        return _Point.MADE
    return _Point.DENIED


def grade_keywords(answer: FreeTextAnswer, text: str) -> GradeResult:
    """The keyword rubric: enough of the keyword groups (any synonym of a group counts, words
    compared by their stems, a phrase's words in order with at most two others between),
    each said the way the model answer says it. It decides only what key terms can decide:
    all points made is right, none mentioned is wrong; a point denied ("do not factor") or
    only some points made is undecided, and the student compares with the model answer."""
    words, model = _words(text), _words(answer.model_answer)
    points = [_point(synonyms, words, model) for synonyms in answer.keywords]
    made, denied = points.count(_Point.MADE), points.count(_Point.DENIED)
    needed = answer.required_keywords
    if denied:
        return GradeResult(
            False,
            "I cannot tell whether that is right: your answer seems to deny "
            f"{'a key point' if denied == 1 else f'{denied} key points'}.",
            undecided=True,
        )
    if made >= needed:
        return GradeResult(True, "Correct: your answer makes the key points.")
    if made:
        return GradeResult(
            False,
            f"I cannot tell whether that is right: I found {made} of the {needed} key points "
            "by the words I look for.",
            undecided=True,
        )
    return GradeResult(False, "Not quite: your answer does not make the key points yet.")


def _keyword_fallback(answer: FreeTextAnswer, text: str, why: str) -> GradeResult:
    result = grade_keywords(answer, text)
    return replace(result, detail=f"{result.detail} (Checked for key terms only: {why}.)")


def parse_verdict(reply: str) -> tuple[bool, str] | None:
    """`(correct, feedback)` from the grading model's reply: the first JSON object with a
    `correct` field, even inside a code fence or surrounded by prose. None when there is none."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", reply):
        try:
            value, _ = decoder.raw_decode(reply, match.start())
        except json.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        fields = {str(key).strip().lower(): item for key, item in value.items()}
        correct = _as_bool(fields.get("correct"))
        if correct is None:
            continue
        feedback = fields.get("feedback", "")
        return correct, feedback if isinstance(feedback, str) else ""
    return None


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "correct"):
            return True
        if word in ("false", "no", "incorrect"):
            return False
    return None


def _safe_feedback(feedback: str, answer: FreeTextAnswer, correct: bool) -> str:
    """The model's feedback, short, and replaced when a wrong answer's feedback would give the
    model answer away."""
    text = " ".join(feedback.split())
    if len(text) > MAX_FEEDBACK_CHARS:
        text = text[:MAX_FEEDBACK_CHARS].rsplit(" ", 1)[0] + "…"
    if correct:
        return text or "Correct."
    if not text or _gives_away(text, answer.model_answer):
        return "Not quite yet: look at the question again and check each step of your reasoning."
    return text


def _gives_away(feedback: str, model_answer: str) -> bool:
    said = f" {normalise_words(feedback)} "
    words = normalise_words(model_answer).split()
    if len(words) <= _REVEALING_RUN:
        return f" {' '.join(words)} " in said
    return any(
        f" {' '.join(words[start : start + _REVEALING_RUN])} " in said
        for start in range(len(words) - _REVEALING_RUN + 1)
    )
