"""`assert_skills:` expectations on the skills extension; the first failure is the verdict.

A skill is named by its frontmatter `name` or by its SKILL.md URI. `files` are paths relative to the skill's
root (`references/FORMS.md`). The digests and sizes were verified by the client while it loaded the skill:
a mismatch never reaches these checks.
"""

from __future__ import annotations

from typing import Any

from toolproof.check.failures import fail, listed
from toolproof.check.structured import shown
from toolproof.core.jsonpath import json_equal
from toolproof.core.skill_entries import skill_name, skill_root
from toolproof.model.result import Failure
from toolproof.model.server_case import SkillsExpect


def _listed(entries: list[dict[str, Any]], skill: str) -> bool:
    return any(skill in (skill_name(entry), entry.get("uri")) for entry in entries)


def check_listed(expect: SkillsExpect, result: dict[str, Any]) -> Failure | None:
    entries = [entry for entry in result.get("skills") or [] if isinstance(entry, dict)]
    names = [skill_name(entry) for entry in entries]
    missing = [skill for skill in expect.skills or [] if not _listed(entries, skill)]
    if missing:
        message = f"{listed(missing)} not listed by skills/list (listed: {listed(names, 'none')})"
        return fail("assert_skills", message, expect.skills, names, missing=missing,
                    check="assert_skills.skills")
    present = [skill for skill in expect.absent or [] if _listed(entries, skill)]
    if present:
        message = f"{listed(present)} listed by skills/list, expected absent"
        return fail("assert_skills", message, expect.absent, names, present=present,
                    check="assert_skills.absent")
    return None


def _entry(result: dict[str, Any]) -> dict[str, Any] | None:
    entry = result.get("skill")
    return entry if isinstance(entry, dict) else None


def check_files(expect: SkillsExpect, result: dict[str, Any]) -> Failure | None:
    entry = _entry(result)
    if expect.files is None or entry is None:
        return None
    root = skill_root(entry) + "/"
    read = result.get("files")
    items = read if isinstance(read, list) else entry.get("resources") or []
    uris = [str(item.get("uri", "")) for item in items if isinstance(item, dict)]
    have = [uri.removeprefix(root) for uri in uris]
    missing = [path for path in expect.files if path not in have and path not in uris]
    if not missing:
        return None
    how = "loaded" if isinstance(read, list) else "listed in its entry"
    message = f"skill {skill_name(entry)!r} has no file {listed(missing)} {how} " \
        f"(its files: {listed(have, 'none')})"
    return fail("assert_skills", message, expect.files, have, missing=missing, check="assert_skills.files")


def check_frontmatter(expect: SkillsExpect, result: dict[str, Any]) -> Failure | None:
    entry = _entry(result)
    if expect.frontmatter is None or entry is None:
        return None
    written = entry.get("frontmatter")
    frontmatter: dict[str, Any] = written if isinstance(written, dict) else {}
    for field, expected in expect.frontmatter.items():
        actual = frontmatter.get(field)
        if field not in frontmatter or not json_equal(actual, expected):
            message = f"skill {skill_name(entry)!r} frontmatter {field}: expected {shown(expected)}, got " + (
                shown(actual) if field in frontmatter else "no such field"
            )
            return fail("assert_skills", message, expected, actual, field=field,
                        check="assert_skills.frontmatter")
    return None


def check_children(expect: SkillsExpect, result: dict[str, Any]) -> Failure | None:
    if expect.children is None:
        return None
    resources = [item for item in result.get("resources") or [] if isinstance(item, dict)]
    names = [str(item.get("name") or str(item.get("uri", "")).rsplit("/", 1)[-1]) for item in resources]
    missing = [name for name in expect.children if name not in names]
    if not missing:
        return None
    message = f"the directory has no child {listed(missing)} (its children: {listed(names, 'none')})"
    return fail("assert_skills", message, expect.children, names, missing=missing,
                check="assert_skills.children")


CHECKS = (check_listed, check_files, check_frontmatter, check_children)


def check_skills(expect: SkillsExpect, result: dict[str, Any]) -> Failure | None:
    """The first failing expectation, in the order of `SkillsExpect`'s fields."""
    for check in CHECKS:
        failure = check(expect, result)
        if failure is not None:
            return failure
    return None
