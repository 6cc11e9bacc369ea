"""Names of the payload fields and vectors stored with every chunk."""

from __future__ import annotations

from core.visibility import Visibility

DENSE = "dense"
SPARSE = "sparse"
# One vector per unit of the chunk (late chunking), searched by MaxSim: only where the
# embedder makes them (core.embedding.late_chunking).
UNITS = "units"

COURSE_ID = "course_id"
DOCUMENT_ID = "document_id"
FILE_NAME = "file_name"
PAGE = "page"
SECTION = "section"
KIND = "kind"
VISIBILITY = "visibility"
OWNER_ID = "owner_id"
CONTENT_HASH = "content_hash"
FILE_HASH = "file_hash"
INGESTED_AT = "ingested_at"
TEXT = "text"
# What the embedder read (a context header and the chunk): `coursebot reindex` embeds it again.
EMBED_TEXT = "embed_text"
TITLE = "title"
CHUNK_INDEX = "chunk_index"
# The document's size, on every chunk of it: a student's notes quota adds them up.
PAGE_COUNT = "page_count"
FILE_BYTES = "file_bytes"
GENERATION = "generation"
# Whether the chunk teaches or is course logistics (core.content_kind); absent on chunks
# stored before it was recorded.
CONTENT_KIND = "content_kind"
# How many chunks the document's generation has (a partial write has fewer stored).
CHUNK_COUNT = "chunk_count"
EXERCISE_ID = "exercise_id"
EXERCISE_SOURCE = "exercise_source"
# The document's identity (core.documents.identity), on every chunk of it.
DOC_CODES = "doc_codes"
DOC_NAMES = "doc_names"
DOC_FAMILY = "doc_family"
DOC_VERSION = "doc_version"
DOC_PROGRAMME = "doc_programme"
DOC_GROUPS = "doc_groups"

# Fields searched or filtered on, and so indexed.
KEYWORD_INDEXES = (
    COURSE_ID,
    OWNER_ID,
    VISIBILITY,
    DOCUMENT_ID,
    KIND,
    GENERATION,
    EXERCISE_ID,
    CONTENT_KIND,
)


# A chunk's visibility is the policy's (core.visibility), stored under VISIBILITY.
__all__ = ["Visibility"]
