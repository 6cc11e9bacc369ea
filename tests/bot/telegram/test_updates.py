"""Concurrent update processing: one chat's updates in order, different chats in parallel."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import Update

from bot.telegram.updates import ChatOrderedUpdates


def update(update_id: int, chat_id: int) -> Update:
    message = {
        "message_id": update_id,
        "date": 0,
        "chat": {"id": chat_id, "type": "private"},
        "text": "hi",
    }
    parsed = Update.de_json({"update_id": update_id, "message": message}, None)
    assert parsed is not None
    return parsed


async def test_one_chats_updates_run_one_after_another_in_order() -> None:
    processor = ChatOrderedUpdates()
    log: list[str] = []
    release = asyncio.Event()

    async def handle(name: str, wait: asyncio.Event | None = None) -> None:
        log.append(f"start {name}")
        if wait is not None:
            await wait.wait()
        log.append(f"end {name}")

    first = asyncio.create_task(processor.process_update(update(1, 5), handle("1", release)))
    second = asyncio.create_task(processor.process_update(update(2, 5), handle("2")))
    third = asyncio.create_task(processor.process_update(update(3, 5), handle("3")))
    await asyncio.sleep(0)
    assert log == ["start 1"]
    release.set()
    await asyncio.wait_for(asyncio.gather(first, second, third), 5)
    assert log == ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]


async def test_different_chats_do_not_wait_for_each_other() -> None:
    processor = ChatOrderedUpdates()
    other_chat_done = asyncio.Event()

    async def slow() -> None:
        await other_chat_done.wait()  # only finishes if the other chat is not held up

    async def quick() -> None:
        other_chat_done.set()

    calls: list[Any] = [
        processor.process_update(update(1, 5), slow()),
        processor.process_update(update(2, 6), quick()),
    ]
    await asyncio.wait_for(asyncio.gather(*calls), 5)


async def test_a_failing_update_does_not_block_its_chat() -> None:
    processor = ChatOrderedUpdates()

    async def broken() -> None:
        raise RuntimeError("handler failed")

    async def fine() -> str:
        return "ok"

    results = await asyncio.wait_for(
        asyncio.gather(
            processor.process_update(update(1, 5), broken()),
            processor.process_update(update(2, 5), fine()),
            return_exceptions=True,
        ),
        5,
    )
    assert isinstance(results[0], RuntimeError) and results[1] is None
