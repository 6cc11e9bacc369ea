"""A clock tests move by hand: `clock.now += 60` is a minute later, with no waiting."""

from __future__ import annotations


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
