"""The extension checks' judgments on what a hostile or careless server may send: each shape is a classified
problem (or a warning), never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.model.result import Status
from toolproof.probe.conformance.skills import _entries, _listed_warnings, _name
from toolproof.probe.conformance.tasks import Followed, _created_problems, _end_problems, _poll_problems

CREATED = {
    "resultType": "task",
    "taskId": "t1",
    "status": "working",
    "createdAt": "2026-07-28T10:00:00Z",
    "lastUpdatedAt": "2026-07-28T10:00:00.123+02:00",
    "ttlMs": None,
    "pollIntervalMs": 50,
}
ZERO = "sha256:" + "0" * 64
FRONT = {"name": "pdf-tools", "description": "Works on PDFs"}
SKILL = {
    "uri": "skill://acme/pdf-tools/SKILL.md",
    "frontmatter": FRONT,
    "resources": [{"uri": "skill://acme/pdf-tools/SKILL.md", "digest": ZERO, "size": 10}],
}


def task(created: dict[str, Any], *polls: dict[str, Any]) -> Followed:
    return Followed("job", {}, created, polls=[{"result": poll} for poll in polls])


def test_a_well_formed_task_raises_no_problem() -> None:
    polled = {**CREATED, "resultType": "complete"}
    ended = {**polled, "status": "completed", "result": {"content": [{"type": "text", "text": "done"}]}}
    followed = task(CREATED, polled, ended)
    assert _created_problems(followed) == []
    assert _poll_problems(followed) == []
    assert _end_problems(followed) == []


@pytest.mark.parametrize(
    ("created", "problem"),
    [
        ({**CREATED, "status": {"not": "a string"}}, "status {'not': 'a string'}"),
        ({**CREATED, "createdAt": "yesterday"}, "createdAt 'yesterday' is not an ISO 8601 time"),
        ({**CREATED, "ttlMs": True}, "ttlMs True is neither null nor a positive integer"),
        ({**CREATED, "pollIntervalMs": -5}, "pollIntervalMs -5 is not a positive integer"),
        ({**CREATED, "task": {}}, "CreateTaskResult carries task"),
        ({**CREATED, "requestState": "s"}, "CreateTaskResult carries requestState"),
        ({k: v for k, v in CREATED.items() if k != "taskId"}, "has no taskId"),
    ],
)
def test_each_malformed_create_task_result_is_a_problem(created: dict[str, Any], problem: str) -> None:
    assert any(problem in each for each in _created_problems(task(created)))


def test_polls_with_unhashable_statuses_a_foreign_task_and_a_terminal_status_left_are_problems() -> None:
    followed = task(
        CREATED,
        {**CREATED, "status": ["working"]},
        {**CREATED, "taskId": "t2"},
        {**CREATED, "status": "cancelled"},
        {**CREATED, "status": "working"},
    )
    problems = _poll_problems(followed)
    assert "job: tasks/get #1 has status ['working']" in problems
    assert "job: tasks/get #2 is for task 't2'" in problems
    assert "job: tasks/get #4 is 'working' after 'cancelled'" in problems


def test_a_failed_task_without_a_json_rpc_error_is_a_problem() -> None:
    followed = task(CREATED, {**CREATED, "status": "failed", "error": {"code": "x"}})
    assert _end_problems(followed) == ["job: failed without an error with code and message"]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"uri": 7}, "skills[0] has no uri"),
        ({**SKILL, "frontmatter": ["x"]}, "has no frontmatter object"),
        ({**SKILL, "uri": "skill://a/Bad--Name/SKILL.md", "frontmatter": {**FRONT, "name": "Bad--Name"}},
         "breaks the skill naming rules"),
        ({**SKILL, "resources": "some"}, "neither a list nor 'dynamic'"),
        ({**SKILL, "resources": [*SKILL["resources"], {"uri": "skill://x/f.md", "digest": ZERO, "size": 1}]},
         "outside the skill's directory"),
        ({**SKILL, "resources": [{**SKILL["resources"][0], "size": -1}, 3]}, "is not a byte count"),
        ({**SKILL, "resources": [{**SKILL["resources"][0], "digest": "md5:1"}]}, "is not sha256"),
        ({**SKILL, "frontmatter": {**FRONT, "name": "other"}}, "its frontmatter names 'other'"),
    ],
)  # fmt: skip
def test_each_malformed_skill_entry_is_a_problem(entry: dict[str, Any], problem: str) -> None:
    verdict = _entries([entry])
    assert verdict.status is Status.FAIL
    assert problem in verdict.message


def test_frontmatter_metadata_of_any_shape_is_judged() -> None:
    listed = {**SKILL, "frontmatter": {**FRONT, "metadata": ["not", "a", "map"]}}
    assert _entries([listed]).status is Status.PASS
    reserved = {**SKILL, "frontmatter": {**FRONT, "metadata": {"io.modelcontextprotocol/x": 1}}}
    assert any("reserved" in warning for warning in _entries([reserved]).warnings)


def test_a_well_formed_skill_entry_passes_and_shoulds_only_warn() -> None:
    assert _entries([SKILL]).status is Status.PASS
    elsewhere = {**SKILL, "uri": "https://acme/pdf-tools/SKILL.md", "resources": "dynamic"}
    verdict = _entries([elsewhere, {**elsewhere, "uri": "https://b/pdf-tools/SKILL.md"}])
    assert verdict.status is Status.PASS
    assert any("is not a skill:// URI" in warning for warning in verdict.warnings)
    assert any("2 skills are named 'pdf-tools'" in warning for warning in verdict.warnings)


def test_a_listed_manifest_with_meta_of_any_shape_is_judged() -> None:
    warnings = _listed_warnings(
        SKILL["uri"],
        {"name": "pdf-tools", "description": "d"},
        {"name": "other", "_meta": ["x"]},
        {"_meta": 3},
    )
    assert any("listed with name 'other'" in warning for warning in warnings)


@pytest.mark.parametrize(
    ("uri", "name"),
    [
        ("skill://pdf-processing/SKILL.md", "pdf-processing"),
        ("skill://acme/billing/refunds/SKILL.md", "refunds"),
        ("skill://SKILL.md", None),
        ("not a uri/x/SKILL.md", None),
        ("skill://a/b/README.md", None),
    ],
)
def test_the_skill_name_is_the_directory_its_skill_md_is_in(uri: str, name: str | None) -> None:
    assert _name(uri) == name
