"""A headless Chromium (Debian's package, driven by Playwright) that opens an HTML file as a
student would and reports every way it got out: requests that reached the network layer,
hits on a local listener, pop-ups, and navigations of the page.

Nothing leaves the machine: every request but the page's own is recorded and aborted by
the route handler, and the resolver answers no name but 127.0.0.1. The listener on
127.0.0.1 catches what a route handler does not see (WebSocket connections)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
# Time given to what a widget does after it loaded and was clicked (timers, redirects).
SETTLE_MS = 400


def chromium_path() -> str | None:
    """Debian's Chromium, if installed."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@dataclass
class Escapes:
    requests: list[str] = field(default_factory=list)
    hits: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)

    def any(self) -> bool:
        return bool(self.requests or self.hits or self.popups or self.navigations)


class _Listener(ThreadingHTTPServer):
    """Records the path of every request that reaches it."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Record)
        self.hits: list[str] = []


class _Record(BaseHTTPRequestHandler):
    server: _Listener

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *_args: Any) -> None:
        pass


@dataclass
class Probe:
    browser: Any  # playwright.sync_api.Browser
    folder: Path
    listener: _Listener

    @property
    def out(self) -> str:
        """Where hostile widgets are aimed: the local listener."""
        host, port = self.listener.server_address[:2]
        return f"http://{host}:{port}"

    @contextmanager
    def page(self, name: str, document: str) -> Iterator[Any]:
        """`document` opened from a file, to be used as a student would."""
        path = self.folder / f"{name}.html"
        path.write_text(document, encoding="utf-8")
        context = self.browser.new_context()
        try:
            page = context.new_page()
            page.goto(path.as_uri(), wait_until="load")
            yield page
        finally:
            context.close()

    def open(self, name: str, document: str, *, click: bool = True) -> Escapes:
        """Open `document` from a file, click what a student would, and say how it got out."""
        path = self.folder / f"{name}.html"
        path.write_text(document, encoding="utf-8")
        url = path.as_uri()
        escapes = Escapes()
        self.listener.hits.clear()
        context = self.browser.new_context()
        try:

            def route(route: Any) -> None:
                if route.request.url == url:
                    route.continue_()
                else:
                    escapes.requests.append(route.request.url)
                    route.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on("popup", lambda popup: escapes.popups.append(popup.url))
            page.on(
                "framenavigated",
                lambda frame: (
                    frame == page.main_frame
                    and frame.url != url
                    and escapes.navigations.append(frame.url)
                ),
            )
            try:
                page.goto(url, wait_until="load", timeout=15_000)
                if click:
                    self._click_everything(page)
            except PlaywrightError:  # a navigation away interrupts the load: recorded
                if not escapes.any():
                    raise
            page.wait_for_timeout(SETTLE_MS)
        finally:
            context.close()
        escapes.hits = list(self.listener.hits)
        return escapes

    @staticmethod
    def _click_everything(page: Any) -> None:
        for frame in page.frames:
            for element in frame.locator("a[href], button, input[type=submit]").all():
                try:
                    element.click(force=True, timeout=1000, no_wait_after=True)
                except PlaywrightError:  # detached by the widget's own navigation: recorded
                    continue


@contextmanager
def probe(folder: Path) -> Iterator[Probe]:
    """A Chromium and a listener for one test module."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    assert executable, "Chromium is not installed"
    listener = _Listener()
    thread = threading.Thread(target=listener.serve_forever, daemon=True)
    thread.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=executable, args=CHROMIUM_FLAGS, headless=True
            )
            try:
                yield Probe(browser, folder, listener)
            finally:
                browser.close()
    finally:
        listener.shutdown()
        listener.server_close()
