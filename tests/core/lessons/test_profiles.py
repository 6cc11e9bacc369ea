from core.lessons import Deck, Profile, Slide, SlideBounds, SlideKind, adapt_deck
from core.lessons.profiles import is_one_idea, split_ideas


def test_items_are_cut_into_single_ideas_without_cutting_math() -> None:
    assert split_ideas("First idea. Second idea; third idea.") == [
        "First idea.",
        "Second idea",
        "third idea.",
    ]
    long = "word " * 30 + "end, then $a, b, c$ stays whole and more words follow here"
    for piece in split_ideas(long):
        assert piece.count("$") % 2 == 0
    assert is_one_idea("The slope of the tangent.")
    assert not is_one_idea("One. Two.")


def test_adhd_splits_slides_over_four_bullets_and_adds_a_recap() -> None:
    slide = Slide(title="Rules", content=[f"Rule {n} applies." for n in range(6)], math=["x^2"])
    deck = adapt_deck(Deck(topic="t", profile=Profile.ADHD, slides=[slide]))
    assert [s.title for s in deck.slides] == ["Rules (1/2)", "Rules (2/2)", "Recap"]
    assert deck.slides[0].math == ["x^2"] and deck.slides[1].math == []
    assert deck.slides[-1].kind is SlideKind.RECAP
    assert len(deck.slides[-1].content) <= 4


def test_adapting_to_bounds_drops_content_slides_but_keeps_the_recap() -> None:
    slides = [Slide(title=f"S{n}", content=[f"Point {k}." for k in range(5)]) for n in range(3)]
    deck = adapt_deck(Deck(topic="t", profile=Profile.ADHD, slides=slides), SlideBounds(2, 4))
    assert len(deck.slides) == 4
    assert deck.slides[-1].title == "Recap"


def test_other_profiles_keep_their_content_as_written() -> None:
    slide = Slide(title="S", content=["One. Two.", *[f"p{n}" for n in range(6)]])
    deck = Deck(topic="t", profile=Profile.STANDARD, slides=[slide])
    assert adapt_deck(deck) == deck
