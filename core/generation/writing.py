"""How every writer (lesson decks, study sets, generated exercises) asks its model: one
object, so the model, the re-asks and the deadline of a generation are set in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from core.generation.structured import (
    GenerationStats,
    M,
    Message,
    StructuredModel,
    StructuredResult,
    Validator,
    generate,
)

MAX_REASKS = 2


@dataclass(frozen=True, slots=True)
class Writing:
    """`timeout_s` bounds one whole generation, re-asks included; `stats` counts the
    outcomes of every generation made with these settings."""

    model: StructuredModel
    timeout_s: float | None = 180.0
    max_reasks: int = MAX_REASKS
    stats: GenerationStats = field(default_factory=GenerationStats)

    @classmethod
    def per_request(
        cls, model: StructuredModel, request_timeout_s: float, *, max_reasks: int = MAX_REASKS
    ) -> Writing:
        """Each reply may take the model's whole request timeout, so a generation may take
        as many of them as it has replies (the first and each re-ask)."""
        return cls(model, timeout_s=request_timeout_s * (max_reasks + 1), max_reasks=max_reasks)

    async def generate(
        self,
        messages: Sequence[Message],
        schema: type[M],
        *,
        validate: Validator[M] | None,
        purpose: str,
    ) -> StructuredResult[M]:
        return await generate(
            self.model,
            messages,
            schema,
            validate=validate,
            max_reasks=self.max_reasks,
            timeout_s=self.timeout_s,
            stats=self.stats,
            purpose=purpose,
        )
