"""Every instruction we send to a language model, in one place."""

from __future__ import annotations

CAPTION_IMAGE = (
    "This image comes from a page of course material. Describe what it shows in two or three "
    "factual sentences for a student who cannot see it: name any diagram, chart, formula or "
    "labelled parts, and copy any text in it. Do not add anything that is not visible."
)
