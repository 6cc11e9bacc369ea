"""Masking of secrets and credentials: the one place that decides what a log line or
`coursebot config` may show."""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"

# scheme://user:password@host  ->  scheme://***@host
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)(?P<cred>[^\s/@]+)@")
# ...?password=x&api_key=y  ->  ...?password=***&api_key=***
_SECRET_QUERY = re.compile(
    r"(?P<key>[?&](?:password|passwd|pwd|token|api[_-]?key|secret)=)(?P<value>[^&\s#]+)",
    re.IGNORECASE,
)


def mask_url(url: str) -> str:
    """The URL with its user info and secret query parameters replaced by a mask."""
    return redact_text(url)


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with URL credentials, secret query parameters and each known secret masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    return _SECRET_QUERY.sub(lambda m: f"{m['key']}{MASK}", text)
