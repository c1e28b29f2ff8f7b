"""`assert_skills:` through `toolproof run` against a skills server on the official SDK with a hand-written
skills extension, in both protocol eras: the listing, skills/get, loading a skill with every file verified
(a server whose file does not match its digest fails, naming the file), and resources/directory/read; and,
on the same server, expectations on a read's cache hints and on the JSON-RPC error that answers a read."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "examples" / "servers" / "skills_server.py"
SKILLS = f"server: {{command: {sys.executable}, args: [{SERVER}]}}\n"
TAMPERING = ROOT / "tests" / "servers" / "tampered_skills_server.py"
TAMPERED = f"server: {{command: {sys.executable}, args: [{TAMPERING}]}}\n"
PDF = "skill://pdf-processing"

CASES = {
    "listed": (SKILLS, "PASS", "assert_skills: {list: {}, expect: {skills: [pdf-processing, "
               "'skill://acme/billing/refunds/SKILL.md'], absent: [git-workflow]}}"),
    "listed wrong": (SKILLS, "FAIL", "assert_skills: {list: {}, expect: {skills: [git-workflow]}}"),
    "loaded": (SKILLS, "PASS", "assert_skills: {load: pdf-processing, expect: {files: [SKILL.md, "
               "references/FORMS.md, templates/invoice.md], frontmatter: {name: pdf-processing}}}"),
    "loaded by uri": (SKILLS, "PASS", "assert_skills: {load: 'skill://acme/billing/refunds/SKILL.md', "
                      "expect: {frontmatter: {license: Apache-2.0}}}"),
    "loaded unknown": (SKILLS, "FAIL", "assert_skills: {load: git-workflow}"),
    "got": (SKILLS, "PASS", f"assert_skills: {{get: '{PDF}/SKILL.md', expect: {{files: [SKILL.md]}}}}"),
    "got unknown": (SKILLS, "FAIL", "assert_skills: {get: 'skill://nope/SKILL.md'}"),
    "directory": (SKILLS, "PASS", f"assert_skills: {{directory: '{PDF}/templates', "
                  "expect: {children: [invoice.md]}}"),
    "directory of a file": (SKILLS, "FAIL", f"assert_skills: {{directory: '{PDF}/SKILL.md'}}"),
    "tampered": (TAMPERED, "FAIL", "assert_skills: {load: pdf-processing}"),
    "tampered listing": (TAMPERED, "PASS", "assert_skills: {list: {}, expect: {skills: [pdf-processing]}}"),
    # the JSON-RPC error that answers a request, when it is what the case expects
    "unknown resource": (SKILLS, "PASS", "assert_resources: {read: 'skill://nope/SKILL.md', "
                         "expect: {error_code: -32602}}"),
    "unknown resource, another code": (SKILLS, "FAIL", "assert_resources: {read: 'skill://nope/SKILL.md', "
                                       "expect: {error_code: -32022}}"),
}
TRAVEL = f"server: {{command: {sys.executable}, args: [{ROOT / 'examples/servers/travel_server.py'}]}}\n"
NEEDS_ELICITATION = "assert: {tool: book_trip, args: {city: Oslo}, expect: {error_code: -32021, " \
    "error_data: {'$.requiredCapabilities.elicitation': {form: {}}}}}"
# The cache hints of a read: only a 2026-07-28 result carries them.
HINTED = f"assert_resources: {{read: '{PDF}/SKILL.md', expect: {{ttl_ms: 0, cache_scope: private}}}}"


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_skills_in_both_eras(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], protocol: str
) -> None:
    modern = "PASS" if protocol == "2026-07-28" else "FAIL"
    cases = {**CASES, "cache hints": (SKILLS, modern, HINTED)}
    if protocol == "2026-07-28":  # the SDK answers -32021 with the capability when none is offered
        cases["a missing client capability"] = (TRAVEL, "PASS", NEEDS_ELICITATION)
    files = {f"{n:02d}.yaml": f"name: {name}\n{server}{body}\n" for n, (name, (server, _, body)) in
             enumerate(cases.items())}
    outcome = toolproof(str(write_suite(files)), "--protocol", protocol, "-j", "4")
    expected = {name: verdict for name, (_, verdict, _) in cases.items()}
    assert outcome.verdicts() == expected, [
        (r["name"], r["failure"]) for r in outcome.report["results"] if r["status"] != expected[r["name"]]
    ]
    assert {result["protocol"] for result in outcome.report["results"]} == {protocol}

    def failure(name: str) -> dict[str, str]:
        found = outcome.result(name)["failure"]
        assert isinstance(found, dict)
        return found

    tampered = failure("tampered")
    assert (tampered["kind"], tampered["check"]) == ("protocol", "skill_digest")
    assert tampered["message"].startswith(
        f"{PDF}/references/FORMS.md: its SHA-256 is sha256:"
    ), tampered["message"]
    assert tampered["message"].endswith("; the skill is not loaded")
    listed_wrong = failure("listed wrong")["message"]
    assert listed_wrong.startswith('assert_skills: "git-workflow" not listed by skills/list')
    assert failure("loaded unknown")["message"] == (
        "skills/list: no skill named 'git-workflow' is listed (listed: pdf-processing, refunds)"
    )
    assert failure("unknown resource, another code")["message"] == (
        'error_code: expected JSON-RPC error -32022, got -32602: "Unknown resource: skill://nope/SKILL.md"'
    )
    if protocol == "2025-11-25":
        assert failure("cache hints")["message"] == "ttl_ms: expected ttlMs 0, the result has none"
    for name in ("got unknown", "directory of a file"):
        assert (failure(name)["kind"], failure(name)["details"]["code"]) == ("rpc_error", -32602), name
