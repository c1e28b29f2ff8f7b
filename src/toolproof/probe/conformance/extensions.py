"""The 2026-07-28 extensions a server may declare under `capabilities.extensions` of `server/discover`: tasks
(SEP-2663) and skills (SEP-2640). What a server serves it must declare; what it declares it must serve as the
extension says. Only reads are made: `tasks/*` for a task that does not exist, `skills/list` and the skill
files it names."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from typing import Any

import mcp_types as types

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    passed,
    said,
    skipped,
)
from toolproof.probe.conformance.stateless import cited

TASKS = "io.modelcontextprotocol/tasks"
SKILLS = "io.modelcontextprotocol/skills"
TASKS_SECTION = "seps/2663-tasks-extension"
SKILLS_SECTION = "seps/2640-skills-extension#specification"
NO_SUCH_TASK = "toolproof-no-such-task"
TASK_METHODS: dict[str, dict[str, Any]] = {
    "tasks/get": {"taskId": NO_SUCH_TASK},
    "tasks/update": {"taskId": NO_SUCH_TASK, "inputResponses": {}},
    "tasks/cancel": {"taskId": NO_SUCH_TASK},
}
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
MAX_SKILLS = 5
MAX_FILES = 50
NEGOTIATION = "tasks-capability-negotiation/"
ENUMERATION = "sep-2640-skills-enumeration/sep-2640-"


def _declared(probe: ProbedServer, extension: str) -> bool:
    extensions = probe.capabilities.get("extensions")
    return isinstance(extensions, dict) and extension in extensions


def _with_extension(extension: str) -> dict[str, Any]:
    """The `_meta` of a request from a client that declares `extension` (and nothing else)."""
    return {types.CLIENT_CAPABILITIES_META_KEY: {"extensions": {extension: {}}}}


async def tasks(probe: ProbedServer) -> list[RequirementResult]:
    """Tasks are served only when the extension is declared (not in the old `capabilities.tasks` slot), and
    refused with -32021 to a client that did not declare it."""
    check = "tasks served only with the extension declared"
    declared = _declared(probe, TASKS)
    params = {**TASK_METHODS["tasks/get"], "_meta": _with_extension(TASKS)}
    answer = await probe.link.request("tasks/get", params)
    served = error_code(answer) != types.METHOD_NOT_FOUND
    if "tasks" in probe.capabilities:
        verdict = failed(check, TASKS_SECTION, "capabilities.tasks is declared: tasks live under extensions")
    elif served and not declared:
        verdict = failed(check, TASKS_SECTION, f"tasks/get got {said(answer)}, yet {TASKS} is not declared")
    elif declared and not served:
        verdict = failed(check, TASKS_SECTION, f"{TASKS} is declared, yet tasks/get got {said(answer)}")
    elif not declared:
        verdict = skipped(check, TASKS_SECTION, "the server neither declares nor serves tasks")
    else:
        verdict = passed(check, TASKS_SECTION)
    verdicts = cited([verdict], f"{NEGOTIATION}tasks-extension-advertised")
    check = "tasks methods need the client's extension (-32021)"
    gated = f"{NEGOTIATION}sep-2663-tasks-methods-non-declaring"
    if not declared:
        return verdicts + cited([skipped(check, TASKS_SECTION, f"{TASKS} is not declared")], gated)
    problems = []
    for method, asked in TASK_METHODS.items():
        answer = await probe.link.request(method, asked)
        if error_code(answer) != types.MISSING_REQUIRED_CLIENT_CAPABILITY:
            problems.append(f"{method}: {said(answer)}")
    verdict = failed(check, TASKS_SECTION, "; ".join(problems)) if problems else passed(check, TASKS_SECTION)
    return verdicts + cited([verdict], gated)


async def skills(probe: ProbedServer) -> list[RequirementResult]:
    """Skills are served only when the extension is declared, and every file a skill lists has the digest
    and size its entry gives."""
    check = "skills served only with the extension declared"
    declared = _declared(probe, SKILLS)
    answer = await probe.link.request("skills/list", {"_meta": _with_extension(SKILLS)})
    result = answer.get("result")
    entries = result.get("skills") if isinstance(result, dict) else None
    served = error_code(answer) != types.METHOD_NOT_FOUND
    if served and not declared:
        verdict = failed(
            check, SKILLS_SECTION, f"skills/list got {said(answer)}, yet {SKILLS} is not declared"
        )
    elif declared and not isinstance(entries, list):
        verdict = failed(check, SKILLS_SECTION, f"{SKILLS} is declared, yet skills/list got {said(answer)}")
    elif not declared:
        verdict = skipped(check, SKILLS_SECTION, "the server neither declares nor serves skills")
    else:
        verdict = passed(check, SKILLS_SECTION)
    official = (f"{ENUMERATION}capability-commits-to-methods", f"{ENUMERATION}skills-list-implemented")
    verdicts = cited([verdict], *official)
    check = "skill files match their digests and sizes"  # the official suite checks only their form
    if not declared or not isinstance(entries, list):
        return [*verdicts, skipped(check, SKILLS_SECTION, f"{SKILLS} is not served")]
    problems: list[str] = []
    files = 0
    for entry in [e for e in entries if isinstance(e, dict)][:MAX_SKILLS]:
        for item in [i for i in entry.get("resources") or [] if isinstance(i, dict)][:MAX_FILES]:
            files += 1
            problems += await _file_problems(probe, item)
    if problems:
        verdict = failed(check, SKILLS_SECTION, "; ".join(problems[:5]))
    else:
        verdict = passed(check, SKILLS_SECTION, f"{files} files of {min(len(entries), MAX_SKILLS)} skills")
    return [*verdicts, verdict]


async def _file_problems(probe: ProbedServer, item: dict[str, Any]) -> list[str]:
    """What is wrong with one file a skill lists: its digest's form, or its bytes against digest and size."""
    uri, digest, size = str(item.get("uri")), item.get("digest"), item.get("size")
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        return [f"{uri}: digest {digest!r} is not sha256:<64 hex digits>"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return [f"{uri}: size {size!r} is not a byte count"]
    answer = await probe.link.request("resources/read", {"uri": uri})
    result = answer.get("result")
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents or not isinstance(contents[0], dict):
        return [f"{uri}: resources/read got {said(answer)}"]
    content = contents[0]
    if "text" in content:
        data = str(content["text"]).encode("utf-8")
    else:
        try:
            data = base64.b64decode(str(content.get("blob", "")), validate=True)
        except binascii.Error:
            return [f"{uri}: its blob is not base64"]
    problems = []
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != digest:
        problems.append(f"{uri}: its SHA-256 is {actual}, the skill lists {digest}")
    if len(data) != size:
        problems.append(f"{uri}: {len(data)} bytes, the skill lists {size}")
    return problems
