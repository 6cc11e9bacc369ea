"""Reading `*.exercise.yaml` files into `ExerciseDefinition`s, with errors an instructor can act
on: every problem names the file, the line and the field, like

    calc.exercise.yaml line 14: steps[1].answer.kind: unknown kind 'numerc' (expected numeric,
    symbolic, choice, free_text)

The YAML is composed into nodes first (they carry line numbers), then validated by the
pydantic models; each validation error's location is walked back through the nodes to a line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from core.errors import BadInputError
from core.exercises.definitions import (
    KINDS,
    ChoiceAnswer,
    DefinitionError,
    ExerciseDefinition,
    FreeTextAnswer,
    NumericAnswer,
    Step,
    SymbolicAnswer,
)
from core.exercises.parameters import (
    ParameterProblem,
    Template,
    describe_values,
    instance_id,
    read_template,
)

EXERCISE_SUFFIX = ".exercise.yaml"
MAX_FILE_BYTES = 256 * 1024

Path_ = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class FormatProblem:
    """One thing wrong with a file: where (line counted from 1, and the field) and why."""

    line: int | None
    field: str
    reason: str

    def describe(self, source_name: str) -> str:
        where = f"{source_name} line {self.line}" if self.line else source_name
        return f"{where}: {self.field}: {self.reason}" if self.field else f"{where}: {self.reason}"


class ExerciseFormatError(BadInputError):
    """An exercise file that is not valid. `str()` lists every problem found, one per line,
    each naming the file, the line and the reason."""

    def __init__(
        self, message: str, *, source_name: str = "", problems: tuple[FormatProblem, ...] = ()
    ) -> None:
        super().__init__(message)
        self.source_name = source_name
        self.problems = problems

    @classmethod
    def of(cls, source_name: str, problems: Iterable[FormatProblem]) -> ExerciseFormatError:
        found = tuple(problems)
        message = "\n".join(problem.describe(source_name) for problem in found)
        return cls(message, source_name=source_name, problems=found)

    @property
    def line(self) -> int | None:
        return self.problems[0].line if self.problems else None


class _Loader(yaml.SafeLoader):
    """YAML 1.1 without its surprises: `yes`, `no`, `on`, `off` stay text (an option may be
    "No"), and dates stay text. Only `true` and `false` are booleans."""


_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, pattern)
        for tag, pattern in resolvers
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class _NodeProblem(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def parse_exercise(text: str, source_name: str) -> ExerciseDefinition:
    """The exercise in `text` (the content of the file `source_name`), or
    `ExerciseFormatError` naming the file, line and reason of each problem."""
    if len(text.encode("utf-8", errors="replace")) > MAX_FILE_BYTES:
        raise ExerciseFormatError.of(
            source_name,
            [FormatProblem(None, "", f"the file is larger than {MAX_FILE_BYTES // 1024} KB")],
        )
    data, lines = _load_yaml(text, source_name)
    if not isinstance(data, dict):
        raise ExerciseFormatError.of(
            source_name,
            [
                FormatProblem(
                    lines.get((), 1),
                    "",
                    "the file must be a mapping of fields (id, title, topic, skills, steps)",
                )
            ],
        )
    try:
        template = read_template(data)
    except ParameterProblem as problem:
        raise ExerciseFormatError.of(source_name, [_parameter_problem(problem, lines)]) from None
    if template is None:
        return _validate(data, lines, source_name)
    return _validate_template(template, lines, source_name)


def draw_instance(definition: ExerciseDefinition, seed: int) -> ExerciseDefinition:
    """The instance of a parametric exercise for `seed`, id `{id}-v{seed as 8 hex digits}`;
    `ExerciseFormatError` (naming the values) when these values break a rule."""
    template: Template | None = definition.template
    if template is None:
        raise ValueError(f"'{definition.id}' has no parameters")
    values = template.draw(seed)
    data = template.substitute(values)
    data["id"] = instance_id(definition.id, seed)
    return _validate(data, {}, f"{definition.id}.exercise.yaml", describe_values(values))


def _validate_template(
    template: Template, lines: dict[Path_, int], source_name: str
) -> ExerciseDefinition:
    """The instance with the lowest values, after the lowest, the highest and a few seeded
    draws all passed validation; the first failure is reported with its values."""
    first: ExerciseDefinition | None = None
    try:
        samples = list(template.samples())
    except ParameterProblem as problem:
        raise ExerciseFormatError.of(source_name, [_parameter_problem(problem, lines)]) from None
    for values in samples:
        where = describe_values(values)
        definition = _validate(template.substitute(values), lines, source_name, where)
        first = first or definition
    assert first is not None
    first._template = template
    return first


def _validate(
    data: dict[str, Any], lines: dict[Path_, int], source_name: str, values: str = ""
) -> ExerciseDefinition:
    try:
        return ExerciseDefinition.model_validate(data)
    except ValidationError as error:
        problems = [_problem(detail, data, lines) for detail in error.errors()]
        if values:
            problems = [
                FormatProblem(p.line, f"with {values}: {p.field}".rstrip(": "), p.reason)
                for p in problems
            ]
        unique = list(dict.fromkeys(problems))
        unique.sort(key=lambda problem: problem.line or 0)
        raise ExerciseFormatError.of(source_name, unique) from None


def _parameter_problem(
    problem: ParameterProblem, lines: dict[Path_, int], values: str = ""
) -> FormatProblem:
    field = _field_name(problem.path)
    if values:
        field = f"with {values}: {field}"
    return FormatProblem(_line_for(problem.path, lines), field, str(problem))


def load_exercise_file(path: Path) -> ExerciseDefinition:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ExerciseFormatError.of(
            path.name, [FormatProblem(None, "", "the file is not UTF-8 text")]
        ) from None
    return parse_exercise(text, path.name)


def load_exercise_folder(
    folder: Path,
) -> tuple[list[ExerciseDefinition], list[ExerciseFormatError]]:
    """Every `*.exercise.yaml` below `folder`, sorted by path: the valid definitions, and an
    error for each invalid file or for a repeated id (the first file with an id wins)."""
    definitions: list[ExerciseDefinition] = []
    errors: list[ExerciseFormatError] = []
    first_file: dict[str, str] = {}
    for path in sorted(folder.rglob(f"*{EXERCISE_SUFFIX}")):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        try:
            definition = load_exercise_file(path)
        except ExerciseFormatError as error:
            errors.append(error)
            continue
        if definition.id in first_file:
            reason = f"the id '{definition.id}' is already used by {first_file[definition.id]}"
            errors.append(ExerciseFormatError.of(path.name, [FormatProblem(None, "id", reason)]))
            continue
        first_file[definition.id] = path.name
        definitions.append(definition)
    return definitions, errors


def _load_yaml(text: str, source_name: str) -> tuple[Any, dict[Path_, int]]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise _NodeProblem(1, "the file is empty")
        lines: dict[Path_, int] = {}
        _map_lines(node, (), node.start_mark.line + 1, lines, set())
        data = loader.construct_document(node)
    except _NodeProblem as problem:
        raise ExerciseFormatError.of(
            source_name, [FormatProblem(problem.line, "", problem.reason)]
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        reason = "; ".join(part for part in (error.context, error.problem) if part)
        line = mark.line + 1 if mark else None
        raise ExerciseFormatError.of(
            source_name, [FormatProblem(line, "", f"YAML syntax error: {reason}")]
        ) from None
    except yaml.YAMLError as error:
        raise ExerciseFormatError.of(
            source_name, [FormatProblem(None, "", f"YAML syntax error: {error}")]
        ) from None
    except RecursionError:
        raise ExerciseFormatError.of(
            source_name, [FormatProblem(None, "", "the file is nested too deeply")]
        ) from None
    finally:
        loader.dispose()
    return data, lines


def _map_lines(
    node: yaml.Node, path: Path_, line: int, lines: dict[Path_, int], seen: set[int]
) -> None:
    """Record the line of every field (its key) and list item (its start), refusing anchors
    and aliases (a few of them can expand into a huge document) and repeated keys."""
    if id(node) in seen:
        raise _NodeProblem(line, "anchors and aliases (& and *) are not supported")
    seen.add(id(node))
    lines[path] = line
    if isinstance(node, yaml.MappingNode):
        keys: set[str] = set()
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise _NodeProblem(key_line, "a field name must be plain text")
            if key_node.value in keys:
                raise _NodeProblem(key_line, f"the field '{key_node.value}' appears twice")
            keys.add(key_node.value)
            _map_lines(value_node, (*path, key_node.value), key_line, lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _map_lines(item, (*path, index), item.start_mark.line + 1, lines, seen)


def _problem(detail: Any, data: Any, lines: dict[Path_, int]) -> FormatProblem:
    path = _data_path(detail["loc"], data)
    kind = detail["type"]
    context = detail.get("ctx") or {}
    expected_kinds = ", ".join(KINDS)
    if kind == "union_tag_invalid":
        path = (*path, "kind")
        reason = f"unknown kind '{context.get('tag')}' (expected {expected_kinds})"
    elif kind == "union_tag_not_found":
        path = (*path, "kind")
        reason = f"this field is required (one of {expected_kinds})"
    elif kind == "value_error" and isinstance(context.get("error"), DefinitionError):
        path = (*path, *context["error"].path)
        reason = str(context["error"])
    else:
        reason = _reason(kind, detail, path)
    return FormatProblem(_line_for(path, lines), _field_name(path), reason)


def _data_path(loc: tuple[Any, ...], data: Any) -> Path_:
    """pydantic's location as a path into the document: the tag a discriminated union adds
    (`answer.numeric.value`) is dropped."""
    path: list[str | int] = []
    current: Any = data
    for part in loc:
        if isinstance(current, dict):
            if part in current:
                current = current[part]
            elif current.get("kind") == part:
                continue
            else:
                current = None
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
        else:
            current = None
        path.append(part)
    return tuple(path)


def _line_for(path: Path_, lines: dict[Path_, int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _field_name(path: Path_) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


_FIELD_NAMES = sorted(
    {
        name
        for model in (
            ExerciseDefinition,
            Step,
            NumericAnswer,
            SymbolicAnswer,
            ChoiceAnswer,
            FreeTextAnswer,
        )
        for name in model.model_fields
    }
    | {"parameters"}
)


def _reason(kind: str, detail: dict[str, Any], path: Path_) -> str:
    context = detail.get("ctx") or {}
    if kind == "missing":
        return "this field is required"
    if kind == "extra_forbidden":
        name = str(path[-1]) if path else ""
        close = difflib.get_close_matches(name, _FIELD_NAMES, n=1)
        return f"unknown field (did you mean '{close[0]}'?)" if close else "unknown field"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_short":
        least = context.get("min_length", 1)
        return f"needs at least {least} item{'s' if least != 1 else ''}"
    if kind == "too_long":
        return f"has more than {context.get('max_length')} items"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "should be a mapping of fields"
    if kind in ("list_type", "tuple_type"):
        return "should be a list"
    if kind == "string_type":
        return "should be text"
    message = str(detail.get("msg", "is not valid"))
    message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


__all__ = [
    "EXERCISE_SUFFIX",
    "ExerciseFormatError",
    "FormatProblem",
    "draw_instance",
    "load_exercise_file",
    "load_exercise_folder",
    "parse_exercise",
]
