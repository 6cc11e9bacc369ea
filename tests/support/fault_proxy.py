"""A TCP proxy that can break a connection the ways networks and servers do: refuse new
connections, stall (hold every byte in both directions), cut every live connection mid-
stream, or drop the next reply (a request reaches the server; its answer never comes back).
Tests put it in front of the real Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from enum import Enum


class Mode(Enum):
    PASS = "pass"
    REFUSE = "refuse"
    STALL = "stall"


class FaultProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._server: asyncio.Server | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.mode = Mode.PASS
        self._drop_replies = 0
        self.port = 0

    async def start(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def url(self, scheme: str, path: str = "") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def drop_next_reply(self) -> None:
        """The next bytes the server sends back are thrown away."""
        self._drop_replies += 1

    def cut(self) -> None:
        """Close every live connection, mid-stream."""
        for client, server in list(self._links):
            for writer in (client, server):
                with contextlib.suppress(Exception):
                    writer.transport.abort()
        self._links.clear()

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode is Mode.REFUSE:
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        link = (writer, upstream_writer)
        self._links.add(link)
        pumps = [
            self._spawn(self._pump(reader, upstream_writer, replies=False)),
            self._spawn(self._pump(upstream_reader, writer, replies=True)),
        ]
        await asyncio.gather(*pumps, return_exceptions=True)
        self._links.discard(link)
        for w in link:
            with contextlib.suppress(Exception):
                w.close()

    def _spawn(self, coroutine: object) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coroutine)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, replies: bool
    ) -> None:
        try:
            while data := await reader.read(65536):
                while self.mode is Mode.STALL:
                    await asyncio.sleep(0.02)
                if replies and self._drop_replies:
                    self._drop_replies -= 1
                    continue
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.transport.abort()
