from __future__ import annotations

from urllib.parse import quote, quote_plus

import pytest

from config import mask_url, redact_text

TOKEN = "123:SECRETxyz"


@pytest.mark.parametrize(
    "spelling",
    [
        TOKEN,
        quote(TOKEN, safe=""),
        quote(TOKEN),
        quote(TOKEN, safe="").lower(),
        "123%3aSECRETxyz",
        quote(quote(TOKEN, safe=""), safe=""),
    ],
)
def test_a_registered_secret_is_masked_raw_and_percent_encoded(spelling: str) -> None:
    line = f"GET https://api.telegram.org/bot{spelling}/getMe failed"
    masked = redact_text(line, [TOKEN])
    assert "SECRETxyz" not in masked
    assert "SECRET" not in masked.upper().replace("%", "")
    assert masked.startswith("GET https://api.telegram.org/bot***/getMe")


def test_every_character_of_a_secret_may_be_encoded_in_either_hex_case() -> None:
    secret = "p@ss w/rd:é&more"
    spellings = [
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        quote(secret, safe="").lower(),
        "".join(f"%{b:02X}" for b in secret.encode()),
        "".join(f"%{b:02x}" for b in secret.encode()),
    ]
    for spelling in spellings:
        assert redact_text(f"x={spelling}!", [secret]) == "x=***!", spelling


def test_a_secret_containing_another_is_masked_whole() -> None:
    assert redact_text("abc-longer and abc", ["abc", "abc-longer"]) == "*** and ***"


def test_unregistered_telegram_token_in_a_bot_path_is_masked() -> None:
    line = "https://api.telegram.org/bot123%3ASECRETxyz/getMe"
    assert redact_text(line) == "https://api.telegram.org/bot***/getMe"
    assert redact_text("https://api.telegram.org/bot9:AA-b_c/x") == (
        "https://api.telegram.org/bot***/x"
    )


@pytest.mark.parametrize(
    "name",
    [
        "token",
        "api_key",
        "api-key",
        "apikey",
        "key",
        "password",
        "secret",
        "access_token",
        "client_secret",
        "X-Amz-Signature",
        "Password",
        "API_KEY",
        "TOKEN",
    ],
)
def test_credential_query_parameters_are_masked_whatever_their_value(name: str) -> None:
    url = f"https://h/x?page=2&{name}=abc%2Fdef,ghi&lang=en"
    assert mask_url(url) == f"https://h/x?page=2&{name}=***&lang=en"
    assert mask_url(f"https://h/x?{name}=abc") == f"https://h/x?{name}=***"


def test_credential_pairs_outside_a_url_are_masked() -> None:
    assert redact_text("grant_type=x&client_secret=s3") == "grant_type=x&client_secret=***"
    assert redact_text("token=abc") == "token=***"
    assert redact_text("retrying with (api_key=abc)") == "retrying with (api_key=***"


def test_ordinary_query_parameters_are_left_alone() -> None:
    url = "https://h/search?q=limits&page=2&keyword=x&lang=en"
    assert mask_url(url) == url
