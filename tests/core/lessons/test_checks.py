"""Each profile's rendered PDF passes its checks, and each check fails on a PDF rendered
to break it on purpose (a style with one field changed, or a deck for another profile)."""

import pytest
import typst

from core.lessons import (
    Citation,
    Deck,
    Profile,
    Slide,
    check_pdf,
    contrast_ratio,
    render_deck,
    style_for,
)
from core.lessons.checks import is_cream_or_pastel, is_sans_serif, read_pages
from core.lessons.fonts import typst_fonts
from core.lessons.profiles import minimum_body_pt, with_style

CITE = Citation(file="calculus-week3.pdf", page=4, section="The derivative", chunk_id="c1")
LONG = (
    "The derivative of a function measures how fast its value changes when its input "
    "changes by a small amount, and it is written as a limit of difference quotients"
)


def _deck(profile: Profile, **slide: object) -> Deck:
    fields = {
        "title": "The derivative of a function",
        "content": [
            LONG,
            "It is the slope of the tangent line.",
            "Velocity is the derivative of position.",
        ],
        "citations": [CITE],
    }
    fields.update(slide)
    return Deck(topic="derivatives", profile=profile, slides=[Slide(**fields)])  # type: ignore[arg-type]


def _problems(profile: Profile, **style_changes: object) -> list[str]:
    style = with_style(profile, **style_changes)
    return check_pdf(render_deck(_deck(profile), style=style), profile)


def _has(problems: list[str], words: str) -> bool:
    return any(words in p for p in problems)


@pytest.mark.parametrize("profile", list(Profile))
def test_the_sample_deck_passes_its_profile_on_the_rendered_pdf(
    rendered: dict[Profile, bytes], profile: Profile
) -> None:
    pdf = rendered[profile]
    assert check_pdf(pdf, profile) == []
    pages = read_pages(pdf)
    assert 3 <= len(pages) <= 6
    # The text on the pages comes from the sample course.
    assert "slope of the tangent line" in " ".join(p.all_text().replace("\n", " ") for p in pages)


@pytest.mark.parametrize("profile", list(Profile))
def test_a_hand_written_deck_passes_its_profile(profile: Profile) -> None:
    assert check_pdf(render_deck(_deck(profile)), profile) == []


def test_wcag_contrast_of_known_pairs() -> None:
    assert contrast_ratio((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert contrast_ratio((1, 1, 1), (1, 1, 1)) == pytest.approx(1.0)
    grey = (0x77 / 255,) * 3  # #777777 on white: 4.48, the classic near miss
    assert contrast_ratio(grey, (1, 1, 1)) == pytest.approx(4.48, abs=0.01)


def test_font_and_background_classification() -> None:
    assert is_sans_serif("DejaVuSans-Bold") and is_sans_serif("ArialMT")
    assert not is_sans_serif("DejaVuSerif") and not is_sans_serif("TimesNewRomanPSMT")
    assert is_cream_or_pastel((0xFD / 255, 0xF6 / 255, 0xE3 / 255))
    assert not is_cream_or_pastel((1.0, 1.0, 1.0)) and not is_cream_or_pastel((0.9, 0.9, 0.9))


def test_a4_sizes_scale_with_the_longer_side_of_the_page() -> None:
    assert minimum_body_pt(595.28, 841.89) == pytest.approx(14.0)  # A4 portrait
    assert minimum_body_pt(841.89, 473.56) == pytest.approx(14.0)  # our 16:9 slide
    assert minimum_body_pt(720, 405) == pytest.approx(11.97, abs=0.01)  # a 10-inch slide


# Standard


def test_standard_catches_low_contrast() -> None:
    assert _has(_problems(Profile.STANDARD, text_color="#aaaaaa"), "contrast")


def test_standard_catches_low_contrast_against_a_dark_background() -> None:
    problems = _problems(Profile.STANDARD, background="#333333", text_color="#555555")
    assert _has(problems, "contrast")


def test_standard_catches_long_lines() -> None:
    problems = _problems(Profile.STANDARD, body_pt=11.0, line_chars=120)
    assert _has(problems, "longer than 80 characters")


# Dyslexia


def test_dyslexia_catches_a_serif_font() -> None:
    problems = _problems(Profile.DYSLEXIA, font="DejaVu Serif")
    assert _has(problems, "not known to be sans-serif")


def test_dyslexia_catches_small_text() -> None:
    assert _has(
        _problems(Profile.DYSLEXIA, body_pt=12.0, min_body_pt=10.0), "characters are 12.0 pt"
    )
    assert _has(_problems(Profile.DYSLEXIA, small_pt=11.0), "characters are 11.0 pt")


def test_dyslexia_catches_tight_line_spacing() -> None:
    assert _has(_problems(Profile.DYSLEXIA, leading_em=0.4), "line spacing")


def test_dyslexia_catches_long_lines() -> None:
    problems = _problems(Profile.DYSLEXIA, body_pt=15.0, min_body_pt=14.0, line_chars=90)
    assert _has(problems, "longer than 70 characters")


def test_dyslexia_catches_italics_underline_and_capitals() -> None:
    assert _has(_problems(Profile.DYSLEXIA, italic_titles=True), "italic or oblique")
    assert _has(_problems(Profile.DYSLEXIA, underline_titles=True), "underlined")
    assert _has(_problems(Profile.DYSLEXIA, upper_titles=True), "capitals")


def test_dyslexia_catches_centred_and_justified_text() -> None:
    assert _has(_problems(Profile.DYSLEXIA, centered=True), "not left-aligned")
    assert _has(_problems(Profile.DYSLEXIA, justify=True, line_chars=40), "justified")


def test_dyslexia_catches_a_white_background() -> None:
    problems = _problems(Profile.DYSLEXIA, background="#ffffff")
    assert _has(problems, "background #ffffff is not cream or pastel")


def test_dyslexia_rules_hold_on_a_serif_deck_only_through_the_checks() -> None:
    # The standard profile's PDF is white: the dyslexia check must not pass it.
    standard = render_deck(_deck(Profile.STANDARD), Profile.STANDARD)
    assert _has(check_pdf(standard, Profile.DYSLEXIA), "not cream or pastel")


# ADHD


def _adhd_deck_rendered_as_standard() -> list[str]:
    crowded = _deck(
        Profile.ADHD,
        content=[
            "One idea here.",
            "Two ideas here. And a second sentence.",
            "Three.",
            "Four.",
            "Five.",
        ],
    )
    return check_pdf(render_deck(crowded, Profile.STANDARD), Profile.ADHD)


def test_adhd_catches_a_missing_marker_crowded_slides_and_no_recap() -> None:
    problems = _adhd_deck_rendered_as_standard()
    assert _has(problems, 'no "Slide 1 of 1" marker')
    assert _has(problems, "5 bullets (at most 4)")
    assert _has(problems, "more than one idea")
    assert _has(problems, "not a recap")


def test_adhd_catches_a_missing_marker_alone() -> None:
    pdf = render_deck(_deck(Profile.ADHD), style=with_style(Profile.ADHD, slide_marker=False))
    problems = check_pdf(pdf, Profile.ADHD)
    assert problems and all("marker" in p for p in problems)


def test_adhd_rendering_splits_crowded_slides_and_adds_a_recap() -> None:
    crowded = _deck(
        Profile.ADHD, content=[f"Point number {n} about derivatives." for n in range(9)]
    )
    pdf = render_deck(crowded)
    pages = read_pages(pdf)
    assert len(pages) == 4  # 4 + 4 + 1 bullets, then the recap
    assert pages[-1].title == "Recap"
    assert check_pdf(pdf, Profile.ADHD) == []


# Visual


def test_visual_catches_slides_without_figures() -> None:
    pdf = render_deck(_deck(Profile.VISUAL), Profile.STANDARD)
    problems = check_pdf(pdf, Profile.VISUAL)
    assert _has(problems, "page 1: no figure")
    assert _has(problems, "no figure with alt text")


def test_visual_catches_a_figure_without_alt_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.lessons.figures import lesson_map

    (tmp_path / "f.png").write_bytes(lesson_map(["Limits", "Derivatives"], 0).png)
    source = (
        '#set page(width: 297mm, height: 167mm)\n= A slide\n- Text\n#image("f.png", height: 50%)\n'
    )
    main = tmp_path / "main.typ"
    main.write_text(source)
    pdf = typst.compile(str(main), root=str(tmp_path), font_paths=typst_fonts())
    problems = check_pdf(pdf, Profile.VISUAL)
    assert problems == ["page 1: no figure with alt text"]


def test_a_damaged_pdf_is_a_problem_not_a_crash() -> None:
    assert check_pdf(b"%PDF-1.7 not really", Profile.STANDARD)[0].startswith("the PDF cannot")


def test_styles_are_what_the_profiles_promise() -> None:
    dyslexia = style_for(Profile.DYSLEXIA)
    assert dyslexia.body_pt >= 14 and not dyslexia.justify
    assert style_for(Profile.ADHD).slide_marker
    assert style_for(Profile.VISUAL).figures
