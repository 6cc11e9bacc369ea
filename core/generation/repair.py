"""Syntax-only repairs of a small model's JSON reply, applied in a fixed order.

1. `code_fence`: the JSON inside a Markdown fence (```json ... ```) is taken out of it.
2. `latex_backslash`: backslashes of LaTeX inside JSON strings are escaped. JSON reads
   `"\\frac"` as a form feed and `"rac"`, and refuses `"\\alpha"`; so a backslash that starts
   no valid JSON escape is doubled, and so is a valid-looking `\\b`, `\\f`, `\\t` or `\\r`
   followed by a letter (`\\beta`, `\\frac`, `\\theta`, `\\right`), and a `\\n` that starts a
   known LaTeX command (`\\nabla`, `\\neq`, `\\nu`...): a real line break before a word
   ("...\\nSecond") is kept.
3. `trailing_comma`: a comma right before `]` or `}` is dropped.

Structure is repaired after parsing (`wrap_lone_objects`): a lone object where the schema
asks for a list is wrapped in one. Nothing here touches meaning: a wrong answer index or a
swapped field is for validation and a re-ask."""

from __future__ import annotations

import re
from typing import Any

CODE_FENCE = "code_fence"
LATEX_BACKSLASH = "latex_backslash"
TRAILING_COMMA = "trailing_comma"
LONE_OBJECT = "lone_object"

_FENCE_WHOLE = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?[ \t]*```\s*$", re.DOTALL)
_FENCE_INSIDE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)

# LaTeX commands starting with `n`: `\n` followed by one of these is LaTeX, not a line break.
_LATEX_N_COMMANDS = frozenset(
    {
        "nabla", "natural", "ne", "nearrow", "neg", "neq", "newline", "nexists", "ngeq",
        "ngtr", "ni", "nleftarrow", "nleq", "nless", "nmid", "nolimits", "nonumber", "not",
        "notin", "nparallel", "nrightarrow", "nsim", "nsubseteq", "nsupseteq", "nu", "nwarrow",
        "nLeftarrow", "nRightarrow", "nvdash", "ncong", "nprec", "nsucc",
    }
)  # fmt: skip
_JSON_ESCAPES = frozenset('"\\/bfnrtu')
_HEX = frozenset("0123456789abcdefABCDEF")


def strip_code_fence(text: str) -> str:
    """The JSON inside a Markdown code fence; `text` itself when it is not fenced."""
    whole = _FENCE_WHOLE.match(text)
    if whole:
        return whole.group(1).strip()
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return text  # a fence inside a JSON string is content, not wrapping
    inside = _FENCE_INSIDE.search(text)
    return inside.group(1).strip() if inside else text


def escape_latex_backslashes(text: str) -> str:
    """`text` with LaTeX backslashes inside JSON strings escaped (see the module doc)."""
    out: list[str] = []
    in_string = False
    i, size = 0, len(text)
    while i < size:
        char = text[i]
        if not in_string:
            out.append(char)
            in_string = char == '"'
            i += 1
            continue
        if char == '"':
            out.append(char)
            in_string = False
            i += 1
            continue
        if char != "\\":
            out.append(char)
            i += 1
            continue
        following = text[i + 1] if i + 1 < size else ""
        if _is_latex(text, i + 1, following):
            out.append("\\\\")  # the command's letters follow as ordinary characters
            i += 1
        else:
            out.append(char + following)  # a valid escape, kept as the model wrote it
            i += 2
    return "".join(out)


def _is_latex(text: str, start: int, following: str) -> bool:
    if following not in _JSON_ESCAPES:
        return True  # `\alpha`, `\sum`, `\{`, `\,`: no JSON escape starts like that
    if following == "u":
        code = text[start + 1 : start + 5]
        return len(code) < 4 or not set(code) <= _HEX  # `\underline`, `\uparrow`
    if following in "bftr":
        return start + 1 < len(text) and text[start + 1].isascii() and text[start + 1].isalpha()
    if following == "n":
        end = start
        while end < len(text) and text[end].isascii() and text[end].isalpha():
            end += 1
        return text[start:end] in _LATEX_N_COMMANDS
    return False  # `\"`, `\\`, `\/`


def drop_trailing_commas(text: str) -> str:
    """`text` without commas that directly precede `]` or `}` (outside strings)."""
    out: list[str] = []
    in_string = False
    i, size = 0, len(text)
    while i < size:
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\" and i + 1 < size:
                out.append(text[i + 1])
                i += 2
                continue
            in_string = char != '"'
            i += 1
            continue
        if char == ",":
            ahead = i + 1
            while ahead < size and text[ahead] in " \t\r\n":
                ahead += 1
            if ahead < size and text[ahead] in "]}":
                i += 1
                continue
        in_string = char == '"'
        out.append(char)
        i += 1
    return "".join(out)


def repair_text(text: str) -> tuple[str, list[str]]:
    """The text after the syntax repairs, and the names of those that changed something."""
    applied: list[str] = []
    for name, step in (
        (CODE_FENCE, strip_code_fence),
        (LATEX_BACKSLASH, escape_latex_backslashes),
        (TRAILING_COMMA, drop_trailing_commas),
    ):
        repaired = step(text)
        if repaired != text:
            applied.append(name)
            text = repaired
    return text, applied


def wrap_lone_objects(value: Any, schema: dict[str, Any]) -> tuple[Any, bool]:
    """`value` with every object standing where `schema` asks for an array wrapped in a
    one-item list; a bare item given for a schema that is one list field gets that field.
    True when anything was wrapped."""
    defs = schema.get("$defs", {})
    root = _resolve(schema, defs)
    if isinstance(value, dict) and not _is_array(root, defs):
        field = _single_list_field(root, defs)
        if field is not None and field not in value:
            item = _resolve(_resolve(root["properties"][field], defs).get("items", {}), defs)
            if _looks_like(value, item):
                return {field: [value]}, True
    return _wrap(value, root, defs)


def _wrap(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> tuple[Any, bool]:
    schema = _resolve(schema, defs)
    if _is_array(schema, defs) and isinstance(value, dict):
        item = _resolve(_array_branch(schema, defs).get("items", {}), defs)
        wrapped, _ = _wrap(value, item, defs)
        return [wrapped], True
    changed = False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key, sub in properties.items():
            if key in value:
                value[key], did = _wrap(value[key], sub, defs)
                changed |= did
    elif isinstance(value, list) and _is_array(schema, defs):
        item = _array_branch(schema, defs).get("items", {})
        for index, element in enumerate(value):
            value[index], did = _wrap(element, item, defs)
            changed |= did
    return value, changed


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


def _array_branch(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if schema.get("type") == "array":
        return schema
    for option in schema.get("anyOf", []):
        option = _resolve(option, defs)
        if option.get("type") == "array":
            return option
    return {}


def _is_array(schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    if schema.get("type") == "array":
        return True
    options = [_resolve(o, defs) for o in schema.get("anyOf", [])]
    # `list[X] | None` asks for a list; `list[X] | X` accepts the object as it is.
    return any(o.get("type") == "array" for o in options) and not any(
        o.get("type") == "object" for o in options
    )


def _single_list_field(schema: dict[str, Any], defs: dict[str, Any]) -> str | None:
    properties = schema.get("properties", {})
    if len(properties) != 1:
        return None
    [(name, sub)] = properties.items()
    return name if _resolve(sub, defs).get("type") == "array" else None


def _looks_like(value: dict[str, Any], item: dict[str, Any]) -> bool:
    """`value` has the keys an item of the list requires (so it is one item, unwrapped)."""
    required = item.get("required", [])
    return item.get("type") == "object" and bool(required) and all(k in value for k in required)
