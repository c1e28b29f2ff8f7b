"""`assert_skills:` expectations on a listing, a skill's entry and loaded files, and a directory."""

from __future__ import annotations

from typing import Any

import pytest

from toolproof.check.skills import check_skills
from toolproof.model.result import FailureKind
from toolproof.model.server_case import SkillsExpect

PDF = {
    "uri": "skill://pdf-processing/SKILL.md",
    "frontmatter": {"name": "pdf-processing", "description": "PDFs", "metadata": {"version": "2"}},
    "resources": [
        {"uri": "skill://pdf-processing/SKILL.md", "digest": "sha256:aa"},
        {"uri": "skill://pdf-processing/references/FORMS.md", "digest": "sha256:bb"},
    ],
}
REFUNDS = {"uri": "skill://acme/billing/refunds/SKILL.md", "frontmatter": {"name": "refunds"}}
UNNAMED = {"uri": "skill://tools/lint/SKILL.md", "frontmatter": {}}
LISTING = {"skills": [PDF, REFUNDS, UNNAMED]}
LOADED = {"skill": PDF, "files": [{"uri": "skill://pdf-processing/SKILL.md", "size": 9, "digest": "sha:a"}]}
GOT = {"skill": PDF, "ttlMs": 0}
DIRECTORY = {
    "resources": [
        {"uri": "skill://pdf-processing/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
        {"uri": "skill://pdf-processing/templates", "mimeType": "inode/directory"},
    ]
}

PASSING: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({}, LISTING),
    ({"skills": ["pdf-processing", "refunds", "lint"]}, LISTING),  # lint: named by its path's last segment
    ({"skills": ["skill://acme/billing/refunds/SKILL.md"], "absent": ["git-workflow"]}, LISTING),
    ({"files": ["SKILL.md", "references/FORMS.md"]}, GOT),  # skills/get: the files its entry lists
    ({"files": ["skill://pdf-processing/SKILL.md"]}, LOADED),
    ({"frontmatter": {"name": "pdf-processing", "metadata": {"version": "2"}}}, GOT),
    ({"children": ["SKILL.md", "templates"]}, DIRECTORY),
]


@pytest.mark.parametrize(("expect", "result"), PASSING)
def test_expectations_that_hold(expect: dict[str, Any], result: dict[str, Any]) -> None:
    assert check_skills(SkillsExpect.model_validate(expect), result) is None


FAILING: list[tuple[dict[str, Any], dict[str, Any], str, str]] = [
    ({"skills": ["git-workflow"]}, LISTING, "assert_skills.skills",
     "assert_skills: \"git-workflow\" not listed by skills/list (listed: \"pdf-processing\", \"refunds\", "
     "\"lint\")"),
    ({"skills": ["pdf-processing"]}, {"skills": []}, "assert_skills.skills",
     "assert_skills: \"pdf-processing\" not listed by skills/list (listed: none)"),
    ({"absent": ["refunds"]}, LISTING, "assert_skills.absent",
     "assert_skills: \"refunds\" listed by skills/list, expected absent"),
    ({"files": ["references/FORMS.md"]}, LOADED, "assert_skills.files",
     "assert_skills: skill 'pdf-processing' has no file \"references/FORMS.md\" loaded (its files: "
     "\"SKILL.md\")"),
    ({"files": ["scripts/extract.py"]}, GOT, "assert_skills.files",
     "assert_skills: skill 'pdf-processing' has no file \"scripts/extract.py\" listed in its entry "
     "(its files: \"SKILL.md\", \"references/FORMS.md\")"),
    ({"frontmatter": {"description": "Forms"}}, GOT, "assert_skills.frontmatter",
     "assert_skills: skill 'pdf-processing' frontmatter description: expected \"Forms\", got \"PDFs\""),
    ({"frontmatter": {"license": "MIT"}}, GOT, "assert_skills.frontmatter",
     "assert_skills: skill 'pdf-processing' frontmatter license: expected \"MIT\", got no such field"),
    ({"children": ["scripts"]}, DIRECTORY, "assert_skills.children",
     "assert_skills: the directory has no child \"scripts\" (its children: \"SKILL.md\", \"templates\")"),
]


@pytest.mark.parametrize(("expect", "result", "check", "message"), FAILING)
def test_expectations_that_fail_say_what_was_there(
    expect: dict[str, Any], result: dict[str, Any], check: str, message: str
) -> None:
    failure = check_skills(SkillsExpect.model_validate(expect), result)
    assert failure is not None
    assert failure.kind is FailureKind.EXPECTATION
    assert (failure.check, failure.message) == (check, message)
