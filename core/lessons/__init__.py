"""Personalised lessons: slide decks on a topic for four reading profiles, rendered to PDF
with typeset math (`render_deck`), checked on the PDF itself (`check_pdf`), built from
retrieved passages without a model (`build_extractive_deck`), with sanitised HTML widgets
(`sanitise_widget`)."""

from core.lessons.checks import check_pdf, contrast_ratio, relative_luminance
from core.lessons.figures import PageSource, SlideFigure, lesson_map
from core.lessons.math import TypstMath, to_typst
from core.lessons.models import (
    Citation,
    Deck,
    Profile,
    Slide,
    SlideBounds,
    SlideCountError,
    SlideKind,
)
from core.lessons.outline import NotEnoughMaterialError, build_extractive_deck, split_passage
from core.lessons.profiles import (
    ProfileRules,
    ProfileStyle,
    adapt_deck,
    minimum_body_pt,
    rules_for,
    style_for,
)
from core.lessons.render import Engine, pdflatex_available, render_deck, resolve_engine
from core.lessons.service import LessonResult, LessonService
from core.lessons.typst_engine import RenderError
from core.lessons.widgets import RefusedWidget, SanitisedWidget, sanitise_widget, widget_file_name

__all__ = [
    "Citation",
    "Deck",
    "Engine",
    "LessonResult",
    "LessonService",
    "NotEnoughMaterialError",
    "PageSource",
    "Profile",
    "ProfileRules",
    "ProfileStyle",
    "RefusedWidget",
    "RenderError",
    "SanitisedWidget",
    "Slide",
    "SlideBounds",
    "SlideCountError",
    "SlideFigure",
    "SlideKind",
    "TypstMath",
    "adapt_deck",
    "build_extractive_deck",
    "check_pdf",
    "contrast_ratio",
    "lesson_map",
    "minimum_body_pt",
    "pdflatex_available",
    "relative_luminance",
    "render_deck",
    "resolve_engine",
    "rules_for",
    "sanitise_widget",
    "split_passage",
    "style_for",
    "to_typst",
    "widget_file_name",
]
