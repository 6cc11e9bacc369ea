"""Build the lecture slide PDFs of the shipped sample course (MATH 101 - Calculus I).

The slide text lives in this file. Run from anywhere:

    python scripts/build_sample_course.py

The PDFs are written to examples/sample-course/. The output is deterministic:
the creation date and producer are fixed, so reruns give byte-identical files.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF, FontFace

OUTPUT_DIR = Path(__file__).resolve().parent.parent / "examples" / "sample-course"
COURSE_TITLE = "MATH 101 - Calculus I"
AUTHOR = "Dr. Ada Moreno"
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
PRODUCER = "coursebot scripts/build_sample_course.py"

# 16:9 landscape page in millimetres (10 in x 5.625 in).
PAGE_WIDTH = 254.0
PAGE_HEIGHT = 142.875
MARGIN = 16.0
FONT = "Helvetica"
TITLE_SIZE = 26
BODY_SIZE = 17
FOOTER_SIZE = 10
LINE_HEIGHT = 9.0
BULLET_INDENT = 8.0
ACCENT_RGB = (31, 78, 121)
TEXT_RGB = (30, 30, 30)
MUTED_RGB = (110, 110, 110)
HEADER_FILL_RGB = (220, 230, 241)
FOOTER_TOP = PAGE_HEIGHT - 12


@dataclass(frozen=True)
class Slide:
    """One slide: a title, bullet points and an optional two-column table."""

    title: str
    bullets: tuple[str, ...] = ()
    table: tuple[tuple[str, str], ...] = ()  # first row is the header
    after_table: tuple[str, ...] = ()
    is_title_slide: bool = False


@dataclass(frozen=True)
class Deck:
    """A lecture slide deck rendered to one PDF file."""

    filename: str
    lecture: str
    slides: tuple[Slide, ...]


LECTURE_01 = Deck(
    filename="lecture-01-limits.pdf",
    lecture="Lecture 1: Limits and Continuity",
    slides=(
        Slide(
            title="Lecture 1: Limits and Continuity",
            bullets=(
                COURSE_TITLE,
                "Dr. Ada Moreno - Fall 2026",
                "Weeks 1-3: limits, limit laws, continuity",
            ),
            is_title_slide=True,
        ),
        Slide(
            title="The Idea of a Limit",
            bullets=(
                "lim_{x->a} f(x) = L means: f(x) gets as close to L as we like "
                "when x is close enough to a (but x != a).",
                "The value f(a) itself does not matter; f need not even be defined at a.",
                "Example: f(x) = (x^2 - 1)/(x - 1) is undefined at x = 1, "
                "yet f(x) = x + 1 for x != 1, so lim_{x->1} f(x) = 2.",
                "A table of values suggests a limit; algebra proves it.",
            ),
        ),
        Slide(
            title="Limit Laws",
            bullets=(
                "If lim_{x->a} f(x) = L and lim_{x->a} g(x) = M, then:",
                "Sum and difference: lim (f + g) = L + M and lim (f - g) = L - M",
                "Product and constant multiple: lim (f * g) = L * M and lim (c * f) = c * L",
                "Quotient: lim (f / g) = L / M, provided M != 0",
                "Polynomials: lim_{x->a} p(x) = p(a), e.g. lim_{x->2} (x^2 + 3x) = 10",
            ),
        ),
        Slide(
            title="One-Sided Limits",
            bullets=(
                "Left limit lim_{x->a-} f(x): x approaches a from values below a.",
                "Right limit lim_{x->a+} f(x): x approaches a from values above a.",
                "lim_{x->a} f(x) = L exactly when both one-sided limits equal L.",
                "Example: f(x) = |x|/x has left limit -1 and right limit 1 at 0, "
                "so lim_{x->0} f(x) does not exist.",
            ),
        ),
        Slide(
            title="Limits at Infinity",
            bullets=(
                "lim_{x->inf} f(x) = L: f(x) approaches L as x grows without bound.",
                "Then y = L is a horizontal asymptote of the graph.",
                "Basic fact: lim_{x->inf} 1/x^n = 0 for every n > 0.",
                "Rational functions: divide top and bottom by the highest power of x.",
                "Example: lim_{x->inf} (2x^2 + 1)/(x^2 - 4) = 2.",
            ),
        ),
        Slide(
            title="The Squeeze Theorem",
            bullets=(
                "If g(x) <= f(x) <= h(x) near a, and "
                "lim_{x->a} g(x) = lim_{x->a} h(x) = L, then lim_{x->a} f(x) = L.",
                "Example: -x^2 <= x^2 sin(1/x) <= x^2 for x != 0.",
                "Both bounds tend to 0, so lim_{x->0} x^2 sin(1/x) = 0.",
                "Key special limit: lim_{x->0} sin(x)/x = 1.",
            ),
        ),
        Slide(
            title="Continuity",
            bullets=(
                "f is continuous at a when lim_{x->a} f(x) = f(a).",
                "This needs three things: f(a) is defined, the limit exists, "
                "and the two are equal.",
                "Polynomials, sin, cos, e^x are continuous everywhere; "
                "ln(x) and sqrt(x) on their domains.",
                "Intermediate Value Theorem: if f is continuous on [a, b] and N is "
                "between f(a) and f(b), then f(c) = N for some c in [a, b].",
            ),
        ),
        Slide(
            title="Summary",
            bullets=(
                "A limit describes behaviour near a point, not at the point.",
                "Use the limit laws, then simplify (factor, cancel) when you get 0/0.",
                "A two-sided limit exists only if both one-sided limits agree.",
                "Squeeze theorem: trap f between two functions with the same limit.",
                "Continuity at a: lim_{x->a} f(x) = f(a).",
                "Next lecture: the derivative, defined as a limit.",
            ),
        ),
    ),
)

LECTURE_02 = Deck(
    filename="lecture-02-derivatives.pdf",
    lecture="Lecture 2: Derivatives",
    slides=(
        Slide(
            title="Lecture 2: Derivatives",
            bullets=(
                COURSE_TITLE,
                "Dr. Ada Moreno - Fall 2026",
                "Weeks 4-6: the derivative and the rules of differentiation",
            ),
            is_title_slide=True,
        ),
        Slide(
            title="The Derivative as a Limit",
            bullets=(
                "f'(a) = lim_{h->0} (f(a + h) - f(a)) / h, if this limit exists.",
                "It is the slope of the tangent line and the instantaneous rate of change.",
                "Example: f(x) = x^2 gives ((x + h)^2 - x^2)/h = 2x + h, so f'(x) = 2x.",
                "Notation: f'(x) = dy/dx = d/dx f(x).",
            ),
        ),
        Slide(
            title="The Power Rule",
            bullets=(
                "d/dx x^n = n * x^(n-1) for any real number n.",
                "d/dx c = 0 for a constant c; d/dx (c * f) = c * f'.",
                "Derivatives of sums are sums of derivatives.",
                "Example: d/dx (4x^3 - 5x + 7) = 12x^2 - 5.",
                "Example: d/dx sqrt(x) = d/dx x^(1/2) = 1/(2 sqrt(x)).",
            ),
        ),
        Slide(
            title="The Product Rule",
            bullets=(
                "(f * g)' = f' * g + f * g'",
                "The derivative of a product is NOT the product of the derivatives.",
                "Example: d/dx (x^2 * e^x) = 2x e^x + x^2 e^x = (x^2 + 2x) e^x.",
            ),
        ),
        Slide(
            title="The Quotient Rule",
            bullets=(
                "(f / g)' = (f' * g - f * g') / g^2, wherever g != 0.",
                "Memory aid: 'low d-high minus high d-low, over low squared'.",
                "Example: d/dx (x / (x + 1)) = ((x + 1) - x) / (x + 1)^2 = 1/(x + 1)^2.",
            ),
        ),
        Slide(
            title="The Chain Rule",
            bullets=(
                "If y = f(g(x)), then y' = f'(g(x)) * g'(x).",
                "Leibniz form: dy/dx = dy/du * du/dx with u = g(x).",
                "Differentiate the outer function, keep the inside, "
                "multiply by the derivative of the inside.",
                "Example: d/dx (x^2 + 1)^5 = 5(x^2 + 1)^4 * 2x = 10x (x^2 + 1)^4.",
                "Example: d/dx sin(3x) = 3 cos(3x).",
            ),
        ),
        Slide(
            title="Derivatives of sin, cos, exp and ln",
            bullets=("Basic derivatives to know by heart:",),
            table=(
                ("Function f(x)", "Derivative f'(x)"),
                ("x^n", "n * x^(n-1)"),
                ("sin(x)", "cos(x)"),
                ("cos(x)", "-sin(x)"),
                ("e^x", "e^x"),
                ("ln(x)", "1/x  (for x > 0)"),
            ),
            after_table=("Combine with the chain rule: d/dx e^(2x) = 2 e^(2x).",),
        ),
        Slide(
            title="Tangent Lines",
            bullets=(
                "Tangent line to y = f(x) at x = a: y = f(a) + f'(a)(x - a).",
                "Step 1: the point (a, f(a)). Step 2: the slope m = f'(a).",
                "Example: f(x) = x^2 at a = 3: f(3) = 9 and f'(3) = 6.",
                "Tangent line: y = 9 + 6(x - 3), that is y = 6x - 9.",
            ),
        ),
        Slide(
            title="Summary",
            bullets=(
                "The derivative is a limit: f'(x) = lim_{h->0} (f(x + h) - f(x))/h.",
                "Power rule: (x^n)' = n x^(n-1).",
                "Product rule: (fg)' = f'g + fg'. Quotient rule: (f/g)' = (f'g - fg')/g^2.",
                "Chain rule: (f(g(x)))' = f'(g(x)) g'(x).",
                "Tangent line at a: y = f(a) + f'(a)(x - a).",
                "Practice: worked-exercises.md, Exercises 3-6.",
            ),
        ),
    ),
)

DECKS = (LECTURE_01, LECTURE_02)


class SlidePDF(FPDF):
    """FPDF document with a slide-number footer on every page."""

    def __init__(self, footer_label: str, slide_count: int) -> None:
        super().__init__(orientation="L", unit="mm", format=(PAGE_HEIGHT, PAGE_WIDTH))
        self.footer_label = footer_label
        self.slide_count = slide_count

    def footer(self) -> None:
        self.set_y(FOOTER_TOP + 2)
        self.set_font(FONT, size=FOOTER_SIZE)
        self.set_text_color(*MUTED_RGB)
        half = (PAGE_WIDTH - 2 * MARGIN) / 2
        self.cell(half, 6, self.footer_label, align="L")
        self.cell(half, 6, f"Slide {self.page_no()} / {self.slide_count}", align="R")


def new_document(deck: Deck) -> SlidePDF:
    """Create a PDF with fixed metadata so the output bytes are reproducible."""
    pdf = SlidePDF(f"{COURSE_TITLE} | {deck.lecture}", len(deck.slides))
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(auto=False)
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_producer(PRODUCER)
    pdf.set_creator(PRODUCER)
    pdf.set_author(AUTHOR)
    pdf.set_title(f"{COURSE_TITLE} - {deck.lecture}")
    pdf.set_subject("Sample course lecture slides")
    pdf.set_lang("en")
    return pdf


def draw_title_slide(pdf: SlidePDF, slide: Slide) -> None:
    """Render a centred title with centred subtitle lines."""
    pdf.set_y(PAGE_HEIGHT * 0.32)
    pdf.set_font(FONT, style="B", size=TITLE_SIZE + 6)
    pdf.set_text_color(*ACCENT_RGB)
    pdf.multi_cell(0, 14, slide.title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font(FONT, size=BODY_SIZE)
    pdf.set_text_color(*TEXT_RGB)
    for line in slide.bullets:
        pdf.multi_cell(0, LINE_HEIGHT, line, align="C", new_x="LMARGIN", new_y="NEXT")


def draw_heading(pdf: SlidePDF, title: str) -> None:
    """Render the slide title and an accent rule under it."""
    pdf.set_xy(MARGIN, MARGIN)
    pdf.set_font(FONT, style="B", size=TITLE_SIZE)
    pdf.set_text_color(*ACCENT_RGB)
    pdf.cell(0, 12, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_draw_color(*ACCENT_RGB)
    pdf.set_line_width(0.6)
    pdf.line(MARGIN, pdf.get_y() + 1, PAGE_WIDTH - MARGIN, pdf.get_y() + 1)
    pdf.ln(6)


def draw_bullets(pdf: SlidePDF, bullets: tuple[str, ...]) -> None:
    """Render bullet points; the bullet dot is a shape, so it adds no text."""
    pdf.set_font(FONT, size=BODY_SIZE)
    pdf.set_text_color(*TEXT_RGB)
    pdf.set_fill_color(*ACCENT_RGB)
    text_width = PAGE_WIDTH - 2 * MARGIN - BULLET_INDENT
    for bullet in bullets:
        top = pdf.get_y()
        pdf.circle(MARGIN + 2.5, top + LINE_HEIGHT / 2, 1.2, style="F")
        pdf.set_x(MARGIN + BULLET_INDENT)
        pdf.multi_cell(text_width, LINE_HEIGHT, bullet, align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1.5)


def draw_table(pdf: SlidePDF, rows: tuple[tuple[str, str], ...]) -> None:
    """Render a two-column table with a bold header row and cell borders."""
    pdf.set_font(FONT, size=BODY_SIZE - 1)
    pdf.set_text_color(*TEXT_RGB)
    pdf.set_draw_color(*MUTED_RGB)
    pdf.set_line_width(0.3)
    pdf.set_fill_color(255, 255, 255)
    with pdf.table(
        width=150,
        col_widths=(1, 1),
        line_height=8,
        align="CENTER",
        text_align="CENTER",
        headings_style=FontFace(emphasis="BOLD", fill_color=HEADER_FILL_RGB),
    ) as table:
        for left, right in rows:
            row = table.row()
            row.cell(left)
            row.cell(right)
    pdf.ln(4)


def draw_slide(pdf: SlidePDF, slide: Slide) -> None:
    """Add one page and render a slide on it: title first, then the body."""
    pdf.add_page()
    if slide.is_title_slide:
        draw_title_slide(pdf, slide)
        return
    draw_heading(pdf, slide.title)
    draw_bullets(pdf, slide.bullets)
    if slide.table:
        draw_table(pdf, slide.table)
    draw_bullets(pdf, slide.after_table)
    if pdf.get_y() > FOOTER_TOP:
        raise RuntimeError(f"slide {slide.title!r} overflows into the footer")


def build_deck(deck: Deck, output_dir: Path) -> Path:
    """Render every slide of a deck and write the PDF; return its path."""
    pdf = new_document(deck)
    for slide in deck.slides:
        draw_slide(pdf, slide)
    path = output_dir / deck.filename
    pdf.output(str(path))
    return path


def main() -> None:
    """Build all sample-course slide decks."""
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for deck in DECKS:
        path = build_deck(deck, OUTPUT_DIR)
        print(f"wrote {path.relative_to(OUTPUT_DIR.parent.parent)}")


if __name__ == "__main__":
    main()
