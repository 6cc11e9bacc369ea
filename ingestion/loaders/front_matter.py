"""A Markdown file's leading YAML front matter (Jekyll, Hugo, MkDocs: `---` lines around
`key: value` settings such as `layout`, `title`, `permalink`). It is metadata for a site
builder, not course text: CommonMark alone reads its keys as a heading underlined by the
closing `---`, so citations named the document "layout: page permalink: /...".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

# The block must open the file; Jekyll and Pandoc also close it with "...".
_BLOCK = re.compile(r"\A---[ \t]*\n(?P<body>(?:.*?\n)??)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """The settings read from the block (empty when there was none) and the text after it."""

    settings: dict[str, object]
    body: str

    @property
    def title(self) -> str:
        """The `title` setting on one line, or "" when absent or not a plain value."""
        title = self.settings.get("title")
        if isinstance(title, str | int | float) and not isinstance(title, bool):
            return " ".join(str(title).split())
        return ""


def split_front_matter(text: str) -> FrontMatter:
    """The leading front matter of `text` and the rest. A block that is no YAML mapping
    (a typo, or a file that merely opens with a rule and a line of text) is left as text:
    a wrong guess would drop content, a kept block only shows its keys."""
    match = _BLOCK.match(text)
    if match is None:
        return FrontMatter({}, text)
    try:
        settings = yaml.safe_load(match.group("body"))
    except yaml.YAMLError:
        return FrontMatter({}, text)
    if settings is None:  # "---\n---": an empty block, as Jekyll allows
        settings = {}
    if not isinstance(settings, dict):
        return FrontMatter({}, text)
    return FrontMatter({str(key): value for key, value in settings.items()}, text[match.end() :])
