"""What a student reads when the model fails a generator: one wording for every kind of
generated material (exercises, lessons)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import structlog

from core.errors import BadInputError
from core.generation.structured import GenerationError
from core.llm import LlmTimeoutError, LlmUnavailableError

log = structlog.get_logger(__name__)


@contextmanager
def model_failures_worded(what: str, topic: str) -> Iterator[None]:
    """Model errors inside the block become one-line `BadInputError`s about `what` (an
    exercise, a lesson) on `topic`."""
    try:
        yield
    except LlmTimeoutError as error:  # a request's, or the whole generation's deadline
        raise BadInputError(
            f"The language model took too long to write the {what}; try again later."
        ) from error
    except LlmUnavailableError as error:
        raise BadInputError(
            "The language model is not reachable right now; try again later."
        ) from error
    except GenerationError as error:
        log.warning("generation failed", what=what, topic=topic, error=str(error))
        raise BadInputError(
            f"The language model could not write a well-formed {what} on '{topic}'; "
            "try again later."
        ) from error
