"""The skills extension (SEP-2640), when the server declares it: its capability, `skills/list` (every page),
each entry against the extension's rules, `skills/get`, each listed SKILL.md against its entry, every file
against its digest and size, and `resources/directory/read` when `directoryRead` is declared. Only reads are
made. What the extension says SHOULD is a warning, what it says MUST a failure."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Any

import mcp_types as types

from toolproof.core.skill_entries import SKILL_FILE, skill_root
from toolproof.mcp.skills import read_frontmatter
from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    error_code,
    failed,
    passed,
    said,
    skipped,
)
from toolproof.probe.conformance.extensions import declared, named, served_only_if_declared, with_extension
from toolproof.probe.conformance.wire import Message

SKILLS = "io.modelcontextprotocol/skills"
SECTION = "seps/2640-skills-extension#specification"
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
NAME = re.compile(r"(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?")
REG_NAME = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
META_PREFIX = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)+/", re.IGNORECASE)
ENVELOPE_KEYS = ("config", "specVersion", "stability", "id")
RESERVED = "io.modelcontextprotocol/"
DYNAMIC = "dynamic"
DIRECTORY = "inode/directory"
MAX_PAGES = 50
MAX_SKILLS = 5
MAX_FILES = 50
MAX_ENTRIES = 512
MAX_BYTES = 16 * 1024 * 1024
UNKNOWN_SKILL = "skill://toolproof-no-such-skill/SKILL.md"
CAPABILITY = "the skills capability is an inline settings object beside resources"
PAGED = "skills/list pages"
ENTRIES = "skill entries are well-formed"
GOT = "skills/get answers with the listed entry"
GET_HINTS = "skills/get carries cache hints"
MANIFESTS = "each SKILL.md has its entry's frontmatter"
LISTED = "SKILL.md is listed as markdown with its skill's name and description"
FILES = "skill files match their digests and sizes"  # the official suite checks only their form
DIRECTORY_CHECK = "skill directories are read with resources/directory/read"
CHECKS = (CAPABILITY, PAGED, ENTRIES, GOT, GET_HINTS, MANIFESTS, LISTED, FILES, DIRECTORY_CHECK)


@dataclass
class Listing:
    """Every page of skills/list: the entries, the first page's result, and what went wrong paging."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    first: dict[str, Any] = field(default_factory=dict)
    answer: Message = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    pages: dict[str, list[int]] = field(default_factory=dict)  # skill uri -> the pages it is on


def _result(check: str, problems: list[str], warnings: list[str], note: str = "") -> RequirementResult:
    if problems:
        return failed(check, SECTION, "; ".join(problems[:3]))
    return replace(passed(check, SECTION, note), warnings=tuple(warnings[:3]))


def _name(uri: str) -> str | None:
    """The skill name a `<scheme>://<skill-path>/SKILL.md` URI ends with (its last directory)."""
    parts = [part for part in uri.partition("://")[2].split("/") if part]
    return parts[-2] if "://" in uri and len(parts) >= 2 and parts[-1] == SKILL_FILE else None


async def _listing(probe: ProbedServer) -> Listing:
    found = Listing()
    cursor: str | None = None
    seen: set[str] = set()
    for page in range(MAX_PAGES):
        params: dict[str, Any] = {"_meta": with_extension(SKILLS)}
        if cursor:
            params["cursor"] = cursor
        answer = await probe.link.request("skills/list", params)
        result = answer.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("skills"), list):
            if page == 0:
                found.answer = answer
            else:
                found.problems.append(f"page {page + 1} got {said(answer)}")
            return found
        if page == 0:
            found.answer, found.first = answer, result
        for entry in result["skills"]:
            if isinstance(entry, dict):
                found.entries.append(entry)
                found.pages.setdefault(str(entry.get("uri")), []).append(page + 1)
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return found
        if cursor in seen:
            found.problems.append(f"the cursor {cursor!r} came back twice")
            return found
        seen.add(cursor)
    found.problems.append(f"still paginating after {MAX_PAGES} pages")
    return found


async def skills(probe: ProbedServer) -> list[RequirementResult]:
    """Declared ⇔ served, then what the extension asks of what is served."""
    return named(await _skills(probe))


async def _skills(probe: ProbedServer) -> list[RequirementResult]:
    check = "skills served only with the extension declared"
    is_declared = declared(probe, SKILLS)
    listing = await _listing(probe)
    # declared: a list of skills is served; not declared: skills/list is not even a known method
    served = bool(listing.first) if is_declared else error_code(listing.answer) != types.METHOD_NOT_FOUND
    verdict = served_only_if_declared(
        check, SECTION, SKILLS, is_declared, served, "skills/list", listing.answer
    )
    verdicts = [verdict]
    if not is_declared or not listing.first:
        reason = f"{SKILLS} is not declared" if not is_declared else "skills/list is not served"
        return verdicts + [skipped(name, SECTION, reason) for name in CHECKS]
    entries = listing.entries[:MAX_SKILLS]
    return [
        *verdicts,
        _capability(probe),
        _paged(listing),
        _entries(listing.entries),
        *await _get(probe, listing),
        *await _manifests(probe, entries),
        await _files(probe, entries),
        await _directory(probe, entries),
    ]


def _capability(probe: ProbedServer) -> RequirementResult:
    """The extension's settings are an object placed inline (no envelope), beside the resources capability."""
    check = CAPABILITY
    settings = (probe.capabilities.get("extensions") or {}).get(SKILLS)
    problems = []
    if not isinstance(settings, dict):
        problems.append(f"capabilities.extensions[{SKILLS!r}] is {settings!r}, not a settings object")
    elif envelope := [key for key in ENVELOPE_KEYS if key in settings]:
        problems.append(f"its settings are wrapped in an envelope ({', '.join(envelope)})")
    if not isinstance(probe.capabilities.get("resources"), dict):
        problems.append("the resources capability is not declared (skill files are read with resources/read)")
    return _result(check, problems, [])


def _paged(listing: Listing) -> RequirementResult:
    """skills/list pages end, keep each entry on one page, and carry cache hints."""
    check = PAGED
    problems = list(listing.problems)
    split = [f"{uri} is on pages {pages}" for uri, pages in listing.pages.items() if len(set(pages)) > 1]
    problems += split
    missing = [key for key in ("ttlMs", "cacheScope") if key not in listing.first]
    if missing:
        problems.append(f"skills/list carries no {' or '.join(missing)}")
    return _result(check, problems, [], f"{len(listing.entries)} skills")


def _entries(entries: list[dict[str, Any]]) -> RequirementResult:
    """Each entry: uri, frontmatter with name and description, the name its URI ends with (by the naming
    rules), and resources: "dynamic" or every file once (SKILL.md included) within the skill, each with a
    digest and a size; what SHOULD hold (scheme, authority, unique names, limits, reserved keys) warns."""
    check = ENTRIES
    problems: list[str] = []
    warnings: list[str] = []
    names: dict[str, list[str]] = {}
    for number, entry in enumerate(entries):
        uri = entry.get("uri")
        label = uri if isinstance(uri, str) else f"skills[{number}]"
        if not isinstance(uri, str) or not uri:
            problems.append(f"{label} has no uri")
            continue
        problems += _frontmatter_problems(label, entry.get("frontmatter"))
        name = _name(uri)
        given = entry.get("frontmatter")
        front: dict[str, Any] = given if isinstance(given, dict) else {}
        if name is None:
            problems.append(f"{uri} does not end in /{SKILL_FILE}")
        else:
            names.setdefault(name, []).append(uri)
            if isinstance(front.get("name"), str) and front["name"] != name:
                problems.append(f"{uri} ends in {name!r}, its frontmatter names {front['name']!r}")
            if not NAME.fullmatch(name):
                problems.append(f"{uri}: {name!r} breaks the skill naming rules")
        if not uri.startswith("skill://"):
            warnings.append(f"{uri} is not a skill:// URI")
        authority = next((part for part in uri.partition("://")[2].split("/") if part), "")
        if authority and not REG_NAME.fullmatch(authority):
            warnings.append(f"{uri}: its authority {authority!r} is not an RFC 3986 reg-name")
        metadata = front.get("metadata")
        reserved = (
            [k for k in metadata or {} if str(k).startswith(RESERVED)] if isinstance(metadata, dict) else []
        )
        if reserved:
            warnings.append(f"{uri}: frontmatter.metadata uses the reserved {', '.join(reserved)}")
        more, cautions = _resources_problems(uri, entry.get("resources"))
        problems += more
        warnings += cautions
    warnings += [f"{len(uris)} skills are named {name!r}" for name, uris in names.items() if len(uris) > 1]
    return _result(check, problems, warnings, f"{len(entries)} skills")


def _frontmatter_problems(label: str, frontmatter: Any) -> list[str]:
    if not isinstance(frontmatter, dict):
        return [f"{label} has no frontmatter object"]
    return [
        f"{label}: frontmatter.{key} is missing or empty"
        for key in ("name", "description")
        if not isinstance(frontmatter.get(key), str) or not frontmatter[key]
    ]


def _resources_problems(uri: str, resources: Any) -> tuple[list[str], list[str]]:
    if resources == DYNAMIC:
        return [], []
    if not isinstance(resources, list):
        return [f"{uri}: resources is {resources!r}, neither a list nor {DYNAMIC!r}"], []
    problems = []
    items = [item for item in resources if isinstance(item, dict)]
    uris = [str(item.get("uri")) for item in items]
    if uri not in uris:
        problems.append(f"{uri}: resources do not list the skill's own {SKILL_FILE}")
    if twice := sorted({each for each in uris if uris.count(each) > 1}):
        problems.append(f"{uri}: resources list {', '.join(twice)} more than once")
    root = skill_root({"uri": uri})
    for item in items:
        where = str(item.get("uri"))
        if where != uri and not where.startswith(root + "/"):
            problems.append(f"{uri}: {where} is outside the skill's directory")
        if not isinstance(item.get("digest"), str) or not DIGEST.fullmatch(item["digest"]):
            problems.append(f"{where}: digest {item.get('digest')!r} is not sha256:<64 lowercase hex digits>")
        size = item.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            problems.append(f"{where}: size {size!r} is not a byte count")
    warnings = []
    if len(items) > MAX_ENTRIES:
        warnings.append(f"{uri} lists {len(items)} files (more than {MAX_ENTRIES})")
    total = sum(item["size"] for item in items if isinstance(item.get("size"), int))
    if total > MAX_BYTES:
        warnings.append(f"{uri} holds {total} bytes (more than 16 MiB)")
    return problems, warnings


async def _get(probe: ProbedServer, listing: Listing) -> list[RequirementResult]:
    """skills/get answers a listed skill with its entry (no cursor, cache hints) and an unknown one -32602."""
    check = GOT
    hints_check = GET_HINTS
    uri = next((e["uri"] for e in listing.entries if isinstance(e.get("uri"), str)), None)
    if uri is None:
        reason = "skills/list lists no skill"
        return [
            skipped(check, SECTION, reason),
            skipped(hints_check, SECTION, reason),
        ]
    answer = await probe.link.request("skills/get", {"uri": uri, "_meta": with_extension(SKILLS)})
    result = answer.get("result")
    problems = []
    hint_problems = []
    if not isinstance(result, dict):
        problems.append(f"skills/get {uri} got {said(answer)}")
    else:
        entry = result.get("skill")
        if not isinstance(entry, dict) or entry.get("uri") != uri:
            problems.append(f"skills/get {uri} did not answer with its entry")
        else:
            if not isinstance(entry.get("frontmatter"), dict):
                problems.append(f"skills/get {uri}: its entry has no frontmatter object")
            if entry.get("resources") != DYNAMIC and not isinstance(entry.get("resources"), list):
                problems.append(f"skills/get {uri}: its entry's resources are {entry.get('resources')!r}")
        if "nextCursor" in result:
            problems.append(f"skills/get {uri} carries a nextCursor")
        hint_problems = [
            f"skills/get carries no {key}" for key in ("ttlMs", "cacheScope") if key not in result
        ]
    unknown = await probe.link.request("skills/get", {"uri": UNKNOWN_SKILL, "_meta": with_extension(SKILLS)})
    if error_code(unknown) != types.INVALID_PARAMS:
        problems.append(f"skills/get {UNKNOWN_SKILL} got {said(unknown)}, not -32602")
    return [
        _result(check, problems, [], uri),
        _result(hints_check, hint_problems, []),
    ]


async def _read(probe: ProbedServer, uri: str) -> tuple[bytes | None, dict[str, Any], str]:
    """The bytes of the resource at `uri`, its contents item, or why there are none."""
    answer = await probe.link.request("resources/read", {"uri": uri})
    result = answer.get("result")
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents or not isinstance(contents[0], dict):
        return None, {}, f"{uri}: resources/read got {said(answer)}"
    content = next((c for c in contents if isinstance(c, dict) and c.get("uri") == uri), contents[0])
    if "text" in content:
        return str(content["text"]).encode("utf-8"), content, ""
    try:
        return base64.b64decode(str(content.get("blob", "")), validate=True), content, ""
    except binascii.Error:
        return None, content, f"{uri}: its blob is not base64"


async def _manifests(probe: ProbedServer, entries: list[dict[str, Any]]) -> list[RequirementResult]:
    """Each listed SKILL.md is readable, begins with frontmatter naming the skill and describing it, the
    same as its entry's; as a listed resource it SHOULD be text/markdown with that name and description."""
    check = MANIFESTS
    listed_check = LISTED
    resources = {str(r.get("uri")): r for r in probe.listed.get("resources") or []}
    problems: list[str] = []
    warnings: list[str] = []
    read = []
    for entry in entries:
        uri = entry.get("uri")
        if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE):
            continue
        data, content, why = await _read(probe, uri)
        if data is None:
            problems.append(why)
            continue
        read.append(uri)
        try:
            written = read_frontmatter(data.decode("utf-8", "replace"))
        except ValueError as error:
            problems.append(f"{uri}: {error}")
            continue
        problems += _frontmatter_problems(uri, written)
        given = entry.get("frontmatter")
        if isinstance(given, dict) and written != given:
            differ = sorted(key for key in {*written, *given} if written.get(key) != given.get(key))
            problems.append(f"{uri}: its frontmatter differs from its entry's in {', '.join(differ)}")
        if _name(uri) is not None and written.get("name") != _name(uri):
            problems.append(f"{uri} ends in {_name(uri)!r}, its frontmatter names {written.get('name')!r}")
        warnings += _listed_warnings(uri, written, resources.get(uri), content)
    verdict = _result(check, problems, [], ", ".join(read))
    if not read:
        verdict = skipped(check, SECTION, "no listed skill has a SKILL.md URI")
    listed = _result(listed_check, [], warnings, ", ".join(read))
    if not read:
        listed = skipped(listed_check, SECTION, "no SKILL.md was read")
    return [verdict, listed]


def _listed_warnings(
    uri: str, written: dict[str, Any], resource: dict[str, Any] | None, content: dict[str, Any]
) -> list[str]:
    warnings = []
    mime = content.get("mimeType") or (resource or {}).get("mimeType")
    if mime != "text/markdown":
        warnings.append(f"{uri} has mimeType {mime!r}, not text/markdown")
    if resource is None:
        warnings.append(f"{uri} is not in resources/list")
    else:
        for key in ("name", "description"):
            if resource.get(key) != written.get(key):
                said_here, said_there = resource.get(key), written.get(key)
                warnings.append(
                    f"{uri} is listed with {key} {said_here!r}, its frontmatter says {said_there!r}"
                )
    metas = [content.get("_meta"), (resource or {}).get("_meta")]
    meta = {key: value for each in metas if isinstance(each, dict) for key, value in each.items()}
    if unprefixed := [key for key in meta if not META_PREFIX.match(key)]:
        warnings.append(f"{uri}: _meta keys without a reverse-domain prefix: {', '.join(unprefixed)}")
    return warnings


async def _files(probe: ProbedServer, entries: list[dict[str, Any]]) -> RequirementResult:
    """Every file a skill lists has the digest and size its entry gives (the official suite checks only
    their form)."""
    check = FILES
    problems: list[str] = []
    files = 0
    for entry in entries:
        for item in [i for i in entry.get("resources") or [] if isinstance(i, dict)][:MAX_FILES]:
            digest, size = item.get("digest"), item.get("size")
            if not isinstance(digest, str) or not isinstance(size, int):
                continue  # its form is the entries check's
            files += 1
            uri = str(item.get("uri"))
            data, _, why = await _read(probe, uri)
            if data is None:
                problems.append(why)
                continue
            actual = "sha256:" + hashlib.sha256(data).hexdigest()
            if actual != digest:
                problems.append(f"{uri}: its SHA-256 is {actual}, the skill lists {digest}")
            if len(data) != size:
                problems.append(f"{uri}: {len(data)} bytes, the skill lists {size}")
    if problems:
        return failed(check, SECTION, "; ".join(problems[:5]))
    if not files:
        return skipped(check, SECTION, "no listed skill lists its files")
    return passed(check, SECTION, f"{files} files of {len(entries)} skills")


async def _directory(probe: ProbedServer, entries: list[dict[str, Any]]) -> RequirementResult:
    """With directoryRead declared: a skill's directory is read (every page) as its direct children, each
    subdirectory of a listed file as inode/directory, and a file's URI is refused with -32602."""
    check = DIRECTORY_CHECK
    settings = (probe.capabilities.get("extensions") or {}).get(SKILLS)
    if not isinstance(settings, dict) or settings.get("directoryRead") is not True:
        return skipped(check, SECTION, "directoryRead is not declared")
    entry = next((e for e in entries if _name(str(e.get("uri"))) is not None), None)
    if entry is None:
        return skipped(check, SECTION, "no listed skill has a SKILL.md URI")
    root, top = skill_root(entry), str(entry["uri"])
    children: list[dict[str, Any]] = []
    problems: list[str] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"uri": root, **({"cursor": cursor} if cursor else {})}
        answer = await probe.link.request("resources/directory/read", params)
        result = answer.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("resources"), list):
            problems.append(f"resources/directory/read {root} got {said(answer)}")
            break
        children += [c for c in result["resources"] if isinstance(c, dict)]
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            break
    if any(not isinstance(child.get("uri"), str) for child in children):
        problems.append(f"a child of {root} has no uri")
    files = [str(i.get("uri")) for i in entry.get("resources") or [] if isinstance(i, dict)]
    below = {f"{root}/{uri[len(root) + 1 :].split('/')[0]}" for uri in files if uri.startswith(root + "/")}
    for child in children:
        uri = child.get("uri")
        if isinstance(uri, str) and uri in below - set(files) and child.get("mimeType") != DIRECTORY:
            problems.append(f"{uri} is a directory listed with mimeType {child.get('mimeType')!r}")
    answer = await probe.link.request("resources/directory/read", {"uri": top})
    if error_code(answer) != types.INVALID_PARAMS:
        problems.append(f"resources/directory/read {top} (a file) got {said(answer)}, not -32602")
    return _result(check, problems, [], f"{root}: {len(children)} children")
