import pytest
from pydantic import ValidationError

from core.lessons import Citation, Deck, Profile, Slide, SlideBounds, SlideCountError


def test_bounds_parse_a_range_and_a_single_count() -> None:
    assert SlideBounds.parse("4-8") == SlideBounds(4, 8)
    assert SlideBounds.parse(" 5 ") == SlideBounds(5, 5)
    assert SlideBounds.parse("3–6") == SlideBounds(3, 6)  # an en dash, as phones type it


@pytest.mark.parametrize("text", ["8-3", "0-4", "1-99", "a-b", "1-2-3", ""])
def test_bounds_refuse_impossible_ranges(text: str) -> None:
    with pytest.raises(SlideCountError):
        SlideBounds.parse(text)


def test_bounds_report_a_deck_outside_them() -> None:
    deck = Deck(topic="t", slides=[Slide(title=f"s{n}") for n in range(5)])
    assert SlideBounds(3, 6).problems(deck) == []
    assert "at most 4" in SlideBounds(2, 4).problems(deck)[0]
    assert "at least 6" in SlideBounds(6, 8).problems(deck)[0]


def test_a_slide_normalises_its_text_and_drops_empty_items() -> None:
    slide = Slide(title="  Limits\n of  functions ", content=["a  b", "  "], math=[" x^2 ", ""])
    assert slide.title == "Limits of functions"
    assert slide.content == ["a b"]
    assert slide.math == ["x^2"]


def test_a_slide_refuses_an_overlong_item_and_an_empty_title() -> None:
    with pytest.raises(ValidationError):
        Slide(title="t", content=["x" * 601])
    with pytest.raises(ValidationError):
        Slide(title="   ")


def test_a_deck_lists_each_citation_once_in_order_of_use() -> None:
    a = Citation(file="a.pdf", page=1, section="Intro", chunk_id="1")
    b = Citation(file="b.md", chunk_id="2")
    deck = Deck(
        topic="t",
        profile=Profile.VISUAL,
        slides=[Slide(title="1", citations=[a, b]), Slide(title="2", citations=[b, a])],
    )
    assert deck.citations() == [a, b]
    assert a.label() == "a.pdf, p. 1, Intro"
    assert b.label() == "b.md"
