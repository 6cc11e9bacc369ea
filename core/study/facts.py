"""Facts found in a chunk's text without a model: definitions ("X is a ...", "X: ...",
"X means ..."), formulas ("lhs = rhs"), table rows (`| a | b |`) and key terms (a section's
title with its first sentence). Each fact is a cue and an answer, with the sentence it was
read from and a `group`: facts of one group are the same kind of thing, so their answers are
each other's distractors."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.index import ChunkRecord
from core.index.chunk_index import GUIDED_EXERCISE_KIND
from core.replies import SECTION_SEPARATOR
from core.retrieval import GENERAL_KIND
from core.study.checks import normalise
from core.study.readable_math import readable
from core.text import names_a_file, split_sentences


class FactKind(StrEnum):
    DEFINITION = "definition"
    FORMULA = "formula"
    TABLE = "table"
    KEY_TERM = "key_term"
    # A sentence of the material naming one of the course's terms: the term is its blank.
    CLOZE = "cloze"


@dataclass(frozen=True, slots=True)
class Fact:
    """`term` is what a card asks about (a defined term, a section's title, a formula's left
    side, a table row's label) and `answer` what it answers (the definition, the right side,
    the cell); `sentence` is the text both were read from."""

    kind: FactKind
    term: str
    answer: str
    sentence: str
    group: str
    chunk: ChunkRecord
    # A table cell: the row's label and the column's header, the table's context.
    column: str = ""
    context: str = ""


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Functions and words that occur in formulas; any other word of four letters or more means
# prose, not a formula.
_MATH_WORDS = _word_set(
    "sin cos tan cot sec csc exp log ln sqrt lim inf max min sum prod det arcsin arccos "
    "arctan sinh cosh tanh mod gcd lcm dx dy dt du dv"
)
_MATH_CHARS = re.compile(r"[=^*/()+\-<>'|_{}\[\]]|\d")
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")
_EQUALS = re.compile(r"(?<![!<>=:])=(?![=>])")
# Where a formula's right side stops and prose about it starts.
_QUALIFIER = re.compile(
    r",\s|;\s|\s(for|if|when|whenever|wherever|where|with|provided|so|which|gives|as|since"
    r"|because|and then)\s",
    re.IGNORECASE,
)
# A bare name, or a name applied to a bare argument: f(x), f'(2), y, u'. Such a left side
# means something only next to its example ("f'(x) = 2x" of which f?).
_CONTEXT_BOUND = re.compile(r"^[A-Za-z]\w?'*(\([^()]{0,6}\))?'*$")
# Labels that introduce something rather than name it: "Example: ...", "Step 1: ...".
_GENERIC_LABEL_WORDS = _word_set(
    "example examples e.g eg note notes hint hints tip tips step check aid remember "
    "warning practice answer answers solution solutions problem problems next reading "
    "simplify substitute here then so fact facts special see source figure table question "
    "questions combine use recall compare try find compute write evaluate differentiate "
    "give factor expand apply summary aside below above idea foreshadowing normally update "
    "caveat intuition input output learning evaluation overview motivation"
)
_PRONOUNS = _word_set(
    "it this that these those they there he she we you i which what who each both all "
    "some such one here"
)
_LABEL = re.compile(r"^(?P<label>[A-Za-z][^:=]{0,59}?):\s+(?P<rest>\S.*)$")
_COPULA = re.compile(
    r"^(?P<term>[A-Za-z][\w\s'’()\-/,.]{1,60}?)\s+"
    r"(?P<verb>is defined as|are defined as|is called|means|refers to|denotes|stands for"
    r"|is|are)\s+(?P<rest>\S.*)$"
)
# What makes a definition's answer an equation rather than a list of numbers.
_EQUATION = re.compile(r"[=^'/]|\w\(")
_ARTICLE = re.compile(r"^(a|an|the)\s", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SEPARATOR_ROW = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_EMPTY_CELL = frozenset({"", "-", "—", "–", "n/a", "na", "none", "tba", "tbd"})
# Sections whose name is no term to learn (a list of where the slides are is logistics).
_GENERIC_SECTIONS = re.compile(
    r"^(summary|introduction|overview|contents|outline|agenda|recap|review|references"
    r"|appendix|(course\s+)?(materials|resources|readings)"
    r"|(lecture|chapter|week|unit|part|session|exercise|problem|module)\b.*)$",
    re.IGNORECASE,
)

MAX_TERM_WORDS = 6
MAX_ANSWER_CHARS = 250
MAX_FORMULA_SIDE_CHARS = 80


def is_formula(text: str) -> bool:
    """Mostly symbols: some operator, bracket or digit, and no prose word."""
    text = text.strip("` ")
    if not text or not _MATH_CHARS.search(text):
        return False
    # LaTeX's commands (\\frac, \\mathbf, \\operatorname{softmax}) are math, not prose.
    text = _LATEX_COMMAND.sub(" ", text)
    return all(w.lower() in _MATH_WORDS for w in _LONG_WORD.findall(text))


_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+(?:\{[A-Za-z]+\})?")


def facts_in(chunk: ChunkRecord, glossary: Sequence[str] = ()) -> list[Fact]:
    """The chunk's facts in reading order, at most one per sentence; with a `glossary` (the
    course's terms), sentences naming one of them are cloze facts too. A guided exercise's
    chunk gives none: its text is a statement to solve, and quizzing it gives answers away."""
    found: list[Fact] = []
    if chunk.kind == GUIDED_EXERCISE_KIND:
        return found
    used: set[str] = set()
    lines = _Lines(chunk.text)
    for raw in lines.sentences:
        sentence = plain(raw)
        if _CODE_LINE.search(raw) or "](" in sentence or _REFERENCE.search(raw):
            continue  # code, or a figure's broken link, is no sentence to learn from
        fact = (
            _emphasised(raw, sentence, chunk)
            or _definition(sentence, chunk)
            or _formula(sentence, chunk)
        )
        if fact is not None and normalise(fact.sentence) not in used:
            used.add(normalise(fact.sentence))
            found.append(fact)
    clozes = 0
    for raw in lines.sentences if glossary else ():
        sentence = plain(raw)
        if clozes >= MAX_CLOZES_PER_CHUNK or normalise(sentence) in used:
            continue
        fact = _cloze_fact(raw, sentence, glossary, chunk)
        if fact is not None:
            used.add(normalise(sentence))
            found.append(fact)
            clozes += 1
    for table in lines.tables:
        found.extend(_table_facts(table, chunk))
    key_term = _key_term(lines.sentences, chunk)
    if key_term is not None and normalise(key_term.sentence) not in used:
        found.append(key_term)
    return found


# --- reading the text -----------------------------------------------------------------------

# Sentences of code (d2l's `#@tab` cells, Python in a Markdown file), or of markup only.
_CODE_LINE = re.compile(
    r"\bdef \w+\(|\breturn\b|\bself\.|^\s*(?:import|from)\s\w|\b(?:np|torch|tf|jnp|nn|d2l)\.\w"
    r"|%%tab|#@|\w+\[[^\]]*\]\s*=|==|!=|\blambda\b|</?\w+[^>]*>"
)
_MARKUP = (
    (re.compile(r":(?:cite|citep|label|eqref|numref|ref|width):`?[^\s`]*`?"), ""),
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # a link: its text
    # A book's highlight in brackets (d2l's "(**...**)" and "[**...**]"): its words alone.
    (
        re.compile(
            r"\[(\*{1,2})(?=\S)([^\]\n]+?)(?<=\S)\1\]|\((\*{1,2})(?=\S)([^)\n]+?)(?<=\S)\3\)"
        ),
        lambda match: match[2] or match[4],
    ),
    (re.compile(r"\*{1,2}([^*\n]+?)\*{1,2}"), r"\1"),  # emphasis
    (re.compile(r"\s+"), " "),
)


# A cross-reference ("In :numref:`sec_linear` we ...") or a citation standing for its
# authors (":citet:`Bishop.1995` formalized ...") leaves a hole once removed; a tab marker
# (":begin_tab:`jax`") opens a note on one framework's code.
_REFERENCE = re.compile(r":(?:numref|ref|eqref|citet|begin_tab|end_tab):")


def plain(text: str) -> str:
    """A sentence without Markdown markup: emphasis, links, d2l's labels and citations."""
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return text.strip()


class _Lines:
    """A chunk's prose sentences (PDF line wraps joined, list items and `;` clauses apart)
    and its pipe tables."""

    def __init__(self, text: str) -> None:
        self.sentences: list[str] = []
        self.tables: list[list[list[str]]] = []
        for paragraph in re.split(r"\n\s*\n", text):
            self._read(paragraph)

    def _read(self, paragraph: str) -> None:
        prose: list[str] = []
        table: list[list[str]] = []
        for raw in paragraph.splitlines():
            line = raw.strip()
            if line.startswith("|"):
                if not _SEPARATOR_ROW.match(line):
                    table.append([" ".join(c.split()) for c in line.strip("|").split("|")])
                continue
            if table:
                self.tables.append(table)
                table = []
            if _BULLET.match(line):
                self._add(" ".join(prose))
                prose = [_BULLET.sub("", line)]
            elif line:
                prose.append(line)
        self._add(" ".join(prose))
        if table:
            self.tables.append(table)

    def _add(self, text: str) -> None:
        text = text.replace("`", "").strip()
        for sentence in split_sentences(text):
            self.sentences.extend(s.strip() for s in sentence.split("; ") if s.strip())


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" .;,")


def _words(text: str) -> list[str]:
    return text.split()


# --- definitions ---------------------------------------------------------------------------


def _definition(sentence: str, chunk: ChunkRecord) -> Fact | None:
    labelled = _LABEL.match(sentence)
    if labelled:
        label, rest = _clean(labelled["label"]), _clean(labelled["rest"])
        if _generic_label(label):
            return None  # "Example: d/dx ..." is left for the formula reader
        opener = rest.split()[0].lower().strip(",.")
        if opener in _PRONOUNS or opener in _POSSESSIVES or opener in _CONNECTIVES:
            return None  # "Input: Our input consists of ..." describes, it does not define
        if len(_words(rest)) < 4 and not is_formula(rest):
            return None  # "Practical issues: Numeric stability" is a heading, not a definition
        if _good_term(label) and 1 <= len(rest) <= MAX_ANSWER_CHARS and not rest.endswith(":"):
            return _make_definition(label, rest, sentence, chunk)
        return None
    copula = _COPULA.match(sentence)
    if copula is None:
        return None
    term, verb, rest = _clean(copula["term"]), copula["verb"], _clean(copula["rest"])
    term = re.sub(r"^(the|a|an)\s+", "", term, flags=re.IGNORECASE)
    rest = _QUALIFIER_CUT.split(rest, maxsplit=1)[0].strip(" .,;")
    if not _good_term(term) or not rest or len(rest) > MAX_ANSWER_CHARS:
        return None
    if len(_words(rest)) < 4 and not is_formula(rest):
        return None  # "RMSprop is a very effective": a remark cut short, not a definition
    if rest.lower().startswith(("not ", "no ", "never ")):
        return None  # "X is NOT Y" defines nothing
    if verb in ("is", "are"):
        # Only "is a/an/the ..." or "is <formula>" define ("are in charge of", "are
        # currently the state of the art" describe).
        defines = _ARTICLE.match(rest) or is_formula(rest)
        if not defines:
            return None
    return _make_definition(term, rest, sentence, chunk)


_QUALIFIER_CUT = re.compile(r",\s+(so|which|and so|but)\s|;\s")
_ADJECTIVE_START = re.compile(r"^(expected|required|allowed|due|not|also|only|very)\b", re.I)


def _make_definition(term: str, answer: str, sentence: str, chunk: ChunkRecord) -> Fact | None:
    if _bound_to_example(answer) or names_a_file(answer):
        return None
    core = _QUALIFIER.split(answer, maxsplit=1)[0]
    # Rules beside rules, policies beside policies: "Product rule" is no distractor for
    # "Letter grades".
    shape = "formula" if is_formula(core) and _EQUATION.search(core) else "text"
    where = "syllabus" if chunk.kind == GENERAL_KIND else "content"
    return Fact(FactKind.DEFINITION, term, answer, sentence, f"definition:{shape}:{where}", chunk)


def _bound_to_example(answer: str) -> bool:
    """An answer that holds only inside its worked example: a bare number ("The limit is
    1/2"), or an equation about the example's own f, y or f'(2) with its numbers in it
    ("y = 9 + 6(x - 3)"); "y = f(a) + f'(a)(x - a)" is general and stays."""
    if re.fullmatch(r"[-+]?[\d\s./^()]+", answer):
        return True
    sides = _EQUALS.split(answer)
    if len(sides) < 2:
        return False
    lhs = _strip_connective(sides[0])
    numbers = re.sub(r"\^\(?-?\d+\)?", "", "=".join(sides[1:]))  # exponents are not data
    return _context_bound(lhs) and bool(re.search(r"\d", numbers))


def _strip_connective(text: str) -> str:
    return re.sub(r"^(so|then|thus|hence|here|and|i\.e\.)\s+", "", text.strip(), flags=re.I)


def _context_bound(lhs: str) -> bool:
    compact = lhs.replace(" ", "")
    return bool(_CONTEXT_BOUND.match(compact) or re.fullmatch(r"d\w?/d\w", compact))


def _generic_label(label: str) -> bool:
    first = label.split()[0].lower().strip(".")
    label_words = {w.lower().strip(".") for w in label.split()}
    return first in _GENERIC_LABEL_WORDS or bool(label_words & _GENERIC_LABEL_WORDS)


def _good_term(term: str) -> bool:
    """A name: one to six words, starting with a letter, mostly words; no pronoun, no
    connective first ("Now we", "For vectors, this is straightforward" are sentence
    fragments), no code or markup."""
    parts = _words(term)
    if not 1 <= len(parts) <= MAX_TERM_WORDS or not term[0].isalpha():
        return False
    lowered = [p.lower().strip(".,") for p in parts]
    if any(word in _PRONOUNS for word in lowered) or lowered[0] in _CONNECTIVES:
        return False
    if _NOT_IN_TERMS.search(term) or lowered[-1] in _DANGLING_LAST:
        return False
    return bool(re.search(r"[A-Za-z]{3,}", term)) and not is_formula(term)


# Words that open a clause, not a name.
_CONNECTIVES = _word_set(
    "now however because for thus even after to note at recall actually consequently in on "
    "so then also here when if while since although though as hence therefore instead another "
    "moreover furthermore finally first second again still yet but and or def return import "
    "class from let suppose below above tldr assume given like unlike just only most many "
    "much more less "
    "other such every any no not why how where whether once indeed clearly obviously"
)
_POSSESSIVES = _word_set("our your their its my his her")
# ("a" may end a term: "Tangent line at a".)
_DANGLING_LAST = _word_set("of to in on at by for from with and or the an that than as")
_NOT_IN_TERMS = re.compile(r"[,()*$\\\[\]`=_{}<>|#%:;]")


# --- terms set in emphasis -------------------------------------------------------------------

_EMPHASIS = re.compile(r"(?<![\w*])\*{1,2}([A-Za-z][^*\n]{1,50}?)\*{1,2}(?![\w*])")
# A sentence that names what its emphasised term is: "... is called a *label*", "the
# *cross-entropy* ... is defined as", "*dropout* ... drops out neurons".
_DEFINING = re.compile(
    r"\b(?:is called|are called|also called|(?:also )?known as|referred to as|we call|called|"
    r"termed|dubbed|is defined as|are defined as|refers to|denotes|is an?|are|is the|means)\b",
    re.IGNORECASE,
)
MIN_SENTENCE_WORDS = 6
MAX_SENTENCE_WORDS = 45
MAX_CLOZES_PER_CHUNK = 3


_NAMING = re.compile(
    r"\b(?:is called|are called|also called|(?:also )?known as|referred to as|we call|called|"
    r"termed|dubbed|the term)\s+(?:an?\s+|the\s+)?$",
    re.IGNORECASE,
)
# The term opens the sentence ("The *cross-entropy* between ... is defined as").
_OPENING = re.compile(r"^(?:(?:the|a|an|in|this|these)\s+)?$", re.IGNORECASE)


def _emphasised(raw: str, sentence: str, chunk: ChunkRecord) -> Fact | None:
    """A term the material sets in emphasis where the sentence names it ("... is called a
    *label*") or opens with it and says what it is ("*Dropout* is ..."): the term, and the
    sentence as its definition."""
    if not _DEFINING.search(sentence) or not _sentence_sized(sentence):
        return None
    for match in _EMPHASIS.finditer(raw):
        term = _clean(match[1])
        if not _good_term(term) or _modifier(term) or len(_words(term)) > 4:
            continue
        before = plain(raw[: match.start()])
        named = _NAMING.search(before + " ") or _NAMING.search(before)
        opens = _OPENING.match(before) and _DEFINING.search(raw[match.end() :])
        if named or opens:
            return Fact(
                FactKind.DEFINITION, term, sentence, sentence, "definition:text:content", chunk
            )
    return None


def emphasised_terms(text: str) -> list[str]:
    """The terms a text sets in emphasis that could be a card's front."""
    return [
        term
        for match in _EMPHASIS.finditer(text)
        if _good_term(term := _clean(match[1])) and not _modifier(term)
    ]


def named_terms(text: str) -> list[str]:
    """The terms a text sets in emphasis that name a concept: two to four words with no
    function word ("*average pooling*", "*symmetry breaking*"), or one word written as a
    name ("*ReLU*", "*LeNet*"). A single lowercase word is as often stress ("*can*",
    "*exactly*") as a term, and a phrase with a verb ("*inspect the model*") is an aside."""
    found = []
    for term in emphasised_terms(text):
        parts = [part.lower() for part in _words(term)]
        if len(parts) == 1:
            if re.search(r"[a-z][A-Z]|^[A-Z]{2,}", term):
                found.append(term)
        elif len(parts) <= 4 and not any(part in _FUNCTION_WORDS for part in parts):
            found.append(term)
    return found


_FUNCTION_WORDS = _word_set(
    "a an the of to in on at by for from with and or but nor as than that this these those "
    "is are was were be been can could may might must should will would do does did not no "
    "it its we you they our your their how why what when where which who very much more most "
    "less quite too so all any some only just"
)


def _modifier(term: str) -> bool:
    """A single lowercase word that qualifies or acts ("unbiased", "debiases",
    "analytically"): set in emphasis for stress, not a term to learn."""
    return " " not in term and term.islower() and term.endswith(("ed", "ly", "es"))


def _sentence_sized(sentence: str) -> bool:
    count = len(_words(sentence))
    return MIN_SENTENCE_WORDS <= count <= MAX_SENTENCE_WORDS and len(sentence) <= MAX_ANSWER_CHARS


def _cloze_fact(
    raw: str, sentence: str, glossary: Sequence[str], chunk: ChunkRecord
) -> Fact | None:
    """A sentence naming one of the course's terms (whole words), the term its blank; not
    one that is mostly math, a question, a task (an exercise section's "Implement ...") or
    a remark on code ("In the following lines of code, we pass X through ...")."""
    if _CODE_LINE.search(raw) or _REFERENCE.search(raw) or sentence.endswith("?"):
        return None
    if not _sentence_sized(sentence) or _ON_CODE.search(sentence) or _LEANING.search(sentence):
        return None
    if _EXERCISES.match(leaf_section(chunk.section)):
        return None
    if "$" in sentence or "\\(" in sentence or sentence.count("\\") > 1 or "](" in raw:
        return None
    for term in glossary:
        found = list(re.finditer(rf"\b{re.escape(term)}\b", sentence, re.IGNORECASE))
        # A term inside a longer word ("max-pooling", "LeNet-5") blanks half a word.
        if found and not any(_joined(sentence, m.start(), m.end()) for m in found):
            return Fact(FactKind.CLOZE, term, sentence, sentence, "definition:text:content", chunk)
    return None


_ON_CODE = re.compile(
    r"\b(?:code|API|APIs|constructor|arguments?|snippet|framework|frameworks)\b"
    # A code name ("weight_decay", "net.weight") or a code comment ("p = 0.5 # keep ...").
    r"|\b[a-z]\w*_\w+|\b[a-z]\w*\.[a-z_]\w+|\s#\s",
    re.IGNORECASE,
)
# A sentence pointing at what surrounds it ("The derivative is plotted below.", "... is
# given by the following equation:") is no statement a student can complete alone.
_LEANING = re.compile(r"\b(?:below|above|following|former|latter)\b|:$", re.IGNORECASE)
_EXERCISES = re.compile(r"^(?:exercises?|problems?|homework)\b", re.IGNORECASE)


def _joined(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is hyphenated to a neighbouring word."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return before == "-" or after == "-"


# --- formulas -----------------------------------------------------------------------------


def _formula(sentence: str, chunk: ChunkRecord) -> Fact | None:
    text = sentence
    labelled = _LABEL.match(text)
    if labelled and _generic_label(labelled["label"]):
        text = labelled["rest"]  # "Example: d/dx (4x^3) = 12x^2" -> the formula
    sides = _EQUALS.split(text)
    if len(sides) < 2:
        return None
    lhs = _unmarked(_strip_connective(sides[0]))
    rhs = _unmarked(_QUALIFIER.split(sides[-1], maxsplit=1)[0].strip(" .,;"))
    if not (is_formula(lhs) and is_formula(rhs)):
        return None
    # LaTeX as a chat shows it; a formula that does not read plainly is left out.
    shown_lhs, shown_rhs = readable(lhs), readable(rhs)
    if shown_lhs is None or shown_rhs is None:
        return None
    lhs, rhs = shown_lhs, shown_rhs
    if not (is_formula(lhs) and is_formula(rhs)):
        return None
    if _context_bound(lhs) or len(normalise(lhs)) < 5 or re.fullmatch(r"[-+]?[\d.]+", rhs):
        return None
    if len(lhs) > MAX_FORMULA_SIDE_CHARS or len(rhs) > MAX_FORMULA_SIDE_CHARS:
        return None
    if normalise(lhs) == normalise(rhs):
        return None
    return Fact(FactKind.FORMULA, lhs, rhs, sentence, "formula", chunk)


_MATH_MARKS = re.compile(r"^(?:\$\$?|\\\\?\(|\\\\?\[)\s*|\s*(?:\$\$?|\\\\?\)|\\\\?\])$")


def _unmarked(side: str) -> str:
    """A formula's side without the math marks around it (`$$ f(x) `, `\\(W_2`)."""
    previous = None
    while previous != side:
        previous, side = side, _MATH_MARKS.sub("", side.strip()).strip(" .,;")
    return side


# --- tables ----------------------------------------------------------------------------------


def _table_facts(rows: list[list[str]], chunk: ChunkRecord) -> Iterator[Fact]:
    """A cell per row and column beside the first: "Homework" x "Weight" -> "20%"."""
    if len(rows) < 2:
        return
    header, body = rows[0], rows[1:]
    context = leaf_section(chunk.section) or chunk.file_name
    for row in body:
        if len(row) < 2 or not row[0]:
            continue
        label = row[0]
        if label[0].isdigit() and header[0]:
            label = f"{header[0]} {label}"  # "1 (Sep 14)" -> "Week 1 (Sep 14)"
        for column in range(1, min(len(row), len(header))):
            value, name = row[column], header[column]
            if value.lower() in _EMPTY_CELL or not name:
                continue
            if len(value) > MAX_ANSWER_CHARS:
                continue
            line = "| " + " | ".join(header) + " |\n| " + " | ".join(row) + " |"
            # One group per table column: its other rows are the distractors.
            group = f"table:{chunk.document_id}:{normalise(' '.join(header))}:{column}"
            yield Fact(
                FactKind.TABLE, label, value, line, group, chunk, column=name, context=context
            )


# --- key terms -----------------------------------------------------------------------------


def _key_term(sentences: Sequence[str], chunk: ChunkRecord) -> Fact | None:
    """The section's own name with the section's first sentence of substance."""
    title = leaf_section(chunk.section)
    if not title or _GENERIC_SECTIONS.match(title) or not _good_term(title):
        return None
    for sentence in sentences:
        text = _clean(sentence)
        if names_a_file(text):
            continue
        if len(_words(text)) >= 4 and len(text) <= MAX_ANSWER_CHARS and not text.endswith(":"):
            return Fact(FactKind.KEY_TERM, title, text, sentence, "key_term", chunk)
    return None


def leaf_section(section: str) -> str:
    """The last part of a section path ("A > B > C" -> "C")."""
    return section.split(SECTION_SEPARATOR)[-1].strip() if section else ""
