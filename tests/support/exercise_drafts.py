"""A generated exercise as a model writes it (the JSON the exercise writer asks for): valid,
its answers recomputable from its checks. Tests copy it before changing it."""

from __future__ import annotations

from typing import Any

POWER_RULE_DRAFT: dict[str, Any] = {
    "title": "The power rule with a coefficient",
    "statement": "Let f(x) = a x^n with a = 3 and n = 4. Find f'(x), then the slope at x = 2.",
    "given": [
        {"name": "a", "value": "3", "meaning": "the coefficient"},
        {"name": "n", "value": "4", "meaning": "the exponent"},
    ],
    "steps": [
        {
            "prompt": "Differentiate f(x) = 3x^4.",
            "kind": "symbolic",
            "answer": "12*x^3",
            "check": "diff(a*x^n, x)",
            "variables": ["x"],
            "hints": ["Bring the exponent down and lower it by one."],
            "skill": "power rule",
        },
        {
            "prompt": "What is the slope of f at x = 2?",
            "kind": "numeric",
            "answer": "96",
            "check": "a*n*2^(n-1)",
            "variables": [],
            "hints": ["Substitute x = 2 into your derivative."],
            "skill": "evaluating a derivative",
        },
    ],
    "solution": "f'(x) = 4 * 3 x^3 = 12x^3, so f'(2) = 12 * 8 = 96.",
    "final_answer": "96",
    "skills": ["power rule", "evaluating a derivative"],
    "sources": [1],
}
