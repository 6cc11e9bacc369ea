"""Guided-exercise sessions for chat: the catalog of exercises and the session service."""

from core.practice.catalog import DefinitionCache, ExerciseCatalog
from core.practice.service import PracticeService

__all__ = ["DefinitionCache", "ExerciseCatalog", "PracticeService"]
