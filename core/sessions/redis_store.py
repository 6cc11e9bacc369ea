"""Redis session store: sessions survive restarts and are shared by every replica."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, cast

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError

from core.sessions.store import Append, Versioned

# A hash {v: version, d: data}; the check, the write and the outbox appends happen atomically
# inside Redis. ARGV: expected version, data, ttl, then list key / entry pairs.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current == false and ARGV[1] == '0') or current == ARGV[1] then
  redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[1]) + 1, 'd', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  for i = 4, #ARGV, 2 do
    redis.call('RPUSH', ARGV[i], ARGV[i + 1])
  end
  return 1
end
return 0
"""
# Trims only while the lock is ours and the list still starts with the entries we read
# (first and last compared: entries are unique, they carry idempotency keys). redis-py
# retries a script whose reply was lost; a blind LTRIM run twice would drop entries that
# were never written to the database.
_DROP_HEAD = """
if redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return 0
end
local count = tonumber(ARGV[1])
local first = redis.call('LINDEX', KEYS[1], 0)
local last = redis.call('LINDEX', KEYS[1], count - 1)
if first ~= ARGV[3] or last ~= ARGV[4] then
  return 0
end
redis.call('LTRIM', KEYS[1], count, -1)
return 1
"""
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

POOL_SIZE = 64
DEFAULT_TIMEOUT_S = 5.0


def bounded_pool(
    url: str, timeout_s: float = DEFAULT_TIMEOUT_S, *, decode_responses: bool = True
) -> BlockingConnectionPool:
    """A pool whose calls time out, wait for a free connection and retry once.

    A stalled Redis fails a call within `timeout_s` (two tries of a socket timeout of
    less than half of it), and a burst of requests waits for a free connection instead
    of failing. Every operation of this store may be retried: a compare-and-set whose
    reply was lost fails its version check the second time, and the caller reads the
    state again."""
    socket_s = timeout_s * 0.4
    return BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_SIZE,
        timeout=timeout_s / 2,
        socket_timeout=socket_s,
        socket_connect_timeout=socket_s,
        retry=Retry(ExponentialBackoff(cap=0.2, base=0.05), retries=1),
        retry_on_error=[ConnectionError, TimeoutError],
        decode_responses=decode_responses,
    )


class RedisSessionStore:
    durable = True

    def __init__(self, client: Redis) -> None:
        self._redis = client
        self._cas = client.register_script(_COMPARE_AND_SET)
        self._drop_head = client.register_script(_DROP_HEAD)
        self._unlock = client.register_script(_UNLOCK)

    @classmethod
    def from_url(cls, url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> RedisSessionStore:
        return cls(Redis(connection_pool=bounded_pool(url, timeout_s)))

    async def get(self, key: str) -> Versioned | None:
        # Cast: redis-py's stubs type its commands for the sync and async clients at once.
        fields = await cast("Awaitable[list[Any]]", self._redis.hmget(key, ["v", "d"]))
        version, data = fields
        if version is None or data is None:
            return None
        return Versioned(_text(data), int(version))

    async def compare_and_set(
        self,
        key: str,
        value: str,
        expected_version: int,
        ttl_s: int,
        appends: Sequence[Append] = (),
    ) -> bool:
        args = [str(expected_version), value, str(ttl_s)]
        for append in appends:
            args += [append.list_key, append.entry]
        return bool(await self._cas(keys=[key], args=args))

    async def delete(self, key: str) -> None:
        await self._redis.delete(key)

    async def append(self, list_key: str, entry: str) -> None:
        # A call retried after a lost reply adds the entry twice: outbox entries carry their
        # own idempotency keys, so the copy changes nothing.
        await cast("Awaitable[int]", self._redis.rpush(list_key, entry))

    async def head(self, list_key: str, count: int) -> list[str]:
        entries = await cast("Awaitable[list[Any]]", self._redis.lrange(list_key, 0, count - 1))
        return [_text(entry) for entry in entries]

    async def lock(self, key: str, token: str, ttl_ms: int) -> bool:
        return bool(await self._redis.set(key, token, nx=True, px=ttl_ms))

    async def drop_head(
        self, list_key: str, entries: Sequence[str], lock_key: str, token: str
    ) -> bool:
        if not entries:
            return False
        args = [str(len(entries)), token, entries[0], entries[-1]]
        return bool(await self._drop_head(keys=[list_key, lock_key], args=args))

    async def unlock(self, key: str, token: str) -> None:
        await self._unlock(keys=[key], args=[token])

    async def close(self) -> None:
        await self._redis.aclose()
        await self._redis.connection_pool.disconnect()


def _text(value: bytes | str) -> str:
    """A reply as text: the pool decodes responses, but redis-py types them as either."""
    return value.decode() if isinstance(value, bytes) else value
