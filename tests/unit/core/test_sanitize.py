"""clean, redact, secret_values and Scrubber."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.core.sanitize import Scrubber, clean, mask, redact, secret_values

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[31mred\x1b[0m plain", "red plain"),
        ("\x1b[38;5;196mx\x1b[m", "x"),
        ("a\x1b[2J\x1b[Hb", "ab"),  # clear screen, cursor home
        ("\x1b]0;title\x07after", "after"),  # OSC ended by BEL
        ("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"),  # hyperlink, ended by ST
        ("\x1bP+q544e\x1b\\x", "x"),  # DCS
        ("\x9b31mx\x9d0;t\x9cy", "xy"),  # 8-bit CSI and OSC
        ("\x1b(Bx\x1b=y\x1bMz", "xyz"),  # charset, keypad, reverse index
        ("\x1b]0;unterminated", "0;unterminated"),  # introducer dropped, the rest is harmless text
        ("tail\x1b", "tail"),
        ("bell\x07 back\x08 cr\r del\x7f nul\x00", "bell back cr del nul"),
        ("keep\ttab\nand newline", "keep\ttab\nand newline"),
        ("\u202eevil\u202c \u2066iso\u2069", "evil iso"),  # bidi overrides and isolates
        ("lone \ud800 surrogate", "lone  surrogate"),
        ("héllo ✓ 日本 🙂", "héllo ✓ 日本 🙂"),
    ],
)
def test_clean(text: str, expected: str) -> None:
    assert clean(text) == expected


@given(st.text())
def test_clean_leaves_no_control_character_and_is_idempotent(text: str) -> None:
    cleaned = clean(text)
    assert not _UNSAFE.search(cleaned)
    assert clean(cleaned) == cleaned


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Cf"))))
def test_clean_keeps_printable_text(text: str) -> None:
    assert clean(text) == text


def test_redact_masks_every_occurrence_longest_first() -> None:
    assert redact("key abcd and abcdef, abcd", ["abcd", "abcdef"]) == "key *** and ***, ***"


def test_redact_ignores_empty_secrets_and_no_secrets() -> None:
    assert redact("text", ["", ""]) == "text"
    assert redact("text", []) == "text"


def test_redact_treats_secrets_literally() -> None:
    assert redact("a.b*c a-b-c", ["a.b*c"]) == "*** a-b-c"


def test_secret_values_from_headers() -> None:
    headers = {
        "Authorization": "Bearer abc123token",
        "Cookie": "sid=cookievalue1; theme=dark",
        "X-API-Key": "key-987654",
        "X-Session-Id": "sess-1234",
        "Accept": "application/json",
        "User-Agent": "toolproof-test",
    }
    assert secret_values({}, headers) == {
        "Bearer abc123token",
        "abc123token",
        "sid=cookievalue1; theme=dark",
        "cookievalue1",
        "dark",
        "key-987654",
        "sess-1234",
    }


def test_secret_values_from_env() -> None:
    env = {
        "GITHUB_TOKEN": "ghp_abcdef",
        "OPENAI_API_KEY": "sk-123456",
        "DB_PASSWORD": "pa55word",
        "LDAP_PASSWD": "ldap-pw",
        "AWS_SECRET_ACCESS_KEY": "aws/secret",
        "BASIC_AUTH": "user:pass",
        "GCP_CREDENTIALS": "/creds.json",
        "SSH_PRIVATE": "-----BEGIN",
        "api_key": "lowercase-name",
        "HOME": "/home/user",
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
    }
    assert secret_values(env, {}) == {
        "ghp_abcdef",
        "sk-123456",
        "pa55word",
        "ldap-pw",
        "aws/secret",
        "user:pass",
        "/creds.json",
        "-----BEGIN",
        "lowercase-name",
    }


def test_secret_values_ignores_flags_but_keeps_short_secrets() -> None:
    env = {"API_KEY": "abc", "AUTH_ENABLED": "true", "TOKEN_CHECK": "False", "SECRET": "", "AUTH_LEVEL": "2",
           "PIN_SECRET": "1234", "AUTH_ON": " on "}
    assert secret_values(env, {"X-Token": "no", "Authorization": "null"}) == {"abc", "1234"}


def test_a_secret_of_any_length_is_masked_as_a_whole_word_only() -> None:
    scrub = Scrubber(["a", "pw", "k3y"])
    assert scrub("a banana, pw=pw; apw; k3y.k3yk3y (a)") == "*** banana, ***=***; apw; ***.k3yk3y (***)"
    assert redact("x-a-y xay", ["a"]) == "x-***-y xay"
    assert mask({"a": "an a"}, ["a"]) == {"***": "an ***"}


def test_a_secret_with_non_word_ends_is_masked_wherever_it_occurs() -> None:
    assert redact("x-token-y/ab==cd", ["-token-", "b=="]) == "x***y/ab==cd"


def test_scrubber_cleans_then_masks() -> None:
    scrub = Scrubber(["s3cr3t-value"])
    assert scrub("\x1b[1mtoken s3cr3t-value\x1b[0m") == "token ***"


def test_scrubber_masks_a_secret_split_by_an_escape_sequence() -> None:
    assert Scrubber(["s3cr3t-value"])("s3cr3t\x1b[0m-value") == "***"


def test_scrubber_masks_a_secret_that_holds_control_characters() -> None:
    assert Scrubber(["ab\x07cdef"])("x abcdef y") == "x *** y"


def test_scrubber_without_secrets_only_cleans() -> None:
    assert Scrubber()("\x1b[31mx\x1b[0m") == "x"


def test_scrubber_value_walks_json_data() -> None:
    scrub = Scrubber(["s3cr3t-value"])
    data = {"s3cr3t-value": ["a s3cr3t-value", 1, None, {"k": "\x1b[2Jv"}], "n": 2.5}
    assert scrub.value(data) == {"***": ["a ***", 1, None, {"k": "v"}], "n": 2.5}
