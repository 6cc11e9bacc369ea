"""The item-writing checks: each rule reports its own problem (so removing a rule fails its
test), options are compared after normalisation, and set-level rules see the whole set."""

from __future__ import annotations

import pytest

from core.errors import BadInputError
from core.study.checks import (
    FLASHCARD_COUNT,
    CountRange,
    Rule,
    Severity,
    answer_in,
    card_problems,
    count_problems,
    dedupe_cards,
    dedupe_items,
    item_problems,
    longest_share,
    normalise,
    rebalance_longest,
    set_problems,
    shortfall_reason,
    wanted_count,
)
from core.study.models import Flashcard, QuizItem

GOOD = (
    "Which rule gives (fg)' = f'g + fg'?",
    ["Power rule", "Product rule", "Chain rule", "Quotient rule"],
    1,
)


def rules(question: str, options: list[str], correct: int) -> set[Rule]:
    return {p.rule for p in item_problems(question, options, correct)}


def quiz_item(question: str, options: tuple[str, str, str, str], correct: int) -> QuizItem:
    return QuizItem(question=question, options=options, correct=correct)


def test_a_well_written_question_has_no_problems() -> None:
    assert item_problems(*GOOD) == []


@pytest.mark.parametrize("options", [["a", "b", "c"], ["a", "b", "c", "d", "e"]])
def test_three_or_five_options_are_refused(options: list[str]) -> None:
    assert Rule.OPTION_COUNT in rules("Which letter?", options, 0)


@pytest.mark.parametrize("correct", [-1, 4, 7])
def test_a_correct_index_out_of_range_is_refused(correct: int) -> None:
    assert Rule.CORRECT_INDEX in rules("Which rule?", GOOD[1], correct)


@pytest.mark.parametrize(
    "duplicate",
    ["product rule", "  Product   rule ", "Product rule.", "PRODUCT RULE!", "“Product rule”"],
)
def test_options_that_differ_in_case_space_or_punctuation_are_duplicates(duplicate: str) -> None:
    options = ["Power rule", "Product rule", "Chain rule", duplicate]
    problems = item_problems("Which rule?", options, 0)
    assert [p.rule for p in problems] == [Rule.DUPLICATE_OPTIONS]
    assert "options 2 and 4" in problems[0].message


def test_formulas_are_compared_without_an_explicit_times_sign_but_keep_their_signs() -> None:
    assert normalise("n * x^(n-1)") == normalise("n x^(n-1)")
    assert normalise("(f'g - fg')/g^2") != normalise("(fg' - f'g)/g^2")
    assert normalise("1.5") != normalise("15")


@pytest.mark.parametrize(
    "option", ["All of the above", "none of the above", "Both of these", "all the above"]
)
def test_all_or_none_of_the_above_is_refused(option: str) -> None:
    assert Rule.ALL_OR_NONE in rules(
        "Which rule?", ["Power rule", "Chain rule", "Quotient rule", option], 0
    )


def test_a_stem_stating_its_answer_is_refused() -> None:
    question = "The product rule says (fg)' = f'g + fg'. Which rule is it?"
    assert Rule.ANSWER_IN_STEM in rules(question, GOOD[1], 1)
    # A formula answer inside the stem counts too.
    assert answer_in("f' * g + f * g'", "Complete: (f * g)' = f' g + f g'")
    # Too short to tell: a digit in a formula is not the answer "2".
    assert not answer_in("2", "What is d/dx x^2 at x = 1?")


@pytest.mark.parametrize(
    "question",
    [
        "Which of these is NOT a differentiation rule?",
        "All of these are rules EXCEPT which?",
        "Which statement is false?",
        "Which of these is not a limit law?",
    ],
)
def test_negative_stems_are_flagged_as_warnings(question: str) -> None:
    [problem] = item_problems(question, GOOD[1], 1)
    assert problem.rule is Rule.NEGATIVE_STEM and problem.severity is Severity.WARNING


def test_overlong_questions_and_options_are_refused() -> None:
    assert Rule.TOO_LONG in rules("x" * 301 + "?", GOOD[1], 0)
    assert Rule.TOO_LONG in rules("Which?", ["a" * 101, "b", "c", "d"], 0)


def test_empty_questions_and_options_are_refused() -> None:
    assert Rule.EMPTY in rules("  ", GOOD[1], 0)
    assert Rule.EMPTY in rules("Which?", ["a", " ", "c", "d"], 0)


def test_a_set_whose_answer_is_usually_the_longest_option_is_flagged() -> None:
    giveaway = [
        quiz_item(f"Question {n}?", ("a", "b", "c", f"the long right answer {n}"), 3)
        for n in range(5)
    ]
    fair = [
        quiz_item(f"Other {n}?", ("longer wrong option", "b", "c", "right"), 3) for n in range(5)
    ]
    assert longest_share(giveaway) == 1.0
    [problem] = set_problems(giveaway)
    assert problem.rule is Rule.LONGEST_CORRECT
    assert set_problems(giveaway[:2] + fair) == []
    # Too few questions to say anything.
    assert set_problems(giveaway[:3]) == []


def test_rebalancing_drops_the_widest_giveaways_until_the_share_is_allowed() -> None:
    giveaway = [quiz_item(f"Question {n}?", ("a", "b", "c", "x" * (10 + n)), 3) for n in range(4)]
    fair = [
        quiz_item(f"Other {n}?", ("longer wrong option", "b", "c", "right"), 3) for n in range(2)
    ]
    kept = rebalance_longest(giveaway + fair)
    assert set_problems(kept) == []
    assert fair[0] in kept and fair[1] in kept
    # The widest margins went first.
    assert giveaway[3] not in kept and giveaway[0] in kept


def test_duplicate_questions_are_removed_across_the_set() -> None:
    first = quiz_item("What is the weight of the final exam?", ("40%", "30%", "20%", "10%"), 0)
    same = quiz_item("what is the weight of the FINAL exam", ("10%", "20%", "30%", "40%"), 3)
    near = quiz_item("What is the weight of the final exam, please?", ("40%", "1%", "2%", "3%"), 0)
    other = quiz_item("What is the weight of the midterm?", ("40%", "30%", "20%", "10%"), 1)
    assert dedupe_items([first, same, near, other]) == [first, other]


def test_duplicate_cards_are_removed_but_short_shared_backs_are_kept() -> None:
    cards = [
        Flashcard(front="Weight of homework?", back="20%"),
        Flashcard(front="Weight of the midterm?", back="20%"),
        Flashcard(front="weight of homework", back="25%"),
        Flashcard(front="Power rule", back="d/dx x^n = n x^(n-1) for every real n"),
        Flashcard(front="The power rule", back="d/dx x^n = n x^(n-1) for every real n"),
    ]
    assert [c.front for c in dedupe_cards(cards)] == [
        "Weight of homework?",
        "Weight of the midterm?",
        "Power rule",
    ]


def test_a_card_whose_front_gives_its_back_is_refused() -> None:
    assert {p.rule for p in card_problems("Product rule: (fg)' = f'g + fg'", "f'g + fg'")} == {
        Rule.ANSWER_IN_STEM
    }
    assert card_problems("Product rule", "(fg)' = f'g + fg'") == []
    assert {p.rule for p in card_problems("", "x")} == {Rule.EMPTY}


def test_counts_are_enforced_and_a_shortfall_gets_its_reason() -> None:
    assert count_problems(10, FLASHCARD_COUNT, "cards") == []
    [problem] = count_problems(7, FLASHCARD_COUNT, "cards")
    assert problem.rule is Rule.TOO_FEW
    assert shortfall_reason("limits", 7, FLASHCARD_COUNT, "cards") == (
        "the material on 'limits' supports 7 cards"
    )
    assert shortfall_reason("limits", 12, FLASHCARD_COUNT, "cards") == ""


def test_an_asked_count_is_exact_and_bounded() -> None:
    assert wanted_count(FLASHCARD_COUNT, None, "cards") == FLASHCARD_COUNT
    assert wanted_count(FLASHCARD_COUNT, 5, "cards") == CountRange(5, 5)
    with pytest.raises(BadInputError, match="1 to 30"):
        wanted_count(FLASHCARD_COUNT, 0, "cards")
    with pytest.raises(BadInputError):
        wanted_count(FLASHCARD_COUNT, 31, "cards")
