from __future__ import annotations

import pytest

from core.errors import BadInputError, UserFacingError
from core.input_limits import check_text_length


def test_text_at_the_limit_is_accepted() -> None:
    check_text_length("x" * 2000, 2000)
    check_text_length("", 2000)


def test_text_over_the_limit_is_refused_with_both_lengths_in_the_message() -> None:
    with pytest.raises(BadInputError) as caught:
        check_text_length("x" * 2345, 2000)
    assert str(caught.value) == (
        "Your message is 2,345 characters long; the limit is 2,000. Please shorten it."
    )
    assert isinstance(caught.value, UserFacingError)


def test_length_counts_characters_not_bytes() -> None:
    check_text_length("é" * 10, 10)
    with pytest.raises(BadInputError, match="11 characters"):
        check_text_length("é" * 11, 10)
