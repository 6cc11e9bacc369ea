"""Widgets are isolated by structure, checked in a real browser: every hostile widget, put in
the sandboxed frame as the model wrote it (the sanitiser's refusals not helping) and as the
sanitiser sends it, makes no request, opens no window and navigates nothing. The same
widgets opened without the frame do get out, so the probe can see each of them fail.

Needs Debian's Chromium (/usr/bin/chromium) and Playwright; skipped without them, except
where CI_REQUIRE_CHROMIUM is set (CI installs Chromium and must run these)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from core.lessons import SanitisedWidget, sanitise_widget
from core.lessons.widgets import framed_page

_REQUIRED = bool(os.environ.get("CI_REQUIRE_CHROMIUM"))
if not _REQUIRED:
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (dev extras)")

from support.browser import Probe, chromium_path, probe  # noqa: E402
from support.widget_cases import ALL, GOOD, Hostile  # noqa: E402

if not chromium_path() and not _REQUIRED:
    pytest.skip(
        "Chromium is not installed: apt-get install chromium (CI installs it)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    with probe(tmp_path_factory.mktemp("widgets")) as opened:
        yield opened


def _id(case: Hostile) -> str:
    return case.name


@pytest.mark.parametrize("case", ALL, ids=_id)
def test_a_hostile_widget_cannot_leave_its_frame(browser: Probe, case: Hostile) -> None:
    source = case.aimed_at(browser.out)
    raw = browser.open(f"raw-{case.name}", framed_page(source, title=case.name))
    assert not raw.any(), raw
    sent = sanitise_widget(source)
    if isinstance(sent, SanitisedWidget):
        shipped = browser.open(f"sent-{case.name}", sent.html.decode())
        assert not shipped.any(), shipped


@pytest.mark.parametrize("case", [c for c in ALL if c.gets_out_bare], ids=_id)
def test_without_the_frame_the_same_widget_gets_out(browser: Probe, case: Hostile) -> None:
    page = f"<!DOCTYPE html><html><body>{case.aimed_at(browser.out)}</body></html>"
    assert browser.open(f"bare-{case.name}", page).any()


def test_a_widget_still_runs_its_script_in_the_frame(browser: Probe) -> None:
    sent = sanitise_widget(GOOD)
    assert isinstance(sent, SanitisedWidget)
    with browser.page("good", sent.html.decode()) as page:
        frame = page.frame_locator("iframe[sandbox]")
        frame.locator("#h").fill("50")
        assert frame.locator("#out").text_content() == "2.500"  # (1.5² - 1) / 0.5
        assert page.title() == "Slope explorer"
