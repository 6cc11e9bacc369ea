"""Files announced by a command and sent in the next messages (`/ingest`, then the files).

Chat platforms cannot always attach files to a command, so the command leaves a short-lived
note in the session store (shared by replicas) that this user's next files in this chat are
course material or private notes."""

from __future__ import annotations

import json

from core.context import Context
from core.sessions import SessionStore, session_key

EXPECT_FILES_FOR_S = 600
_RACES = 3


class ExpectedUploads:
    def __init__(self, store: SessionStore, prefix: str, ttl_s: int = EXPECT_FILES_FOR_S) -> None:
        self.store = store
        self.prefix = prefix
        self.ttl_s = ttl_s

    async def expect(self, ctx: Context, *, private: bool) -> None:
        key = self._key(ctx)
        value = json.dumps({"private": private})
        for _ in range(_RACES):
            stored = await self.store.get(key)
            if await self.store.compare_and_set(
                key, value, stored.version if stored else 0, self.ttl_s
            ):
                return

    async def pending(self, ctx: Context) -> bool | None:
        """Whether files are expected (True: as private notes, False: as course material),
        or None when no command announced them in the last ten minutes."""
        stored = await self.store.get(self._key(ctx))
        return bool(json.loads(stored.value)["private"]) if stored else None

    async def done(self, ctx: Context) -> None:
        await self.store.delete(self._key(ctx))

    def _key(self, ctx: Context) -> str:
        chat = ctx.chat_id or "direct"
        return session_key(self.prefix, "upload", ctx.platform, chat, ctx.course_id, ctx.user_id)
