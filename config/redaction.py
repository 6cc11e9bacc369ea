"""Masking of secrets and credentials: the one place that decides what a log line or
`coursebot config` may show."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

MASK = "***"

# scheme://user:password@host  ->  scheme://***@host
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)(?P<cred>[^\s/@]+)@")

# Parameter names that carry a credential: exactly one of these words, or a name ending in
# one (access_token, client_secret, X-Amz-Signature, apikey, private_key). Masking a harmless
# `monkey=` now and then is the price of never showing an `accesstoken=`.
_CREDENTIAL_NAME = (
    r"[\w.\-]*?(?:password|passwd|passphrase|pwd|pass|token|secret|api[_\-]?key|key|auth"
    r"|authorization|credentials?|signature|sig|session[_\-]?id)"
)
# ...?password=x&api_key=y  ->  ...?password=***&api_key=***, also in a bare
# `token=x` (a form body, a message): a name starting the text, a query part, or a word.
# The value runs to the next separator, so a secret holding `,` or `)` is masked whole.
_SECRET_QUERY = re.compile(
    rf"(?P<key>(?:^|(?<=[?&;\s\"'(\[{{,]))(?:{_CREDENTIAL_NAME})=)(?P<value>[^&;\s#\"']+)",
    re.IGNORECASE,
)

# Telegram puts the bot token in the request path (/bot123:ABC/getMe); mask it even when the
# token was never registered, raw or percent-encoded.
_TELEGRAM_BOT_PATH = re.compile(r"(?P<key>/bot)\d+(?::|%3a|%253a)[\w\-]+", re.IGNORECASE)


def mask_url(url: str) -> str:
    """The URL with its user info and secret query parameters replaced by a mask."""
    return redact_text(url)


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with URL credentials, secret query parameters and each known secret masked.

    A known secret is found raw and percent-encoded: `quote(secret, safe="")`, the default
    `quote(secret)`, `quote_plus`, upper- or lower-case hex, even encoded twice."""
    pattern = _secrets_pattern(tuple(sorted({s for s in secrets if s})))
    if pattern is not None:
        text = pattern.sub(MASK, text)
    text = _TELEGRAM_BOT_PATH.sub(lambda m: f"{m['key']}{MASK}", text)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    return _SECRET_QUERY.sub(lambda m: f"{m['key']}{MASK}", text)


@lru_cache(maxsize=32)
def _secrets_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex matching any of `secrets` in any of its percent-encoded spellings; longest
    first, so a secret that contains another is masked whole."""
    if not secrets:
        return None
    alternatives = [_encoded_forms(s) for s in sorted(secrets, key=len, reverse=True)]
    return re.compile("|".join(alternatives))


def _encoded_forms(secret: str) -> str:
    """A regex for `secret` where each character may also appear as its UTF-8 %XX escapes
    (either hex case, optionally encoded again as %25XX) and a space as `+`."""
    parts: list[str] = []
    for char in secret:
        escaped = "".join(rf"%(?:25)?(?i:{byte:02x})" for byte in char.encode("utf-8"))
        options = [re.escape(char), escaped, *([r"\+"] if char == " " else [])]
        parts.append("(?:" + "|".join(options) + ")")
    return "".join(parts)
