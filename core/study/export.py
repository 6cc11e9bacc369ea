"""Flashcards for spaced-repetition apps: a CSV (front, back, source) and an Anki `.apkg`
deck written by genanki.

The Anki ids are derived from the course and the topic, not drawn at random, so importing a
newer deck on the same topic updates the cards already in the student's collection instead
of adding a second copy: the note type's id comes from the course, the deck's from its
name, and each note's guid from the deck and the card's front."""

from __future__ import annotations

import hashlib
import html
import io

import genanki

from core.plain_math import mark_plain_math
from core.spreadsheet_csv import csv_bytes
from core.study.models import FlashcardSet
from core.text import math_spans

# Anki ids are 64-bit; genanki's docs suggest this range for hand-picked ones.
_ID_LOW = 1 << 30
_ID_SPAN = 1 << 30
_CARD_CSS = ".card { font-family: sans-serif; font-size: 20px; text-align: left; }"


def cards_csv(cards: FlashcardSet) -> bytes:
    """Front, back and source per card: imports into Anki and most flashcard apps; the
    material's cells never run as spreadsheet formulas."""
    rows = ((c.front, c.back, c.source.label() if c.source else "") for c in cards.cards)
    return csv_bytes(("front", "back", "source"), rows)


def anki_deck(cards: FlashcardSet, deck_name: str, *, course_id: str) -> bytes:
    """The set as an `.apkg` file (a zip holding the SQLite `collection.anki2`)."""
    model = genanki.Model(
        stable_id("model", course_id),
        f"coursebot flashcard ({course_id})",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}],
        templates=[
            {
                "name": "Card",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<br><small>{{Source}}</small>',
            }
        ],
        css=_CARD_CSS,
    )
    deck = genanki.Deck(stable_id("deck", deck_name), deck_name)
    for card in cards.cards:
        source = card.source.label() if card.source else ""
        # Anki shows fields as HTML: the material's text is escaped, never interpreted;
        # formulas go to its MathJax.
        fields = [anki_text(card.front), anki_text(card.back), html.escape(source)]
        tags = [_tag(card.skill)] if card.skill else []
        guid = genanki.guid_for(deck_name, card.front)
        deck.add_note(genanki.Note(model=model, fields=fields, guid=guid, tags=tags))
    out = io.BytesIO()
    genanki.Package(deck).write_to_file(out)
    return out.getvalue()


def anki_text(text: str) -> str:
    """`text` as an Anki field: HTML-escaped, each formula (in `$...$`, `$$...$$`, `\\(...\\)`,
    `\\[...\\]` or plain text such as "x^2") in the `\\(...\\)` or `\\[...\\]` marks
    Anki typesets with MathJax."""
    marked = mark_plain_math(text)
    out: list[str] = []
    at = 0
    for start, end in math_spans(marked):
        out.append(html.escape(marked[at:start]))
        out.append(_mathjax(marked[start:end]))
        at = end
    out.append(html.escape(marked[at:]))
    return "".join(out)


# Math marks, longest first: Markdown escapes the backslash of "\\(" as "\\\\(".
_MATH_MARKS = (
    ("$$", "$$", True),
    ("\\\\[", "\\\\]", True),
    ("\\[", "\\]", True),
    ("\\\\(", "\\\\)", False),
    ("\\(", "\\)", False),
    ("$", "$", False),
)


def _mathjax(formula: str) -> str:
    for opening, closing, display in _MATH_MARKS:
        if formula.startswith(opening) and formula.endswith(closing):
            inner = html.escape(formula[len(opening) : len(formula) - len(closing)].strip())
            return f"\\[{inner}\\]" if display else f"\\({inner}\\)"
    return html.escape(formula)


def stable_id(kind: str, name: str) -> int:
    """The same positive id for the same name, in every process (unlike `hash`)."""
    digest = hashlib.sha256(f"coursebot:{kind}:{name}".encode()).digest()
    return _ID_LOW + int.from_bytes(digest[:8], "big") % _ID_SPAN


def _tag(skill: str) -> str:
    # An Anki tag is one word.
    return "_".join(skill.split())
