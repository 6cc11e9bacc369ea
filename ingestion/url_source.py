"""A course file at a URL, for scheduled ingestion: fetched with httpx under the upload
limits (size, type), conditionally (`ETag` / `If-Modified-Since`), so an unchanged file is
neither downloaded nor read again.

The URL is an instructor's, fetched from inside the deployment, next to Redis and the
database: unless allowed, a host that resolves to a private, loopback or link-local address
is refused, at every redirect."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from core.errors import BadInputError
from core.uploads import safe_file_name
from ingestion.loaders import LOADERS

MAX_REDIRECTS = 3
# What a course file may be served as; anything else (an HTML login page, above all) is
# refused before its body is read. Octet streams are judged by the file's name.
_TYPES = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/plain": ".txt",
    "application/yaml": "",
    "application/x-yaml": "",
    "text/yaml": "",
    "application/octet-stream": "",
}
_SUFFIXES = (*LOADERS, ".exercise.yaml", ".exercise.yml")


@dataclass(frozen=True, slots=True)
class Validators:
    """What the server said identifies the version we have."""

    etag: str | None = None
    last_modified: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


@dataclass(frozen=True, slots=True)
class Fetched:
    """A new version, saved as `path` (named for its loader), and its validators."""

    path: Path
    validators: Validators


@dataclass(frozen=True, slots=True)
class UrlLimits:
    max_bytes: int
    timeout_s: float = 60.0
    allow_private: bool = False


async def fetch(url: str, folder: Path, have: Validators, limits: UrlLimits) -> Fetched | None:
    """The file at `url` saved under `folder`, or None when the server says it has not
    changed since `have`. BadInputError (one line) when it is refused or cannot be read."""
    timeout = httpx.Timeout(limits.timeout_s)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            await _check_host(url, allow_private=limits.allow_private)
            try:
                async with client.stream("GET", url, headers=have.headers()) as response:
                    if response.is_redirect and "location" in response.headers:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code == httpx.codes.NOT_MODIFIED:
                        return None
                    if response.status_code != httpx.codes.OK:
                        raise BadInputError(f"{url} answered {response.status_code}.")
                    path = folder / _file_name(url, response)
                    await _save(response, path, limits.max_bytes)
                    return Fetched(
                        path,
                        Validators(
                            response.headers.get("etag"), response.headers.get("last-modified")
                        ),
                    )
            except httpx.HTTPError as error:
                raise BadInputError(f"Could not fetch {url}: {type(error).__name__}.") from None
    raise BadInputError(f"{url} redirects more than {MAX_REDIRECTS} times.")


async def _check_host(url: str, *, allow_private: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadInputError(f"'{url}' is not an http:// or https:// URL.")
    if allow_private:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port, type=socket.SOCK_STREAM
        )
    except OSError:
        raise BadInputError(f"The host of {url} is not known.") from None
    for *_, address in found:
        ip = ipaddress.ip_address(address[0])
        if not ip.is_global:
            raise BadInputError(f"{parts.hostname} is a private address: it is not fetched.")


def _file_name(url: str, response: httpx.Response) -> str:
    """A name whose suffix picks the loader: the server's file name, else the URL's last
    part, else one made from the content type; refused if no loader reads it."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in _TYPES:
        raise BadInputError(f"{url} is served as '{kind or 'unknown'}', not a course file.")
    header = Message()
    header["content-disposition"] = response.headers.get("content-disposition", "")
    named = header.get_filename()
    name = safe_file_name(named or Path(urlsplit(url).path).name or "download")
    if not name.lower().endswith(_SUFFIXES):
        suffix = _TYPES[kind]
        if not suffix:
            raise BadInputError(f"{url} is not a file type coursebot reads.")
        name = f"{name}{suffix}"
    return name


async def _save(response: httpx.Response, path: Path, max_bytes: int) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BadInputError(f"{path.name} is larger than the {_mb(max_bytes)} upload limit.")
    size = 0
    with path.open("wb") as out:
        async for block in response.aiter_bytes():
            size += len(block)
            if size > max_bytes:  # a server that sent no length, or a wrong one
                raise BadInputError(
                    f"{path.name} is larger than the {_mb(max_bytes)} upload limit."
                )
            out.write(block)


def _mb(size: int) -> str:
    return f"{size / 1024 / 1024:g} MB"
