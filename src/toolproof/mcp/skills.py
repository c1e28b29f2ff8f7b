"""The client side of the skills extension (SEP-2640): `skills/list`, `skills/get`,
`resources/directory/read`, and loading a skill as a host does, every file verified against its entry.

Loading reads `SKILL.md` first, then the other files the entry lists, in order. Each file's byte length must
be the entry's `size` and its SHA-256 the entry's `digest`, and the frontmatter of `SKILL.md` must be the
entry's `frontmatter` field by field; the first file that fails stops the load (its content is not used, and
no further file is read) and is raised as a protocol failure naming the file.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from toolproof.core.skill_entries import skill_name
from toolproof.mcp.errors import RequestFailed, excerpt
from toolproof.model.result import Failure, FailureKind

if TYPE_CHECKING:
    from toolproof.mcp.client import Session

MAX_PAGES = 1000
FRONTMATTER = re.compile(r"\A\ufeff?---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)

Entry = dict[str, Any]


async def _pages(session: Session, method: str, params: dict[str, Any], key: str) -> list[Any]:
    """Every item under `key` of every page of a paginated `method`, following nextCursor."""
    items: list[Any] = []
    for _ in range(MAX_PAGES):
        page = await session.request(method, params)
        found = page.get(key)
        items.extend(found if isinstance(found, list) else [])
        cursor = page.get("nextCursor")
        if not cursor:
            return items
        params = {**params, "cursor": cursor}
    raise _refused(method, f"still paginating after {MAX_PAGES} pages", "pages")


async def list_skills(session: Session, cursor: str | None = None) -> list[Entry]:
    """Every skill entry of `skills/list`, from `cursor` on, through every page."""
    entries = await _pages(session, "skills/list", {"cursor": cursor} if cursor else {}, "skills")
    return [entry for entry in entries if isinstance(entry, dict)]


async def get_skill(session: Session, uri: str) -> dict[str, Any]:
    """`skills/get` for the skill whose SKILL.md is at `uri`: the result as sent."""
    return await session.request("skills/get", {"uri": uri}, during=f"skills/get {uri}")


async def read_directory(session: Session, uri: str) -> list[dict[str, Any]]:
    """The direct children of the directory resource `uri` (`resources/directory/read`, every page)."""
    children = await _pages(session, "resources/directory/read", {"uri": uri}, "resources")
    return [child for child in children if isinstance(child, dict)]


async def find_skill(session: Session, skill: str) -> Entry:
    """The entry of `skill`: a URI is asked for with `skills/get`, a name is looked up in `skills/list`
    (it must name exactly one skill)."""
    if "://" in skill:
        entry = (await get_skill(session, skill)).get("skill")
        if not isinstance(entry, dict):
            raise _refused(f"skills/get {skill}", "the result has no skill object", "skill")
        return entry
    entries = await list_skills(session)
    named = [entry for entry in entries if skill_name(entry) == skill]
    if len(named) == 1:
        return named[0]
    if named:
        uris = ", ".join(str(entry.get("uri")) for entry in named)
        why = f"{len(named)} skills are named {skill!r} ({uris}): give its URI"
        raise _refused("skills/list", why, "skill")
    listed = ", ".join(sorted(skill_name(entry) for entry in entries)) or "none"
    raise _refused("skills/list", f"no skill named {skill!r} is listed (listed: {listed})", "skill")


async def load_skill(session: Session, entry: Entry) -> list[dict[str, Any]]:
    """Read the skill's files, SKILL.md first, each verified against `entry`; what was read of each (uri,
    size, digest, mimeType). Raises `RequestFailed` at the first file that does not match."""
    listed = [item for item in entry.get("resources") or [] if isinstance(item, dict)]
    top = str(entry.get("uri", ""))
    own = [item for item in listed if item.get("uri") == top] or [{"uri": top}]
    read: list[dict[str, Any]] = []
    for item in [*own, *(item for item in listed if item.get("uri") != top)]:
        uri = str(item.get("uri", ""))
        content, mime = await _read_bytes(session, uri)
        digest = "sha256:" + hashlib.sha256(content).hexdigest()
        _verify(item, uri, content, digest, unlisted=not listed)
        if uri == top:
            _verify_frontmatter(entry, uri, content)
        read.append({"uri": uri, "size": len(content), "digest": digest, "mimeType": mime})
    return read


async def _read_bytes(session: Session, uri: str) -> tuple[bytes, str | None]:
    """The bytes of the resource at `uri` (text as UTF-8, a blob decoded) and its mimeType."""
    result = await session.request("resources/read", {"uri": uri}, during=f"resources/read {uri}")
    contents = [item for item in result.get("contents") or [] if isinstance(item, dict)]
    item = next((c for c in contents if c.get("uri") == uri), contents[0] if contents else None)
    if item is None:
        raise _refused(uri, "resources/read returned no contents", "skill_content")
    mime = item.get("mimeType")
    if "text" in item:
        return str(item["text"]).encode("utf-8"), mime
    try:
        return base64.b64decode(str(item.get("blob", "")), validate=True), mime
    except binascii.Error as error:
        raise _refused(uri, f"the blob is not base64 ({error})", "skill_content") from error


def _verify(item: dict[str, Any], uri: str, content: bytes, digest: str, *, unlisted: bool) -> None:
    """The file's size and digest against its entry (a skill without `resources` has nothing to verify)."""
    if unlisted:
        return
    size = item.get("size")
    if isinstance(size, int) and size != len(content):
        why = f"{len(content)} bytes were read where the skill's entry lists {size}"
        raise _refused(uri, why, "skill_size", expected=size, actual=len(content))
    promised = item.get("digest")
    if promised != digest:
        why = f"its SHA-256 is {digest} where the skill's entry lists {promised}"
        raise _refused(uri, why, "skill_digest", expected=promised, actual=digest)


def read_frontmatter(text: str) -> dict[str, Any]:
    """The YAML frontmatter a SKILL.md begins with, as JSON values ({} when it is not a mapping); ValueError
    saying why when there is none or it is not YAML."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    match = FRONTMATTER.match(text)
    if match is None:
        raise ValueError("SKILL.md does not begin with a --- delimited YAML frontmatter")
    try:
        written = YAML(typ="safe", pure=True).load(match[1])
    except YAMLError as error:
        raise ValueError(f"its frontmatter is not YAML ({error})") from error
    found: dict[str, Any] = json.loads(json.dumps(written, default=str)) if isinstance(written, dict) else {}
    return found


def _verify_frontmatter(entry: Entry, uri: str, content: bytes) -> None:
    """The frontmatter of SKILL.md, field by field, against the entry's `frontmatter`."""
    try:
        written = read_frontmatter(content.decode("utf-8", "replace"))
    except ValueError as error:
        raise _refused(uri, str(error), "skill_frontmatter") from error
    given = entry.get("frontmatter")
    listed: dict[str, Any] = given if isinstance(given, dict) else {}
    differ = [key for key in sorted({*written, *listed}, key=str) if written.get(key) != listed.get(key)]
    if differ:
        shown = "; ".join(
            f"{key}: file {_json(written.get(key))}, entry {_json(listed.get(key))}" for key in differ
        )
        raise _refused(uri, f"its frontmatter differs from the skill's entry ({shown})", "skill_frontmatter",
                       expected=listed, actual=written)


def _refused(where: str, why: str, check: str, *, expected: Any = None, actual: Any = None) -> RequestFailed:
    """A skill the client refuses to load (or a listing it cannot read), naming the file or request."""
    message = f"{where}: {why}" + ("; the skill is not loaded" if check.startswith("skill_") else "")
    failure = Failure(
        kind=FailureKind.PROTOCOL, check=check, message=message, expected=expected, actual=actual
    )
    return RequestFailed(failure, "")


def _json(value: Any) -> str:
    return excerpt(json.dumps(value, ensure_ascii=False))
