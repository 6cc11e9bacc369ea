"""Source markup is not printed on a slide: a book's bracketed highlights lose their brackets."""

from __future__ import annotations

from core.lessons.markup import slide_text


def test_a_bracketed_highlight_prints_as_its_words_alone() -> None:
    # d2l writes highlights as [**...**] and (**...**) (found on a dropout deck).
    assert slide_text("We can [**test out the `dropout_layer` function**].") == (
        "We can test out the dropout_layer function."
    )
    assert slide_text("we (**implement a `dropout_layer` function**), rescaling") == (
        "we implement a dropout_layer function, rescaling"
    )


def test_plain_brackets_and_bold_links_keep_their_meaning() -> None:
    assert slide_text("Keep (this), [that] and **bold**.") == "Keep (this), [that] and bold."
    assert slide_text("See [**the notes**](http://example.org).") == "See the notes."
