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
    # what the tools the probe called sent while in flight (the official fixtures send three of each)
    "a tool's log messages arrive during its call": (same("tools-call-with-logging"),),
    "a tool's progress arrives during its call": (same("tools-call-with-progress"),),
    "foreign Host/Origin rejected (DNS rebinding)": (
        Scenario(
            "dns-rebinding-protection", ("localhost-host-rebinding-rejected", "localhost-host-valid-accepted")
        ),
    ),
}


# The extensions (0.2.0-alpha.12's extension scenarios: tasks, SEP-2663; skills, SEP-2640), by check name.
def alpha(*ids: str) -> tuple[Scenario, ...]:
    """The scenarios of 0.2.0-alpha.12 that the `scenario/check` ids name, with their checks."""
    checks: dict[str, list[str]] = {}
    for ident in ids:
        scenario, check = ident.split("/", 1)
        checks.setdefault(scenario, []).append(check)
    return tuple(Scenario(scenario, tuple(names), (ALPHA,)) for scenario, names in checks.items())


def _each(scenario: str, *names: str) -> tuple[str, ...]:
    """`scenario/name` for each name (`scenario/sep-2640-name` in the skills scenarios)."""
    prefix = "sep-2640-" if scenario.startswith("sep-2640-") else ""
    return tuple(f"{scenario}/{prefix}{name}" for name in names)


NEGOTIATION, DISPATCH, LIFECYCLE = (
    "tasks-capability-negotiation",
    "tasks-dispatch-and-envelope",
    "tasks-lifecycle",
)
WIRE, STATE, INPUT = "tasks-wire-fields", "tasks-request-state-removal", "tasks-mrtr-input"
SKILLS, MANIFEST, DIRECTORY = (
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
)
OFFICIAL |= {
    "tasks served only with the extension declared": alpha(*_each(NEGOTIATION, "tasks-extension-advertised")),
    "tasks methods need the client's extension (-32021)": alpha(
        *_each(NEGOTIATION, "sep-2663-tasks-methods-non-declaring")
    ),
    "an unknown task is -32602": alpha(*_each(DISPATCH, "sep-2663-tasks-get-invalid-task-id-32602")),
    "removed tasks methods are -32601": alpha(
        *_each(DISPATCH, "sep-2663-tasks-result-removed-method-not-found", "tasks-removed-tasks-list")
    ),
    "a task-augmented call returns a flat CreateTaskResult": alpha(
        *_each(LIFECYCLE, "sep-2663-result-type-task-on-create"),
        *_each(NEGOTIATION, "tasks-per-request-meta-opt-in"),
        *_each(DISPATCH, "tasks-server-directed-creation-no-hint"),
        *_each(WIRE, "tasks-wire-field-renames"),
        *_each(STATE, "tasks-create-result-no-request-state"),
    ),
    "tasks/get reports the task until it ends": alpha(
        *_each(LIFECYCLE, "sep-2663-tasks-get-status-working"),
        *_each(DISPATCH, "sep-2663-durable-create-strong-consistency"),
        *_each(DISPATCH, "tasks-result-type-complete-on-non-task-responses"),
        *_each(WIRE, "tasks-no-early-ttl-expiry"),
        *_each(STATE, "tasks-get-detailed-no-request-state"),
    ),
    "an ended task carries its result or its error": alpha(
        *_each(
            LIFECYCLE,
            "sep-2663-tasks-get-status-completed",
            "sep-2663-tool-error-uses-completed-status",
            "sep-2663-tasks-get-status-failed",
        ),
        *_each(WIRE, "tasks-no-related-task-meta-on-inlined-result"),
    ),
    "a task is made only for a client with the extension": alpha(
        *_each(NEGOTIATION, "sep-2663-server-rejects-undeclared-client"),
        *_each("tasks-required-task-error", "sep-2663-server-returns-missing-capability-when-required"),
    ),
    "input requests are answered with tasks/update": alpha(
        *_each(
            INPUT,
            "sep-2663-tasks-get-status-input-required",
            "tasks-mrtr-tasks-update-resumes",
            "tasks-mrtr-partial-fulfillment",
        )
    ),
    "input asked before a task stays out of it": alpha(
        *_each("tasks-mrtr-composition", "sep-2663-mrtr-synchronous-before-task-creation")
    ),
    "tasks/cancel acks with an empty result": alpha(
        *_each(LIFECYCLE, "sep-2663-cancel-ack-empty-result", "tasks-cancel-terminal-idempotent-ack")
    ),
    "tasks/get is routed by Mcp-Name": alpha(
        *_each(
            "tasks-request-headers",
            "sep-2663-routing-headers-accepted-on-tasks-get",
            "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
        )
    ),
    "task status notifications are well-formed": alpha(
        *_each("tasks-status-notifications", "tasks-status-notifications")
    ),
    "skills served only with the extension declared": alpha(
        *_each(SKILLS, "capability-commits-to-methods", "skills-list-implemented")
    ),
    "the skills capability is an inline settings object beside resources": alpha(
        *_each(
            SKILLS,
            "capability-empty-object",
            "capability-declaration-inline",
            "capability-requires-resources",
        )
    ),
    "skills/list pages": alpha(
        *_each(SKILLS, "skills-list-pagination", "skills-list-entry-atomic", "skills-list-cache-attributes")
    ),
    "skill entries are well-formed": alpha(
        *_each(
            SKILLS,
            "entry-uri-required",
            "entry-frontmatter-required",
            "entry-uri-matches-frontmatter-name",
            "skill-uri-scheme",
            "entry-resources-required",
            "resources-complete",
            "resources-uri-within-skill",
            "resources-digest-format",
            "resources-size-required",
            "limit-resources-per-skill",
            "limit-total-size",
            "metadata-reserved-prefix",
            "name-naming-rules",
            "authority-reg-name",
            "names-should-be-unique",
        )
    ),
    "skills/get answers with the listed entry": alpha(
        *_each(
            SKILLS,
            "skills-get-implemented",
            "skills-get-entry-shape",
            "skills-get-no-cursor",
            "skills-get-unknown-uri-invalid-params",
        )
    ),
    "skills/get carries cache hints": alpha(*_each(SKILLS, "skills-get-cache-attributes")),
    "each SKILL.md has its entry's frontmatter": alpha(
        *_each(SKILLS, "skillmd-required", "skillmd-frontmatter", "entry-frontmatter-identical"),
        *_each(MANIFEST, "final-segment-equals-name"),
    ),
    "SKILL.md is listed as markdown with its skill's name and description": alpha(
        *_each(
            MANIFEST,
            "skillmd-mimetype",
            "skillmd-metadata-name",
            "skillmd-metadata-description",
            "meta-prefix",
        )
    ),
    "skill directories are read with resources/directory/read": alpha(
        *_each(
            DIRECTORY,
            "capability-directory-read-flag",
            "directory-read-method-registered",
            "directory-read-result-resources-shape",
            "directory-read-subdir-mimetype",
            "directory-read-invalid-params",
            "directory-read-pagination",
        )
    ),
}


def alpha_ids(check: str) -> tuple[str, ...]:
    """The `scenario/check` ids of 0.2.0-alpha.12 that the rows of `check` name."""
    return tuple(f"{s.id}/{c}" for s in OFFICIAL.get(check, ()) if ALPHA in s.releases for c in s.checks)


def official(check: str) -> dict[str, Any]:
    """What `details.official` says for the requirement named `check`."""
    scenarios = OFFICIAL.get(check, ())
    if not scenarios:
        return {"scenarios": [], "note": UNTESTED}
    return {"scenarios": [scenario.as_dict() for scenario in scenarios]}


def cited(ids: tuple[str, ...]) -> dict[str, Any]:
    """What `details.official` says for a requirement that names its official `scenario/check` ids itself
    (the 2026-07-28 era's checks, in 0.2.0-alpha.12 only)."""
    return {"scenarios": [scenario.as_dict() for scenario in alpha(*ids)]}
