"""Make server-provided text safe to show: strip terminal escapes and control characters, mask secrets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "***"

_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"  # CSI: colours, cursor moves, erase
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]"  # every other escape sequence
)
# C0 except tab and newline, DEL, C1, bidi embeddings/overrides/isolates, lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|session|password|credential", re.IGNORECASE)
_SECRET_ENV = re.compile(r"key|token|secret|password|passwd|auth|credential|private", re.IGNORECASE)
_SCHEME = re.compile(r"[A-Za-z][\w.-]*\s+(\S+)")  # `Bearer <token>`, `Basic <base64>`
_NOT_SECRET = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none", "undefined"})
_SHORT_NUMBER = re.compile(r"\d{1,3}")
_LEARNED: set[str] = set()  # secrets learned while running (OAuth tokens and secrets): every mask covers them


def add_secret(value: str) -> None:
    """Mask `value` in everything reported from now on, like the secrets each sink was given."""
    if maskable(value):
        _LEARNED.add(value.strip())


def clean(text: str) -> str:
    """`text` without escape sequences and control characters; newline and tab are kept.

    Escape sequences go whole (an unterminated string sequence loses its introducer only), then every
    remaining C0/C1 control character goes, so no escape sequence can survive or be formed.
    """
    return _CONTROL.sub("", _ESCAPE.sub("", text))


_FRAME = "─━│┃╭╮╰╯┌┐└┘┏┓┗┛├┤┬┴┼═║╔╗╚╝ "


def unframed_lines(text: str) -> list[str]:
    """The lines of `text` without the frames Rich draws around a traceback: a line that is all frame goes,
    a framed line loses its borders and the padding inside them (`│ ValueError: x   │` is `ValueError: x`);
    any other line stays as it is."""
    lines: list[str] = []
    for line in text.split("\n"):
        if not any(char in _FRAME[:-1] for char in line):
            lines.append(line)
        elif inner := line.strip(_FRAME + "\t"):
            lines.append(inner)
    return lines


def maskable(value: str) -> bool:
    """Whether a secret's value is masked: any non-empty value but the flags a secret-named setting may
    hold (true/false/yes/no/on/off/null/none/undefined, numbers of up to 3 digits)."""
    value = value.strip()
    return bool(value) and value.lower() not in _NOT_SECRET and not _SHORT_NUMBER.fullmatch(value)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret replaced by `***` where it stands as a whole word (see `_pattern`)."""
    return _pattern({*secrets, *_LEARNED}).sub(MASK, text)


def mask(value: Any, secrets: Iterable[str]) -> Any:
    """A JSON-like value with every secret replaced by `***` in every string, mapping keys included; nothing
    else changes (control characters stay, unlike `Scrubber`); a value without a secret comes back as is."""
    secrets = tuple(secret for secret in {*secrets, *_LEARNED} if secret)
    if not secrets:
        return value
    pattern = _pattern(secrets)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return pattern.sub(MASK, item)
        if isinstance(item, dict):
            pairs = [(pattern.sub(MASK, str(key)), walk(inner)) for key, inner in item.items()]
            kept = all(new is old for (_, new), old in zip(pairs, item.values(), strict=True))
            kept = kept and all(key == old for (key, _), old in zip(pairs, item, strict=True))
            return item if kept else dict(pairs)
        if isinstance(item, list | tuple):
            walked = [walk(inner) for inner in item]
            return item if all(new is old for new, old in zip(walked, item, strict=True)) else walked
        return item

    return walk(value)


def secret_values(env: Mapping[str, str], headers: Mapping[str, str]) -> set[str]:
    """The values to mask in every report.

    A header counts when its name contains auth, key, token, secret, cookie, session, password or
    credential; an env variable when its name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, AUTH,
    CREDENTIAL or PRIVATE (both case-insensitive). For a header, the credentials after a scheme
    (`Bearer x` gives `x`) and the value of every `name=value` pair (cookies) count too. Flag values
    (see `maskable`) are left out.
    """
    found: set[str] = set()
    for name, value in headers.items():
        if _SECRET_HEADER.search(name):
            found.update(_header_parts(value))
    for name, value in env.items():
        if _SECRET_ENV.search(name):
            found.add(value.strip())
    return {value for value in found if maskable(value)}


class Scrubber:
    """`clean` then `redact` with a fixed set of secrets; what every sink applies to text it writes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        masked = {secret for secret in secrets if secret}
        # A secret split by an escape sequence is whole again after cleaning; match the cleaned form too.
        masked |= {clean(secret) for secret in masked}
        self._secrets = masked
        self._learned = 0
        self._pattern = _pattern(masked) if masked else None

    def __call__(self, text: str) -> str:
        cleaned = clean(text)
        if len(_LEARNED) != self._learned:  # secrets were learned since: mask them too
            self._learned = len(_LEARNED)
            self._pattern = _pattern(self._secrets | _LEARNED)
        return self._pattern.sub(MASK, cleaned) if self._pattern else cleaned

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string in it (keys included) scrubbed."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(str(key)): self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


def _pattern(secrets: Iterable[str]) -> re.Pattern[str]:
    """One rule for every secret, whatever its length: it is masked wherever it occurs as a whole word,
    never inside a longer run of letters, digits and `_` (so a secret `a` leaves "abc" alone, and a short
    secret is masked where it stands alone). Longest secrets first."""
    ordered = sorted({secret for secret in secrets if secret}, key=len, reverse=True)
    return re.compile("|".join(map(_whole_word, ordered)) or "(?!)")


def _whole_word(secret: str) -> str:
    before = r"(?<!\w)" if re.match(r"\w", secret) else ""
    after = r"(?!\w)" if re.search(r"\w\Z", secret) else ""
    return f"{before}{re.escape(secret)}{after}"


def _header_parts(value: str) -> set[str]:
    parts = {value.strip()}
    if scheme := _SCHEME.fullmatch(value.strip()):
        parts.add(scheme.group(1))
    for pair in value.split(";"):
        _, equals, cookie = pair.partition("=")
        if equals:
            parts.add(cookie.strip())
    return parts
