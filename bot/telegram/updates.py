"""Concurrent update processing that keeps each sender's order within a chat.

Answers can take seconds (an LLM), so updates run concurrently; the updates one person sends
in one chat run one after another, in the order Telegram sent them, so a file never
overtakes the /ingest that announced it and exercise answers stay in order. One sender's
backlog (a flood, a slow question, a long ingestion) never holds up anyone else in the chat
or in other chats."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

MAX_CONCURRENT_UPDATES = 256


@dataclass
class _ChatTurn:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    holders: int = 0


class ChatOrderedUpdates(BaseUpdateProcessor):
    """At most `max_concurrent_updates` at once (an update waiting for its turn counts too),
    one at a time per sender and chat."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._turns: dict[tuple[int | None, int | None], _ChatTurn] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _turn_of(update)
        turn = self._turns.setdefault(key, _ChatTurn())
        turn.holders += 1
        try:
            # asyncio.Lock wakes waiters first come, first served: Telegram's order.
            async with turn.lock:
                await coroutine
        finally:
            turn.holders -= 1
            if turn.holders == 0:
                del self._turns[key]

    async def initialize(self) -> None:
        """Nothing to set up: the chat locks are created on demand."""

    async def shutdown(self) -> None:
        """Nothing to release."""


def _turn_of(update: object) -> tuple[int | None, int | None]:
    if not isinstance(update, Update):
        return (None, None)
    chat, user = update.effective_chat, update.effective_user
    return (chat.id if chat else None, user.id if user else None)
