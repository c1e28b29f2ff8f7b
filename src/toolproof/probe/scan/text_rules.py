"""The rules over one text a server shows the model: words aimed at the model (injection, concealment,
secrets), and characters hidden from the person reading it (invisible Unicode, terminal escapes, encoded
payloads). Pure; every pattern is linear (no nested quantifiers, bounded windows)."""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator, Mapping

from toolproof.probe.lint_rules.findings import Severity
from toolproof.probe.scan.findings import Rule, ScanFinding, Surface, found, visible

INJECTION = Rule(
    "S101",
    "injection",
    Severity.ERROR,
    "Text that speaks to the model instead of describing the tool: prompt-injection markers "
    "(<IMPORTANT>, <system>, chat-template tokens), 'ignore previous instructions', 'you are now', "
    "instructions addressed to the assistant or model.",
)
CONCEALMENT = Rule(
    "S102",
    "concealment",
    Severity.ERROR,
    "Text that asks the model to hide something from the user: 'do not tell/mention ... the user', "
    "'hide this from the user', 'without the user knowing'.",
)
SECRETS = Rule(
    "S103",
    "secret-reference",
    Severity.ERROR,
    "References to files or secrets the tool has no parameter for: SSH keys, .env files, cloud and "
    "package-manager credentials, MCP client configuration, or asking to read/send/include API keys, "
    "tokens, passwords or private keys.",
)
HIDDEN = Rule(
    "S104",
    "hidden-unicode",
    Severity.ERROR,
    "Characters a person does not see but the model reads: zero-width characters, bidirectional "
    "controls, Unicode tag characters (their hidden ASCII is decoded and shown), variation-selector "
    "runs. Joiners inside emoji and non-joiners inside non-Latin words are allowed.",
)
ESCAPES = Rule(
    "S105",
    "terminal-escape",
    Severity.ERROR,
    "Terminal escape sequences and control characters, which can hide or rewrite text in a terminal.",
)
ENCODED = Rule(
    "S106",
    "encoded-payload",
    Severity.ERROR,
    "Base64 or hex runs that decode to readable text: instructions hidden from the person reviewing.",
)

_I = re.IGNORECASE
_INJECTION = re.compile(
    r"<\s*/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|sudo)\s*>"
    r"|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<</?SYS>>"
    r"|\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system|original)\s+(?:instructions|prompts?|rules|directions)"
    r"|\byou\s+are\s+now\b|\bnew\s+(?:system\s+)?instructions\s*:"
    r"|\b(?:the\s+)?(?:assistant|ai|llm|language\s+model|model)\s+(?:must|should|needs\s+to|has\s+to)\s+"
    r"(?:always|never|first|also|secretly|silently|immediately)\b"
    r"|\bbefore\s+(?:using|calling|invoking)\s+(?:this|any)\s+tool\s*,?\s+(?:you\s+)?(?:must|should|need\s+to)"
    r"|\b(?:you|the\s+assistant)\s+must\s+(?:always\s+)?(?:first\s+)?(?:read|send|include|pass|call)\s+"
    r"(?:the\s+)?(?:contents?|file|secret|key)",
    _I,
)
_CONCEALMENT = re.compile(
    r"\b(?:do\s+not|don'?t|never|without)\s+(?:tell|telling|mention|mentioning|inform|informing|reveal|"
    r"revealing|notify|notifying|alert|alerting|show|showing|disclose|disclosing)\b[^.\n]{0,40}?\buser"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|that|these)\s+(?:a\s+secret\s+)?(?:hidden\s+)?from\s+the\s+user"
    r"|\bwithout\s+(?:the\s+user(?:'s)?\s+)?(?:knowing|noticing|knowledge|awareness)"
    r"|\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|be\s+told)",
    _I,
)
_SECRET_FILE = re.compile(
    r"\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?<![\w.])\.env\b|/etc/(?:passwd|shadow)\b"
    r"|\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials|\.kube/config|\.docker/config\.json"
    r"|\bmcp\.json\b|claude_desktop_config\.json|\.gnupg/|\bwallet\.dat\b",
    _I,
)
_SECRET_ASK = re.compile(
    r"\b(?:read|send|include|pass|attach|upload|copy|forward|leak|exfiltrate|collect|append|embed|add)\b"
    r"[^.\n]{0,60}?\b(api[ _-]?keys?|secret\s+keys?|credentials?|access\s+tokens?"
    r"|auth(?:entication)?\s+tokens?"
    r"|bearer\s+tokens?|passwords?|private\s+keys?|ssh\s+keys?|environment\s+variables|env\s+vars"
    r"|session\s+cookies?|seed\s+phrases?)\b"
    r"(?![ -](?:reset|recovery|change|strength|policy|requirements|rules|hint|expir))",
    _I,
)
_FILE_STEMS = (
    ("ssh", (".ssh", "id_")),
    ("env", (".env",)),
    ("passwd", ("passwd", "shadow")),
    ("aws", ("aws",)),
    ("netrc", ("netrc",)),
    ("npm", ("npmrc",)),
    ("pypi", ("pypirc",)),
    ("git", ("git-credentials",)),
    ("kube", ("kube",)),
    ("docker", ("docker",)),
    ("mcp", ("mcp.json", "claude_desktop")),
    ("gpg", ("gnupg",)),
    ("wallet", ("wallet",)),
)
"""Each secret file's stem: a tool whose name or parameters carry it is about that file."""
_SECRET_STEMS = ("key", "token", "password", "credential", "secret", "cookie", "env", "passphrase")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_HEX = re.compile(r"\b(?:0x)?[0-9a-fA-F]{24,}\b")
_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]{0,32}[\x20-\x2f]{0,8}[\x40-\x7e]|\x1b[^\[]?|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_ZERO_WIDTH = frozenset({0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E, 0x2061, 0x2062, 0x2063, 0x2064})
_BIDI = frozenset({0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
_TAGS = range(0xE0000, 0xE0080)
_VS_SUPPLEMENT = range(0xE0100, 0xE01F0)
_WAVING_FLAG = 0x1F3F4
_INVISIBLE = re.compile(
    "(?P<tags>[\U000e0000-\U000e007f]+)"
    "|[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufe00-\ufe0f\ufeff"
    "\U000e0100-\U000e01ef]+"
)
"""Runs of the characters `_invisible_kind` may flag (a candidate filter: one pass in C)."""


def injection(surface: Surface) -> Iterator[ScanFinding]:
    for match in _INJECTION.finditer(surface.text):
        yield found(INJECTION, surface, "text addressed to the model", context(surface.text, match))


def concealment(surface: Surface) -> Iterator[ScanFinding]:
    for match in _CONCEALMENT.finditer(surface.text):
        yield found(
            CONCEALMENT, surface, "asks to hide something from the user", context(surface.text, match)
        )


def secret_reference(surface: Surface) -> Iterator[ScanFinding]:
    text = surface.text
    parameters = _parameter_names(surface.tool_definition)
    own = [str(surface.tool_definition.get("name", "")).lower()] if surface.tool_definition else []
    for match in _SECRET_FILE.finditer(text):
        stem = next(
            stem for stem, marks in _FILE_STEMS if any(mark in match.group().lower() for mark in marks)
        )
        if any(stem in name for name in (*own, *parameters)):
            continue  # a tool about that file (load_dotenv, ssh_keys): naming it is honest
        yield found(SECRETS, surface, "names a secret file", context(text, match))
    for match in _SECRET_ASK.finditer(text):
        secret = match.group(1).lower()
        if any(stem in secret and any(stem in name for name in parameters) for stem in _SECRET_STEMS):
            continue  # the tool takes such a secret as a parameter: naming it is honest
        yield found(SECRETS, surface, f"asks for {secret}", context(text, match))


def hidden_unicode(surface: Surface) -> Iterator[ScanFinding]:
    """Tag-character runs first (with the ASCII they hide), then each run of other invisible characters."""
    text = surface.text
    others: list[ScanFinding] = []
    for match in _INVISIBLE.finditer(text):
        start, end = match.span()
        if match.group("tags") is not None:
            if not _flag_sequence(text, start, end):
                hidden = visible("".join(chr(ord(char) - 0xE0000) for char in match.group()))
                message = f"{end - start} Unicode tag characters hiding {hidden!r}"
                yield found(HIDDEN, surface, message, f"<tags: {hidden}>")
            continue
        index = start
        while index < end:
            kind = _invisible_kind(text, index)
            run = index + 1
            while run < end and _invisible_kind(text, run) == kind:
                run += 1
            if kind:
                count = f"{run - index} x " if run - index > 1 else ""
                span = visible(text[max(0, index - 20) : min(run, index + 20) + 20])
                others.append(found(HIDDEN, surface, f"{kind} {count}U+{ord(text[index]):04X}", span))
            index = run
    yield from others


def terminal_escape(surface: Surface) -> Iterator[ScanFinding]:
    for match in _ESCAPE.finditer(surface.text):
        if match.group() in "\r":
            continue
        yield found(ESCAPES, surface, "terminal escape or control character", context(surface.text, match))


def encoded_payload(surface: Surface) -> Iterator[ScanFinding]:
    text = surface.text
    for match in _BASE64.finditer(text):
        decoded = _from_base64(match.group())
        if decoded is not None:
            yield found(
                ENCODED, surface, f"base64 decoding to {visible(decoded, 120)!r}", visible(match.group(), 60)
            )
    for match in _HEX.finditer(text):
        decoded = _from_hex(match.group())
        if decoded is not None:
            yield found(
                ENCODED, surface, f"hex decoding to {visible(decoded, 120)!r}", visible(match.group(), 60)
            )


def context(text: str, match: re.Match[str], margin: int = 20) -> str:
    """The match with a little text either side, made visible."""
    start, end = max(0, match.start() - margin), min(len(text), match.end() + margin)
    prefix = "..." if start else ""
    suffix = "..." if end < len(text) else ""
    return f"{prefix}{visible(text[start:end])}{suffix}"


def _parameter_names(tool: Mapping[str, object] | None) -> list[str]:
    schema = tool.get("inputSchema") if tool is not None else None
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return [str(name).lower() for name in properties] if isinstance(properties, Mapping) else []


def _flag_sequence(text: str, start: int, end: int) -> bool:
    """Tags that spell a subdivision flag: after U+1F3F4, ending with CANCEL TAG, only letters/digits."""
    body = text[start : end - 1]
    return (
        start > 0
        and ord(text[start - 1]) == _WAVING_FLAG
        and ord(text[end - 1]) == 0xE007F
        and all(chr(ord(char) - 0xE0000).isalnum() for char in body)
    )


def _invisible_kind(text: str, index: int) -> str:
    """What invisible character stands at `index` ('' when none, or when it is used as scripts need)."""
    code = ord(text[index])
    before = text[index - 1] if index else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if code == 0x200D and _pictographic(before) and _pictographic(after):
        return ""  # joins an emoji sequence
    if code == 0x200C and _non_latin_letter(before) and _non_latin_letter(after):
        return ""  # a non-joiner inside a Persian or Indic word
    if code == 0xFEFF and index == 0:
        return ""  # a byte order mark at the start
    if code in _ZERO_WIDTH:
        return "zero-width character"
    if code in _BIDI:
        return "bidirectional control"
    if code in _VS_SUPPLEMENT:
        return "variation selector (supplement)"
    if 0xFE00 <= code <= 0xFE0F and before and 0xFE00 <= ord(before) <= 0xFE0F:
        return "variation-selector run"
    return ""


def _pictographic(char: str) -> bool:
    return bool(char) and (
        unicodedata.category(char) == "So" or 0xFE00 <= ord(char) <= 0xFE0F or ord(char) >= 0x1F000
    )


def _non_latin_letter(char: str) -> bool:
    return bool(char) and ord(char) >= 0x0590 and unicodedata.category(char)[0] in "LM"


def _readable(data: bytes) -> str | None:
    """`data` as text when it reads as words: UTF-8, printable, with letters and a space."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for char in text if char.isprintable() or char in "\n\t")
    letters = sum(1 for char in text if char.isalpha())
    if len(text) < 12 or printable < len(text) * 0.95 or letters < len(text) * 0.5 or " " not in text:
        return None
    return text


def _from_base64(run: str) -> str | None:
    if any(char in run for char in "-_") and any(char in run for char in "+/"):
        return None
    altchars = b"-_" if any(char in run for char in "-_") else None
    padded = run + "=" * (-len(run) % 4)
    try:
        data = base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(data)


def _from_hex(run: str) -> str | None:
    digits = run[2:] if run.lower().startswith("0x") else run
    if len(digits) % 2:
        return None
    return _readable(bytes.fromhex(digits))
