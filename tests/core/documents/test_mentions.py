"""Which documents a question names: codes, unique capital prefixes, names with accents and
case ignored, versions; ambiguous names and prefixes name none; older versions superseded."""

from __future__ import annotations

from core.documents import DocumentIdentity, mentions
from core.text import fold_name

DOCUMENTS = {
    "mas": DocumentIdentity(codes=("mas291",), names=("statistics probability",)),
    "mae": DocumentIdentity(codes=("mae101",), names=("mathematics for engineering",)),
    "mai": DocumentIdentity(codes=("mai391",), names=("mathematics for machine learning",)),
    "ail": DocumentIdentity(codes=("ail303m",), names=("machine learning",)),
    "dba": DocumentIdentity(codes=("dba103",), names=("dan bau", "traditional instrument")),
    "dng": DocumentIdentity(codes=("dng103",), names=("dan nguyet", "traditional instrument")),
    "k18": DocumentIdentity(codes=("bit ai k18d 19a",), family="programme", version=(18, 19),
                            programme=True),
    "k19": DocumentIdentity(codes=("bit ai k19d 20a",), family="programme", version=(19, 20),
                            programme=True),
    "k20": DocumentIdentity(codes=("bit ai k20d 21a",), family="programme", version=(20, 21),
                            programme=True),
}  # fmt: skip


def test_a_code_names_its_document_whatever_the_case() -> None:
    assert mentions("what do I need before mas291?", DOCUMENTS).named == ("mas",)
    assert mentions("Is MAE 101 hard?", DOCUMENTS).named == ("mae",)


def test_a_unique_capital_prefix_names_its_document_and_a_shared_one_names_none() -> None:
    assert mentions("whats the grading breakdown for MAS?", DOCUMENTS).named == ("mas",)
    assert mentions("is MA hard?", DOCUMENTS).named == ()  # MAS, MAE and MAI
    assert mentions("the mas of the course", DOCUMENTS).named == ()  # a word, not a code


def test_names_match_without_case_or_accents_and_the_longest_fitting_name_wins() -> None:
    assert mentions("if i pick Đàn Bầu, how much is the exam?", DOCUMENTS).named == ("dba",)
    found = mentions("Is Mathematics for Machine Learning hard?", DOCUMENTS).named
    assert "mai" in found  # "machine learning" is inside, and names AIL303m too
    assert mentions("which PLOs does Machine Learning map to?", DOCUMENTS).named == ("ail",)


def test_a_name_several_documents_share_names_none() -> None:
    assert mentions("which traditional instrument is easiest?", DOCUMENTS).named == ()


def test_documents_are_listed_in_the_order_the_question_names_them() -> None:
    found = mentions("are AIL303m and MAS291 graded the same way?", DOCUMENTS)
    assert found.named == ("ail", "mas")


def test_older_versions_are_superseded_unless_the_question_names_them() -> None:
    assert mentions("what is in semester 3?", DOCUMENTS).superseded == {"k18", "k19"}
    named = mentions("I'm on the K19-K20 curriculum: when is SSG104?", DOCUMENTS)
    assert named.named == ("k19",) and named.superseded == {"k18"}
    assert mentions("I'm K20, can I pick that combo?", DOCUMENTS).named == ("k20",)


def test_a_semester_by_its_short_name_makes_a_programme_question() -> None:
    # The made-up programme of tests/support/programme.py: a failed course and the next term.
    zoo = {
        "k28": DocumentIdentity(codes=("zoo k28",), family="programme", version=(28,),
                                programme=True),
        "k30": DocumentIdentity(codes=("zoo k30",), family="programme", version=(30,),
                                programme=True),
        "mar301": DocumentIdentity(codes=("mar301",), names=("marine mammals",)),
    }  # fmt: skip

    found = mentions("i failed MAR301 in sem 3, what cant i take in sem 4?", zoo)
    assert found.named == ("mar301",) and found.programme == "k30"
    assert mentions("what's in term 2?", zoo).programme == "k30"
    assert mentions("marine mammals: how many credits?", zoo).programme is None


def test_an_ampersand_in_a_name_reads_as_and() -> None:
    zoo = {
        "mar301": DocumentIdentity(codes=("mar301",), names=(fold_name("Whales and Dolphins"),)),
        "brd301": DocumentIdentity(codes=("brd301",), names=(fold_name("Birds & Bees"),)),
    }

    assert mentions("what do we read in the whales & dolphins course?", zoo).named == ("mar301",)
    assert mentions("how is Birds and Bees graded?", zoo).named == ("brd301",)
    assert mentions("how is Birds&Bees graded?", zoo).named == ()  # one word, not the name


def test_a_question_about_combos_brings_the_documents_listing_them() -> None:
    zoo = {
        "com1": DocumentIdentity(names=("zoo com 1",), groups=True),
        "com2": DocumentIdentity(names=("zoo com 2",), groups=True),
        "mar301": DocumentIdentity(codes=("mar301",), names=("marine mammals",)),
    }

    assert mentions("any combo with a course on birds?", zoo).groups == ("com1", "com2")
    assert mentions("which specialisation has MAR301?", zoo).groups == ("com1", "com2")
    assert mentions("is zoo com 1 a pathway?", zoo).groups == ()  # named already
    assert mentions("how is MAR301 graded?", zoo).groups == ()


def test_a_programme_question_brings_the_current_programme_document() -> None:
    assert mentions("what courses are in semester 3?", DOCUMENTS).programme == "k20"
    assert mentions("how is MAS291 graded?", DOCUMENTS).programme is None
    assert mentions("semester 2 of K18-K19?", DOCUMENTS).programme is None  # named already


def test_a_course_without_documents_steers_nothing() -> None:
    assert not mentions("MAS291?", {}).steers


def test_a_family_names_the_documents_of_its_courses() -> None:
    documents = {
        **DOCUMENTS,
        "ail301": DocumentIdentity(codes=("ail301",)),
        "ail313": DocumentIdentity(codes=("ail313",)),
    }
    assert mentions("which AIL30x electives are there?", documents).named == ("ail", "ail301")
