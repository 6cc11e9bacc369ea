"""Flashcard exports: the Anki package is a zip holding a SQLite collection with the cards,
its ids are stable (a re-import updates the deck instead of adding a copy), and the
material's text is escaped; the CSV keeps front, back and source."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import zipfile
from pathlib import Path

from core.study.export import anki_deck, anki_text, cards_csv, stable_id
from core.study.models import Flashcard, FlashcardSet, Source

CARDS = FlashcardSet(
    topic="derivatives",
    cards=(
        Flashcard(
            front="What does the power rule say?",
            back="d/dx x^n = n x^(n-1)",
            source=Source(file="lecture-02.pdf", page=3),
            skill="power rule",
        ),
        Flashcard(front="Is <b>x</b> & y bold?", back="No: it is text", skill="markup"),
    ),
)


def collection(package: bytes, tmp_path: Path) -> sqlite3.Connection:
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        assert "collection.anki2" in archive.namelist()
        path = tmp_path / "collection.anki2"
        path.write_bytes(archive.read("collection.anki2"))
    return sqlite3.connect(path)


def test_the_anki_deck_holds_every_card_escaped_and_tagged(tmp_path: Path) -> None:
    db = collection(anki_deck(CARDS, "sample::derivatives", course_id="sample"), tmp_path)
    with db:
        notes = db.execute("select flds, tags from notes order by id").fetchall()
        [decks] = db.execute("select decks from col").fetchone()
    fields = [flds.split("\x1f") for flds, _ in notes]
    assert [f[0] for f in fields] == [
        "What does the power rule say?",
        "Is &lt;b&gt;x&lt;/b&gt; &amp; y bold?",
    ]
    # The plain-text formula goes to Anki's MathJax as LaTeX.
    assert fields[0][1:] == [r"\(\frac{d}{dx} x^n = n x^{n-1}\)", "lecture-02.pdf, p. 3"]
    assert notes[0][1].split() == ["power_rule"]
    names = {deck["name"]: int(deck_id) for deck_id, deck in json.loads(decks).items()}
    assert names["sample::derivatives"] == stable_id("deck", "sample::derivatives")


def test_exporting_again_gives_the_same_ids_so_a_reimport_updates(tmp_path: Path) -> None:
    first = collection(anki_deck(CARDS, "sample::derivatives", course_id="sample"), tmp_path)
    with first:
        guids = first.execute("select guid, mid from notes order by id").fetchall()
    (tmp_path / "again").mkdir()
    again = anki_deck(CARDS, "sample::derivatives", course_id="sample")
    with collection(again, tmp_path / "again") as second:
        assert second.execute("select guid, mid from notes order by id").fetchall() == guids
    assert {mid for _, mid in guids} == {stable_id("model", "sample")}
    # Another topic is another deck; another course another note type.
    assert stable_id("deck", "sample::limits") != stable_id("deck", "sample::derivatives")
    assert stable_id("model", "calc101") != stable_id("model", "sample")


def test_the_csv_has_front_back_and_source() -> None:
    rows = list(csv.reader(io.StringIO(cards_csv(CARDS).decode())))
    assert rows == [
        ["front", "back", "source"],
        ["What does the power rule say?", "d/dx x^n = n x^(n-1)", "lecture-02.pdf, p. 3"],
        ["Is <b>x</b> & y bold?", "No: it is text", ""],
    ]


def test_the_csv_turns_formula_cells_into_text() -> None:
    hostile = FlashcardSet(
        topic="organisms",
        cards=(
            Flashcard(
                front="Which organism has transparent embryos?",
                back='=HYPERLINK("http://evil.example/t","zebrafish")',
                source=Source(file="=cmd|'/c calc'!A0.pdf", page=1),
            ),
            Flashcard(front="@SUM(1+1)", back="+1+1"),
        ),
    )

    rows = list(csv.reader(io.StringIO(cards_csv(hostile).decode("utf-8"))))

    assert rows[1] == [
        "Which organism has transparent embryos?",
        '\'=HYPERLINK("http://evil.example/t","zebrafish")',
        "'=cmd|'/c calc'!A0.pdf, p. 1",
    ]
    assert rows[2] == ["'@SUM(1+1)", "'+1+1", ""]


def test_formulas_reach_anki_as_mathjax_and_the_rest_stays_escaped() -> None:
    assert anki_text("Area $\\pi r^2$, not $5 or <b>") == "Area \\(\\pi r^2\\), not $5 or &lt;b&gt;"
    assert anki_text("$$ a < b $$ and 1/2 of it") == "\\[a &lt; b\\] and 1/2 of it"
    assert anki_text("Markdown's \\\\(x_1\\\\)") == "Markdown&#x27;s \\(x_1\\)"
    assert anki_text("so lim_{x->1} f(x) = 2.") == "so \\(\\lim_{x \\to 1} f(x) = 2\\)."
