"""Markdown: headings give the section path; paragraphs, list items, tables, code blocks and
display formulas become blocks in reading order (markdown-it-py, CommonMark plus tables, and
mdit-py-plugins' math: a `$$…$$` or `\\[…\\]` block is one block, where CommonMark read its
lines starting with `+ ` or `- ` as a list and dropped the signs). A leading YAML front matter
block is metadata: its `title` names the document, the rest is not read. A line that is only
a markup directive (d2l's `:label:`sec_x``, `:begin_tab:`pytorch``, `:end_tab:`) opening or
closing a paragraph says nothing to a reader and is dropped."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.texmath import texmath_plugin

from ingestion.documents import Block, BlockKind, LoadedDocument, Table
from ingestion.loaders.front_matter import split_front_matter
from ingestion.loaders.plain_text import read_text

_STRONG = re.compile(r"(\*\*|__)(.+?)\1")
# d2l's highlight of what its code cells do ("we can [**inspect the model**]"): brackets
# around bold that are no link text. Bold in parentheses is prose ("(**numerical gradient**)").
_HIGHLIGHT = re.compile(r"\[\*\*(.+?)\*\*\](?![(\[])")
# A heading the same dialect wraps whole ("[**Training**]", "(**Vanishing Gradients**)").
_WRAPPED_HEADING = re.compile(r"\[\*\*(.+)\*\*\]|\(\*\*(.+)\*\*\)")
# A role with at most one argument and nothing else on its line (reST/Sphinx and d2l's
# dialect: ":label:`fig_mlp`", ":width:`400px`", ":end_tab:").
_DIRECTIVE_LINE = re.compile(r"[ \t]*:[A-Za-z][\w-]*:(?:`[^`]*`)?[ \t]*")
# A paragraph that is one bold span: "**Pros and Cons of Nearest Neighbor classifier.**".
_RUN_IN_HEADING = re.compile(r"(\*\*|__)([^*_\n]+?)\1")
_RUN_IN_MAX_WORDS = 12
_RUN_IN_LEVEL = 7  # under every Markdown heading level: the next real heading ends it


def load_markdown(path: Path, file_name: str, with_images: bool = False) -> LoadedDocument:
    front = split_front_matter(read_text(path))
    tokens = _parser().parse(front.body)
    title = front.title or _title_heading(tokens) or Path(file_name).stem
    return LoadedDocument(file_name=file_name, title=title, blocks=list(_blocks(tokens)))


def _parser() -> MarkdownIt:
    # Inline math stays in its paragraph's source text; the plugins matter for the blocks.
    parser = MarkdownIt("commonmark").enable("table")
    parser.use(dollarmath_plugin, allow_labels=False, allow_space=True, allow_digits=True)
    return parser.use(texmath_plugin, delimiters="brackets")


def _title_heading(tokens: list[Token]) -> str:
    """The first heading when it heads the whole file: no later heading is at its level or
    above. Notes whose first heading is one section of several ("## Introduction", then
    "## Modeling one neuron") have no title heading."""
    headings = [
        (int(token.tag[1]), _heading(tokens[i + 1].content))
        for i, token in enumerate(tokens)
        if token.type == "heading_open"
    ]
    if not headings:
        return ""
    level, text = headings[0]
    return text if all(other > level for other, _ in headings[1:]) else ""


def _blocks(tokens: list[Token]):
    headings: list[tuple[int, str]] = []
    list_depth = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        section = tuple(text for _, text in headings)
        if token.type == "heading_open":
            level = int(token.tag[1])
            headings = [h for h in headings if h[0] < level]
            headings.append((level, _heading(tokens[i + 1].content)))
            i += 3
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif token.type == "inline" and tokens[i - 1].type == "paragraph_open":
            run_in = None if list_depth else _RUN_IN_HEADING.fullmatch(token.content.strip())
            if run_in and len(run_in.group(2).split()) <= _RUN_IN_MAX_WORDS:
                # A paragraph all in bold is a heading its author set by hand: it names the
                # text below it (and is never quoted alone as an answer).
                headings = [h for h in headings if h[0] < _RUN_IN_LEVEL]
                headings.append((_RUN_IN_LEVEL, _heading(run_in.group(2)).rstrip(".:")))
                i += 1
                continue
            kind = BlockKind.LIST_ITEM if list_depth else BlockKind.PARAGRAPH
            # Soft line breaks inside a Markdown paragraph are spaces.
            content = _prose(" ".join(_without_directives(_without_html(token)).split()))
            if content:
                prefix = "- " if list_depth else ""
                yield Block(prefix + content, kind, section=section)
        elif token.type == "math_block" and token.content.strip():
            # As a paragraph holding it read: its lines joined by spaces, in its own marks.
            close = "\\]" if token.markup == "\\[" else "$$"
            formula = " ".join(token.content.split())
            yield Block(f"{token.markup} {formula} {close}", BlockKind.PARAGRAPH, section=section)
        elif token.type in ("fence", "code_block") and token.content.strip():
            yield Block(token.content.rstrip(), BlockKind.PARAGRAPH, section=section)
        elif token.type == "table_open":
            table, i = _table(tokens, i)
            if table.rows or any(table.header):
                yield Block(table.render(), BlockKind.TABLE, section=section, table=table)
            continue
        i += 1


def _prose(text: str) -> str:
    """Inline text without its bold marks (a reader sees them as weight, not as stars)."""
    return _STRONG.sub(r"\2", _HIGHLIGHT.sub(r"\1", text))


def _heading(text: str) -> str:
    """A heading as a section name: without bold marks, nor the highlight wrapping it."""
    text = text.strip()
    wrapped = _WRAPPED_HEADING.fullmatch(text)
    if wrapped:
        text = wrapped.group(1) or wrapped.group(2)
    return _prose(text)


def _without_html(inline: Token) -> str:
    """The paragraph's source without its inline HTML tags (an anchor such as
    `<a name='analytic'></a>` is a link target, not text); the text between tags stays."""
    text = inline.content
    for child in inline.children or []:
        if child.type == "html_inline":
            text = text.replace(child.content, " ", 1)
    return text


def _without_directives(paragraph: str) -> str:
    """The paragraph without the directive lines that open or close it. One inside it is a
    reference its sentence reads ("the output in\\n:numref:`fig_x`\\nis called") and stays."""
    lines = paragraph.split("\n")
    start, end = 0, len(lines)
    while start < end and _DIRECTIVE_LINE.fullmatch(lines[start]):
        start += 1
    while end > start and _DIRECTIVE_LINE.fullmatch(lines[end - 1]):
        end -= 1
    return "\n".join(lines[start:end])


def _table(tokens: list[Token], start: int) -> tuple[Table, int]:
    """Read a table from `table_open`; returns the table and the index after `table_close`."""
    rows: list[tuple[str, ...]] = []
    header: tuple[str, ...] = ()
    cells: list[str] = []
    i = start + 1
    while tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(_prose(" ".join(token.content.split())))
        elif token.type == "tr_close":
            if not header and tokens[i - 1].type == "th_close":
                header = tuple(cells)
            else:
                rows.append(tuple(cells))
        i += 1
    return Table(header=header, rows=tuple(rows)), i + 1
