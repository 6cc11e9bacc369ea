"""Redis session store: sessions survive restarts and are shared by every replica."""

from __future__ import annotations

from redis.asyncio import Redis

from core.sessions.store import Versioned

# A hash {v: version, d: data}; the check and the write happen atomically inside Redis.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current == false and ARGV[1] == '0') or current == ARGV[1] then
  redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[1]) + 1, 'd', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
"""


class RedisSessionStore:
    durable = True

    def __init__(self, client: Redis) -> None:
        self._redis = client
        self._cas = client.register_script(_COMPARE_AND_SET)

    @classmethod
    def from_url(cls, url: str) -> RedisSessionStore:
        return cls(Redis.from_url(url, decode_responses=True))

    async def get(self, key: str) -> Versioned | None:
        fields = await self._redis.hmget(key, ["v", "d"])
        version, data = fields
        if version is None or data is None:
            return None
        return Versioned(data, int(version))

    async def compare_and_set(
        self, key: str, value: str, expected_version: int, ttl_s: int
    ) -> bool:
        done = await self._cas(keys=[key], args=[str(expected_version), value, str(ttl_s)])
        return bool(done)

    async def delete(self, key: str) -> None:
        await self._redis.delete(key)

    async def claim(self, key: str, ttl_s: int) -> bool:
        return bool(await self._redis.set(key, "1", nx=True, ex=ttl_s))

    async def close(self) -> None:
        await self._redis.aclose()
