"""Counts WordPiece tokens with the bundled MiniLM tokenizer: exact for the bundled embedder,
a close estimate for others."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer

TOKENIZER_PATH = Path(__file__).with_name("minilm-tokenizer.json")


def load_tokenizer(truncate_at: int | None = None) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    # The shipped file pads every input to 128; callers pad per batch themselves.
    tokenizer.no_padding()
    if truncate_at is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(truncate_at)
    return tokenizer


class TokenCounter:
    def __init__(self) -> None:
        self._tokenizer = load_tokenizer()

    def __call__(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)
