"""Study sets on a topic: flashcards, quizzes and mind maps, grounded in the course's
material and cited, checked in code, cached per student (`StudySets`). Without a language
model they are made extractively; with one, through the structured-output layer."""

from core.study.checks import (
    FLASHCARD_COUNT,
    QUIZ_COUNT,
    CountRange,
    Problem,
    Rule,
    Severity,
    card_problems,
    item_problems,
    normalise,
    set_problems,
)
from core.study.grading import (
    QUIZ_EXERCISE_PREFIX,
    feeds_mistake_log,
    grade_quiz_answer,
    quiz_mistake,
)
from core.study.mindmap_image import mindmap_png, render_mindmap
from core.study.models import (
    NOT_FROM_MATERIAL,
    Flashcard,
    FlashcardSet,
    MindMap,
    MindNode,
    Quiz,
    QuizItem,
    Source,
    StudySet,
)
from core.study.service import Coverage, NotTaughtError, Served, StudySets, TopicRetriever

__all__ = [
    "FLASHCARD_COUNT",
    "NOT_FROM_MATERIAL",
    "QUIZ_COUNT",
    "QUIZ_EXERCISE_PREFIX",
    "CountRange",
    "Coverage",
    "Flashcard",
    "FlashcardSet",
    "MindMap",
    "MindNode",
    "NotTaughtError",
    "Problem",
    "Quiz",
    "QuizItem",
    "Rule",
    "Served",
    "Severity",
    "Source",
    "StudySet",
    "StudySets",
    "TopicRetriever",
    "card_problems",
    "feeds_mistake_log",
    "grade_quiz_answer",
    "item_problems",
    "mindmap_png",
    "normalise",
    "quiz_mistake",
    "render_mindmap",
    "set_problems",
]
