"""A scheduled URL fetched from a local HTTP server: conditional requests, unchanged content
skipped, size and type limits, private addresses refused unless allowed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web

from core.errors import BadInputError
from ingestion.url_source import UrlLimits, Validators, fetch

NOTES = b"# Limits\n\nA limit is the value a function approaches.\n"
ETAG = '"v1"'
MODIFIED = "Mon, 07 Dec 2026 09:00:00 GMT"
OPEN = UrlLimits(max_bytes=1024, allow_private=True)


@dataclass
class Server:
    base: str
    statuses: list[int] = field(default_factory=list)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    seen: list[int] = []

    async def notes(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-None-Match") == ETAG:
            seen.append(304)
            return web.Response(status=304)
        seen.append(200)
        headers = {"ETag": ETAG, "Last-Modified": MODIFIED}
        return web.Response(body=NOTES, content_type="text/markdown", headers=headers)

    async def dated(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-Modified-Since") == MODIFIED:
            return web.Response(status=304)
        return web.Response(
            body=b"%PDF-1.4 not really", content_type="application/pdf",
            headers={"Last-Modified": MODIFIED,
                     "Content-Disposition": 'attachment; filename="week 1.pdf"'},
        )  # fmt: skip

    async def page(_request: web.Request) -> web.StreamResponse:
        return web.Response(text="<html>sign in</html>", content_type="text/html")

    async def big(_request: web.Request) -> web.StreamResponse:
        return web.Response(body=b"x" * 4096, content_type="text/plain")

    async def moved(_request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/notes.md")

    app = web.Application()
    app.router.add_get("/notes.md", notes)
    app.router.add_get("/download", dated)
    app.router.add_get("/login", page)
    app.router.add_get("/big.txt", big)
    app.router.add_get("/old", moved)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield Server(f"http://127.0.0.1:{port}", seen)
    finally:
        await runner.cleanup()


async def test_an_unchanged_file_is_not_downloaded_again(server: Server, tmp_path: Path) -> None:
    fetched = await fetch(f"{server.base}/notes.md", tmp_path, Validators(), OPEN)
    assert fetched is not None
    assert fetched.path.name == "notes.md" and fetched.path.read_bytes() == NOTES
    assert fetched.validators == Validators(ETAG, MODIFIED)
    again = await fetch(f"{server.base}/notes.md", tmp_path, fetched.validators, OPEN)
    assert again is None
    assert server.statuses == [200, 304]


async def test_if_modified_since_and_the_servers_file_name(server: Server, tmp_path: Path) -> None:
    fetched = await fetch(f"{server.base}/download", tmp_path, Validators(), OPEN)
    assert fetched is not None and fetched.path.name == "week 1.pdf"
    assert await fetch(f"{server.base}/download", tmp_path, fetched.validators, OPEN) is None


async def test_a_redirect_is_followed(server: Server, tmp_path: Path) -> None:
    fetched = await fetch(f"{server.base}/old", tmp_path, Validators(), OPEN)
    assert fetched is not None and fetched.path.name == "notes.md"


async def test_a_web_page_and_an_oversized_file_are_refused(server: Server, tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="served as 'text/html'"):
        await fetch(f"{server.base}/login", tmp_path, Validators(), OPEN)
    with pytest.raises(BadInputError, match="larger than the"):
        await fetch(f"{server.base}/big.txt", tmp_path, Validators(), OPEN)


async def test_a_private_address_is_refused_unless_allowed(server: Server, tmp_path: Path) -> None:
    closed = UrlLimits(max_bytes=1024)
    with pytest.raises(BadInputError, match="private address"):
        await fetch(f"{server.base}/notes.md", tmp_path, Validators(), closed)
    assert server.statuses == []
