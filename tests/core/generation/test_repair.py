"""The syntax repairs on their own: each one fixes its breakage and leaves valid JSON alone."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, RootModel

from core.generation.repair import (
    drop_trailing_commas,
    escape_latex_backslashes,
    repair_text,
    strip_code_fence,
    wrap_lone_objects,
)


class Card(BaseModel):
    front: str
    back: str


class Deck(BaseModel):
    cards: list[Card]


@pytest.mark.parametrize(
    "fenced",
    [
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        '  ```JSON\n{"a": 1}```  ',
        'Here is the exercise:\n```json\n{"a": 1}\n```\nGood luck!',
    ],
)
def test_code_fences_are_taken_off(fenced: str) -> None:
    assert json.loads(strip_code_fence(fenced)) == {"a": 1}


def test_a_fence_inside_a_json_string_is_content() -> None:
    text = '{"code": "```python\\nprint(1)\\n```"}'
    assert strip_code_fence(text) == text


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        (r'{"q": "\frac{1}{2}"}', r"\frac{1}{2}"),
        (r'{"q": "\beta + \theta"}', r"\beta + \theta"),
        (r'{"q": "\nabla f \neq 0"}', r"\nabla f \neq 0"),
        (r'{"q": "\left( x \right)"}', r"\left( x \right)"),
        (r'{"q": "\alpha \sum_i \{x\} \, \underline{u}"}', r"\alpha \sum_i \{x\} \, \underline{u}"),
        (r'{"q": "\times \text{m}"}', r"\times \text{m}"),
    ],
)
def test_latex_backslashes_are_escaped(written: str, meant: str) -> None:
    assert json.loads(escape_latex_backslashes(written)) == {"q": meant}


@pytest.mark.parametrize(
    "valid",
    [
        r'{"q": "already \\frac{1}{2} escaped"}',
        r'{"q": "a \"quote\" and a \/ slash"}',
        r'{"q": "line one\nSecond line\n2nd"}',
        r'{"q": "caf\u00e9"}',
        r'{"q\\f": "keys too"}',
    ],
)
def test_valid_escapes_are_kept(valid: str) -> None:
    assert escape_latex_backslashes(valid) == valid


def test_backslashes_outside_strings_are_not_touched() -> None:
    assert escape_latex_backslashes('{"a": 1} \\x') == '{"a": 1} \\x'


def test_trailing_commas_are_dropped_outside_strings_only() -> None:
    text = '{"a": [1, 2, ], "b": {"c": "x, }", }, }'
    assert json.loads(drop_trailing_commas(text)) == {"a": [1, 2], "b": {"c": "x, }"}}


def test_repairs_run_in_order_and_report_what_they_changed() -> None:
    text = '```json\n{"q": "\\frac{1}{2}",}\n```'

    repaired, applied = repair_text(text)

    assert json.loads(repaired) == {"q": "\\frac{1}{2}"}
    assert applied == ["code_fence", "latex_backslash", "trailing_comma"]
    assert repair_text('{"q": "fine"}') == ('{"q": "fine"}', [])


def test_a_lone_item_is_wrapped_into_the_list_field() -> None:
    schema = Deck.model_json_schema()

    assert wrap_lone_objects({"front": "f", "back": "b"}, schema) == (
        {"cards": [{"front": "f", "back": "b"}]},
        True,
    )
    assert wrap_lone_objects({"cards": {"front": "f", "back": "b"}}, schema) == (
        {"cards": [{"front": "f", "back": "b"}]},
        True,
    )
    assert wrap_lone_objects({"cards": []}, schema) == ({"cards": []}, False)


def test_a_lone_object_is_wrapped_when_the_root_is_a_list() -> None:
    schema = RootModel[list[Card]].model_json_schema()

    assert wrap_lone_objects({"front": "f", "back": "b"}, schema) == (
        [{"front": "f", "back": "b"}],
        True,
    )


_TEXT = st.text(st.characters(exclude_categories=("Cc", "Cs")))


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
))  # fmt: skip
def test_repairs_leave_valid_json_alone(value: object) -> None:
    """What a well-behaved model writes (without control characters, which are the one
    thing read as LaTeX on purpose) survives every repair unchanged."""
    text = json.dumps(value)

    assert repair_text(text) == (text, [])
    assert repair_text(json.dumps(value, ensure_ascii=False)) == (
        json.dumps(value, ensure_ascii=False),
        [],
    )
