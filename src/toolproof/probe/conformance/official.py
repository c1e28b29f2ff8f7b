"""Which official conformance scenarios (and their check ids) test the same requirement as each of ours.

One row per requirement, keyed by the name its result carries; a requirement with no row is one the official
suite does not test. A module that adds checks adds its rows here (one line each, so merges stay simple).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STABLE = "0.1.16"
ALPHA = "0.2.0-alpha.12"
BOTH = (STABLE, ALPHA)
UNTESTED = "the official conformance suite does not test this requirement"


@dataclass(frozen=True)
class Scenario:
    """An official server scenario and the ids of its checks that judge the requirement, in `releases`."""

    id: str
    checks: tuple[str, ...]
    releases: tuple[str, ...] = BOTH

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.id, "checks": list(self.checks), "releases": list(self.releases)}


def same(scenario: str, releases: tuple[str, ...] = BOTH) -> Scenario:
    """A scenario whose one check has the scenario's own id."""
    return Scenario(scenario, (scenario,), releases)


def sep(scenario: str, *names: str, releases: tuple[str, ...] = BOTH) -> Scenario:
    """A scenario with one check per name, each id `<scenario prefix>-<name>`."""
    prefix = scenario.rsplit("-", 1)[0]
    return Scenario(scenario, tuple(f"{prefix}-{name}" for name in names), releases)


OFFICIAL: dict[str, tuple[Scenario, ...]] = {
    "initialize result is well-formed": (same("server-initialize"),),
    "ping": (same("ping"),),
    "logging advertised only if implemented": (same("logging-set-level"),),
    "completions advertised only if implemented": (same("completion-complete"),),
    "resources.subscribe advertised only if implemented": (same("resources-subscribe"),),
    "tools/list pages": (same("tools-list"),),
    "resources/list pages": (same("resources-list"),),
    "prompts/list pages": (same("prompts-list"),),
    "tool schemas are valid JSON Schema": (
        Scenario("json-schema-2020-12", ("json-schema-2020-12-$schema", "json-schema-2020-12-$defs")),
    ),
    "text content is well-formed": (same("tools-call-simple-text"),),
    "image content is well-formed": (same("tools-call-image"),),
    "audio content is well-formed": (same("tools-call-audio"),),
    "embedded resource content is well-formed": (same("tools-call-embedded-resource"),),
    "mixed content is well-formed": (same("tools-call-mixed-content"),),
    "tool errors are isError results with content": (same("tools-call-error"),),
    "log messages are well-formed": (same("tools-call-with-logging"),),
    "progress notifications": (same("tools-call-with-progress"),),
    "sampling requests are well-formed": (same("tools-call-sampling"),),
    "elicitation requests are well-formed": (same("tools-call-elicitation"),),
    "elicitation defaults match their types (SEP-1034)": (
        sep(
            "elicitation-sep1034-defaults",
            "string-default",
            "integer-default",
            "number-default",
            "enum-default",
            "boolean-default",
        ),
    ),
    "elicitation enums are well-formed (SEP-1330)": (
        sep(
            "elicitation-sep1330-enums",
            "untitled-single",
            "titled-single",
            "legacy-enumnames",
            "untitled-multi",
            "titled-multi",
        ),
    ),
    "resources/read text contents": (same("resources-read-text"),),
    "resources/read binary contents": (same("resources-read-binary"),),
    "resource templates are read": (same("resources-templates-read"),),
    "resources/unsubscribe": (same("resources-unsubscribe"),),
    "prompts/get without arguments": (same("prompts-get-simple"),),
    "prompts/get with arguments": (same("prompts-get-with-args"),),
    "prompt embedded resource content": (same("prompts-get-embedded-resource"),),
    "prompt image content": (same("prompts-get-with-image"),),
    "DELETE ends the session": (
        Scenario(
            "server-session-lifecycle",
            ("server-session-delete-accepted", "server-session-terminated-returns-404"),
            (ALPHA,),
        ),
    ),
    "session id is visible ASCII": (
        Scenario("server-initialize", ("server-session-id-visible-ascii",), (ALPHA,)),
    ),
    "SSE priming event (SEP-1699)": (
        Scenario("server-sse-polling", ("server-sse-priming-event", "server-sse-retry-field")),
    ),
    "several POST streams at once": (
        Scenario(
            "server-sse-multiple-streams",
            ("server-accepts-multiple-post-streams", "server-sse-streams-functional"),
        ),
    ),
    "foreign Host/Origin rejected (DNS rebinding)": (
        Scenario(
            "dns-rebinding-protection", ("localhost-host-rebinding-rejected", "localhost-host-valid-accepted")
        ),
    ),
}


def official(check: str) -> dict[str, Any]:
    """What `details.official` says for the requirement named `check`."""
    scenarios = OFFICIAL.get(check, ())
    if not scenarios:
        return {"scenarios": [], "note": UNTESTED}
    return {"scenarios": [scenario.as_dict() for scenario in scenarios]}


def cited(ids: tuple[str, ...]) -> dict[str, Any]:
    """What `details.official` says for a requirement that names its official `scenario/check` ids itself
    (the 2026-07-28 era's checks, in 0.2.0-alpha.12 only)."""
    checks: dict[str, list[str]] = {}
    for ident in ids:
        scenario, check = ident.split("/", 1)
        checks.setdefault(scenario, []).append(check)
    return {"scenarios": [Scenario(s, tuple(c), (ALPHA,)).as_dict() for s, c in checks.items()]}
