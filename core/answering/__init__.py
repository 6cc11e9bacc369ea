"""Grounded answers: an LLM's cited answer, or quotes from the material, or an abstention."""

from core.answering.budget import DEFAULT_CONTEXT_CHARS, pack, passage_chars
from core.answering.extractive import ExtractiveAnswerer
from core.answering.llm_answerer import LlmAnswerer
from core.answering.service import Answerer, FactAnswerer, QuestionAnswering

__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "Answerer",
    "ExtractiveAnswerer",
    "FactAnswerer",
    "LlmAnswerer",
    "QuestionAnswering",
    "pack",
    "passage_chars",
]
