"""Concurrent update processing that keeps each chat's order.

Answers can take seconds (an LLM, an ingestion), so updates from different chats run
concurrently; updates from one chat run one after another, in the order Telegram sent them,
so a file never overtakes the /ingest that announced it and exercise answers stay in order."""

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
    """At most `max_concurrent_updates` at once (an update waiting for its chat's turn counts
    too), one at a time per chat."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._turns: dict[int | None, _ChatTurn] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        key = chat.id if chat is not None else None
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
