"""The instructor loop: answers rated, unanswered questions grouped for the staff, staff
answers made course material, and the digest."""

from core.feedback.digest import Digest
from core.feedback.loop import DOCUMENT_NAME, REASONS, DirectSend, InstructorLoop
from core.feedback.store import FeedbackStore

__all__ = ["DOCUMENT_NAME", "REASONS", "Digest", "DirectSend", "FeedbackStore", "InstructorLoop"]
