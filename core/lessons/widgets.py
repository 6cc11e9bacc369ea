"""A model-written HTML widget made safe to send as a file beside the PDF.

The rule is structural: the widget runs inside a sandboxed frame of the file we send,
`<iframe sandbox="allow-scripts" srcdoc=...>`. Without `allow-top-navigation`,
`allow-popups`, `allow-same-origin` and `allow-forms` its script cannot navigate the page,
open a window, submit a form or read anything of the page around it, however the script
spells it (`window['loc'+'ation']`, `self.open`, a created `<a>` clicked...). Two policies
close the network:
- `CSP` in the page, which the srcdoc frame inherits: `frame-src 'none'` there also stops
  the frame from navigating itself (the embedder's policy governs its frames' navigations;
  srcdoc is not fetched, so it still loads);
- `CSP` again in the frame (`default-src 'none'` covers fetch, XHR, WebSocket, workers,
  fonts, frames; images only from `data:`; `form-action`, `base-uri`, `frame-src` 'none').
Both are checked in a real Chromium against hostile widgets (tests/core/lessons/
test_widget_isolation.py).

`sanitise_widget` still rebuilds the widget from its tokens (Python's HTML tokenizer),
keeping only known elements and attributes, so the file is self-contained and works
offline: what only decorates is removed and reported (external `src`/`href`, `<iframe>`,
`<object>`, `<meta>`, `<base>`, `<link>`, CSS `@import` and non-`data:` `url()`, form
`action`s, unknown elements, their text kept), and what cannot work or shows intent is
refused (`<script src>`, `javascript:` URLs, CSS that runs code, WebRTC, below).

Why not nh3 or bleach: both drop `<script>`, and a widget is its script."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

MAX_WIDGET_BYTES = 200_000

# One policy, written in the page and in the frame: the widget's inline code runs, nothing
# is fetched. The srcdoc frame inherits the page's policy, so the page's must allow the
# frame's inline scripts (the page itself has none); in the page, frame-src 'none' blocks
# the frame's own navigations, in the frame, frames the widget's script would create.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; form-action 'none'; base-uri 'none'; frame-src 'none'"
)
# Only `allow-scripts`: no allow-same-origin (an opaque origin: no storage, no access to the
# page), allow-top-navigation*, allow-popups, allow-forms, allow-modals, allow-downloads.
SANDBOX = "allow-scripts"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Elements kept (with their content); dropped ones keep their text unless in DROP_WHOLE.
ALLOWED = _names(
    "a abbr article aside b blockquote br button canvas caption code col colgroup dd del "
    "details dfn div dl dt em fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr i img input ins kbd label legend li main mark meter nav ol optgroup option "
    "output p pre progress q s samp script section select small span strong style sub "
    "summary sup table tbody td textarea tfoot th thead time tr u ul var wbr svg g path "
    "circle ellipse line polyline polygon rect text tspan defs lineargradient "
    "radialgradient stop marker title desc clippath mask pattern symbol"
)
VOID = _names("br col hr img input wbr")
# Dropped with everything inside them.
DROP_WHOLE = _names(
    "iframe frame frameset object embed applet portal noscript template foreignobject audio "
    "video source track link meta base"
)
STRUCTURE = frozenset({"html", "head", "body"})
URL_ATTRIBUTES = _names(
    "src href xlink:href action formaction data poster background srcset ping lowsrc "
    "codebase cite manifest longdesc usemap dynsrc"
)
ALWAYS_DROPPED_ATTRIBUTES = frozenset({"srcdoc", "http-equiv", "target", "method", "nonce"})
_ATTRIBUTE_NAME = re.compile(r"^[a-zA-Z_:][-a-zA-Z0-9_:.]*$")
_DATA_IMAGE = re.compile(r"^data:image/(png|gif|jpeg|webp);base64,[a-z0-9+/=\s]*$", re.I)

# The one channel the frame does not close: no browser applies CSP or the sandbox to WebRTC
# (Chromium ignores CSP's `webrtc` directive), and a peer connection reaches any STUN/TURN
# host. A cheap first filter on the plain spelling, not a guarantee: an obfuscated spelling
# passes it.
_WEBRTC = re.compile(r"\bRTC(PeerConnection|DataChannel|IceTransport)\b")
_CSS_IMPORT = re.compile(r"@import\b[^;]*;?", re.I)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)


@dataclass(frozen=True, slots=True)
class SanitisedWidget:
    html: bytes  # the file to send, UTF-8
    removed: list[str] = field(default_factory=list)  # what was taken out, for the log


@dataclass(frozen=True, slots=True)
class RefusedWidget:
    reason: str


def sanitise_widget(
    source: str, *, title: str = "Lesson widget"
) -> SanitisedWidget | RefusedWidget:
    """`source` as a safe, self-contained HTML file, or why it cannot be one."""
    if len(source.encode("utf-8", "replace")) > MAX_WIDGET_BYTES:
        return RefusedWidget(f"the widget is larger than {MAX_WIDGET_BYTES // 1000} kB")
    builder = _Builder()
    try:
        builder.feed(source)
        builder.close()
    except _Refusal as refusal:
        return RefusedWidget(str(refusal))
    if not builder.body_has_content():
        return RefusedWidget("the widget has no content")
    document = framed_page("".join(builder.out), title=builder.title.strip() or title)
    return SanitisedWidget(document.encode("utf-8"), sorted(set(builder.removed)))


def framed_page(body: str, *, title: str) -> str:
    """The file sent: a page holding `body` in a sandboxed frame, both under `CSP`.

    `body` is put in the frame as it is; `sanitise_widget` passes its rebuilt markup."""
    head = (
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
    )
    frame = _document(head, body)
    return _document(
        head + "<style>html, body { margin: 0; height: 100%; } "
        "iframe { display: block; border: 0; width: 100%; height: 100%; }</style>\n",
        f'<iframe sandbox="{SANDBOX}" title="{html.escape(title)}" '
        f'srcdoc="{html.escape(frame, quote=True)}"></iframe>',
    )


def _document(head: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n{head}</head>\n'
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def widget_file_name(slide_number: int) -> str:
    """The file name a slide's widget is sent under and the slide points to."""
    return f"slide-{slide_number:02d}-widget.html"


class _Refusal(Exception):
    pass


def check_script(code: str, where: str) -> None:
    """Raise `_Refusal` when `code` plainly opens a WebRTC connection (see `_WEBRTC`)."""
    if _WEBRTC.search(code):
        raise _Refusal(f"the widget's {where} uses WebRTC; a widget may not reach the network")


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.removed: list[str] = []
        self.title = ""
        self._open: list[str] = []  # kept elements still open
        self._dropping = 0  # depth inside a DROP_WHOLE element
        self._drop_tag = ""
        self._raw_tag = ""  # "script" or "style" while inside one
        self._raw: list[str] = []  # its text, checked whole when it ends
        self._in_title = False

    # Tags

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        tag = tag.lower()
        if self._dropping:
            if tag == self._drop_tag and not closed and tag not in VOID:
                self._dropping += 1
            return
        if tag in DROP_WHOLE:
            self.removed.append(f"<{tag}>")
            if not closed and tag not in {"meta", "link", "base", "source", "track", "embed"}:
                self._dropping, self._drop_tag = 1, tag
            return
        if tag in STRUCTURE:
            return
        if tag == "title" and not self._open:
            self._in_title = True
            return
        if tag not in ALLOWED:
            self.removed.append(f"<{tag}>")
            return
        kept = self._attributes(tag, attrs)
        if tag == "script" and any(n.lower() in {"src", "href", "xlink:href"} for n, _ in attrs):
            raise _Refusal("the widget loads an external script; scripts must be inline")
        rendered = "".join(f' {name}="{html.escape(value, quote=True)}"' for name, value in kept)
        self.out.append(f"<{tag}{rendered}>")
        if tag in {"script", "style"}:
            self._raw_tag = tag
        if tag in VOID:
            return
        if closed:
            self.out.append(f"</{tag}>")
            self._raw_tag = ""
            return
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if self._dropping:
            if tag == self._drop_tag:
                self._dropping -= 1
            return
        if tag == "title" and self._in_title:
            self._in_title = False
            return
        if tag in STRUCTURE or tag not in ALLOWED or tag in VOID:
            return
        if tag not in self._open:
            return  # a stray end tag
        self._flush_raw()
        while self._open:  # close what was left open inside it
            last = self._open.pop()
            self.out.append(f"</{last}>")
            if last == tag:
                break
        self._raw_tag = ""

    # Content

    def handle_data(self, data: str) -> None:
        if self._dropping:
            return
        if self._in_title:
            self.title += data
            return
        if self._raw_tag:
            self._raw.append(data)
        else:
            self.out.append(html.escape(data, quote=False))

    def handle_comment(self, data: str) -> None:
        pass  # comments dropped: conditional comments and "-->" games have no place here

    def handle_decl(self, decl: str) -> None:
        pass  # our own doctype is written

    def handle_pi(self, data: str) -> None:
        pass

    def unknown_decl(self, data: str) -> None:
        pass

    def _flush_raw(self) -> None:
        text, self._raw = "".join(self._raw), []
        if self._raw_tag == "script":
            check_script(text, "script")
            # The tokenizer ended the script at "</script"; nothing inside can close it.
            self.out.append(text)
        elif self._raw_tag == "style":
            self.out.append(self._css(text).replace("</", "<\\/"))
        self._raw_tag = ""

    def close(self) -> None:
        super().close()
        self._flush_raw()
        while self._open:
            self.out.append(f"</{self._open.pop()}>")

    def body_has_content(self) -> bool:
        return any(part.strip() for part in self.out)

    # Attributes

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
        kept: list[tuple[str, str]] = []
        for raw_name, raw_value in attrs:
            name = raw_name.lower()
            value = raw_value if raw_value is not None else ""
            if not _ATTRIBUTE_NAME.match(name) or name in ALWAYS_DROPPED_ATTRIBUTES:
                self.removed.append(f"{name}=")
                continue
            if name.startswith("on"):
                check_script(value, f"{name} handler")
                kept.append((name, value))
                continue
            if name == "style":
                kept.append((name, self._css(value)))
                continue
            if name in URL_ATTRIBUTES:
                allowed = self._url(tag, name, value)
                if allowed is not None:
                    kept.append((name, allowed))
                continue
            kept.append((name, value))
        return kept

    def _url(self, tag: str, name: str, value: str) -> str | None:
        compact = re.sub(r"[\x00-\x20]+", "", value)
        scheme = compact.split(":", 1)[0].lower() if ":" in compact else ""
        if scheme in {"javascript", "vbscript"}:
            raise _Refusal(f"the widget has a {scheme}: URL in {name}")
        if tag == "script":  # src, or href in SVG
            raise _Refusal("the widget loads an external script; scripts must be inline")
        if name in {"href", "xlink:href"} and compact.startswith("#"):
            return value  # a link within the widget
        if name == "src" and tag == "img" and _DATA_IMAGE.match(value.strip()):
            return value.strip()
        self.removed.append(f"{name}={compact[:60]}")
        return None

    def _css(self, css: str) -> str:
        if _CSS_IMPORT.search(css):
            self.removed.append("@import")
            css = _CSS_IMPORT.sub("", css)

        def keep_data_images(match: re.Match[str]) -> str:
            target = match.group(2).strip()
            if _DATA_IMAGE.match(target):
                return match.group(0)
            self.removed.append(f"url({target[:60]})")
            return "none"

        css = _CSS_URL.sub(keep_data_images, css)
        if re.search(r"expression\s*\(|behavior\s*:|-moz-binding", css, re.I):
            raise _Refusal("the widget's CSS runs code")
        return css
