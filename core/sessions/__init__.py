"""Session storage: Redis when configured, this process's memory otherwise."""

from core.sessions.memory_store import MemorySessionStore
from core.sessions.redis_store import RedisSessionStore
from core.sessions.store import SessionStore, Versioned, session_key

__all__ = ["MemorySessionStore", "RedisSessionStore", "SessionStore", "Versioned", "session_key"]
