"""Cutting long replies to a platform's limit, as properties: no piece is over the limit as
it will be sent (escaped or not), no word is cut unless it alone is too long, the words come
through in order; paragraph cuts are preferred to sentence cuts, and those to word cuts.
`pack` keeps every unit whole, in order, within the limit."""

from __future__ import annotations

import html
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.common.splitting import pack, split_text

Measure = Callable[[str], int]


def escaped(text: str) -> int:
    return len(html.escape(text))


MEASURES: dict[str, Measure] = {"plain": len, "html": escaped}

# Words with HTML's special characters and sentence punctuation; whitespace of every kind.
word_chars = st.sampled_from("abcdefghijklmnopqrstuvwxyzé<>&\"'.!?;:,-") | st.characters(
    categories=["L", "N", "P", "S"]
)
words = st.text(word_chars, min_size=1, max_size=25)
gaps = st.sampled_from([" ", "  ", "\n", "\n\n", "\n \n\n", "\t", " \n", "\u00a0", "\r\n"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(words, min_size=0, max_size=60))
    text = ""
    for part in parts:
        text += part + draw(gaps)
    return draw(st.sampled_from(["", " ", "\n"])) + text


# An escaped character measures up to 6 ("&quot;"), so a limit below that cannot be met.
limits = st.integers(min_value=6, max_value=120)
measures = st.sampled_from(sorted(MEASURES))


def rejoin(text_words: list[str], tokens: list[str], limit: int, measure: Measure) -> None:
    """Assert that `tokens` (the pieces' words) are `text_words` in order, where only a word
    over the limit may come as several consecutive fragments."""
    position = 0
    for word in text_words:
        assert position < len(tokens), f"word {word!r} is missing"
        if measure(word) <= limit:
            assert tokens[position] == word, f"word {word!r} was cut or moved"
            position += 1
            continue
        built = ""
        while built != word:
            assert position < len(tokens), f"the end of {word!r} is missing"
            assert word.startswith(built + tokens[position]), f"word {word!r} lost characters"
            built += tokens[position]
            position += 1
    assert position == len(tokens), "pieces hold words the text did not"


@given(text=texts(), limit=limits, measure_name=measures)
def test_no_piece_exceeds_the_limit(text: str, limit: int, measure_name: str) -> None:
    measure = MEASURES[measure_name]
    pieces = split_text(text, limit, measure)

    assert all(measure(piece) <= limit for piece in pieces)
    assert all(piece.strip() == piece and piece for piece in pieces)


@given(text=texts(), limit=limits, measure_name=measures)
def test_words_survive_in_order_and_only_overlong_words_are_cut(
    text: str, limit: int, measure_name: str
) -> None:
    measure = MEASURES[measure_name]
    pieces = split_text(text, limit, measure)

    tokens = [token for piece in pieces for token in piece.split()]
    rejoin(text.split(), tokens, limit, measure)


@given(text=texts(), measure_name=measures)
def test_text_within_the_limit_is_one_piece(text: str, measure_name: str) -> None:
    measure = MEASURES[measure_name]
    stripped = text.strip()
    assert split_text(text, max(measure(stripped), 1), measure) == ([stripped] if stripped else [])


def test_cut_falls_between_paragraphs_before_sentences() -> None:
    # "Intro.\n\nBody one." would fit in 30, but the paragraph ends after "Intro.".
    text = "Intro.\n\nBody one. Body two is longer here."

    assert split_text(text, 30) == ["Intro.", "Body one.", "Body two is longer here."]


def test_cut_falls_between_sentences_before_words() -> None:
    # Filling with words would end the first piece with "A", the third sentence's first word.
    text = "One short sentence. Another short one! A third? Yes; and more."

    assert split_text(text, 40) == [
        "One short sentence. Another short one!",
        "A third? Yes; and more.",
    ]


def test_cut_falls_between_words_when_a_sentence_is_too_long() -> None:
    text = "a sentence that goes on and on without any stop at all"

    pieces = split_text(text, 20)
    assert pieces == ["a sentence that goes", "on and on without", "any stop at all"]


def test_lines_are_a_boundary_between_paragraphs_and_sentences() -> None:
    text = "- item one\n- item two\n- item three"

    assert split_text(text, 22) == ["- item one\n- item two", "- item three"]


def test_only_a_word_longer_than_the_limit_is_cut() -> None:
    assert split_text("ok " + "x" * 12 + " end", 5) == ["ok", "xxxxx", "xxxxx", "xx", "end"]


def test_escaping_is_measured_so_the_sent_text_fits() -> None:
    text = "a<b " * 10  # 4 plain characters per word, 7 escaped

    pieces = split_text(text, 16, escaped)
    assert all(escaped(piece) <= 16 for piece in pieces)
    assert pieces[0] == "a<b a<b"  # 15 escaped characters; a third word would be 23
    assert split_text(text, 16) == ["a<b a<b a<b a<b", "a<b a<b a<b a<b", "a<b a<b"]


def test_blank_text_gives_no_pieces_and_a_limit_must_be_positive() -> None:
    assert split_text(" \n\n\t ", 10) == []
    with pytest.raises(ValueError):
        split_text("text", 0)


units_lists = st.lists(st.text(min_size=1, max_size=30), max_size=40)


@given(
    units=units_lists,
    limit=st.integers(min_value=30, max_value=200),
    separator=st.sampled_from(["\n", "\n\n", " · "]),
)
def test_pack_keeps_units_whole_in_order_and_within_the_limit(
    units: list[str], limit: int, separator: str
) -> None:
    messages = pack(units, limit, separator)

    assert all(0 < len(message) <= limit for message in messages)
    # Each message is a run of whole units; the runs follow one another.
    start = 0
    for message in messages:
        end = start + 1
        while separator.join(units[start:end]) != message:
            assert end < len(units), f"{message!r} is not a run of whole units"
            end += 1
        # Greedy: the next unit did not fit in this message.
        if end < len(units):
            assert len(message) + len(separator) + len(units[end]) > limit
        start = end
    assert start == len(units)


def test_pack_fills_messages_with_as_many_units_as_fit() -> None:
    units = ["[1] a.pdf", "[2] b.pdf, p. 3", "[3] c.md"]

    assert pack(units, 25) == ["[1] a.pdf\n[2] b.pdf, p. 3", "[3] c.md"]
    assert pack(units, 100, separator=" | ") == ["[1] a.pdf | [2] b.pdf, p. 3 | [3] c.md"]
    assert pack([], 10) == []


def test_pack_refuses_a_unit_over_the_limit() -> None:
    with pytest.raises(ValueError, match="11 characters"):
        pack(["short", "x" * 11], 10)
