"""An MCP stdio server on the official SDK (either era) that serves Agent Skills (SEP-2640): the SDK has no
skills support, so a small extension adds `skills/list`, `skills/get` and `resources/directory/read`, and
every file of a skill is an ordinary resource under `skill://<skill-path>/<file-path>`. skills/list and
skills/get carry cache hints (ttlMs, cacheScope); each SKILL.md is listed with its frontmatter's name and
description.

  skill://pdf-processing/SKILL.md            with references/FORMS.md and templates/invoice.md
  skill://acme/billing/refunds/SKILL.md      SKILL.md only (its frontmatter has a license)

`build(tampered=...)` serves the files named with their letters' case swapped (the same size, another
digest) while the listing keeps the honest digests (tests/servers/tampered_skills_server.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams

INVALID_PARAMS = -32602
DIRECTORY = "inode/directory"
CACHE_HINTS = {"ttlMs": 60_000, "cacheScope": "public"}  # how long an answer may be kept, and by whom
SKILLS: dict[str, dict[str, str]] = {
    "pdf-processing": {
        "SKILL.md": (
            "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n"
            "Read references/FORMS.md before filling a form; pick a template from templates/.\n"
        ),
        "references/FORMS.md": "Fill every field; leave none blank.\n",
        "templates/invoice.md": "# Invoice\n\nAmount: {amount}\n",
    },
    "acme/billing/refunds": {
        "SKILL.md": (
            "---\nname: refunds\ndescription: Process customer refund requests per company policy\n"
            "license: Apache-2.0\n---\n\nRefund within 30 days.\n"
        ),
    },
}
FRONTMATTER = {
    "pdf-processing": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
    "acme/billing/refunds": {
        "name": "refunds",
        "description": "Process customer refund requests per company policy",
        "license": "Apache-2.0",
    },
}


class UriParams(RequestParams):
    uri: str


class DirectoryParams(PaginatedRequestParams):
    uri: str


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _entry(path: str) -> dict[str, Any]:
    files = SKILLS[path]
    resources = [
        {"uri": f"skill://{path}/{name}", "digest": _digest(text), "size": len(text.encode())}
        for name, text in files.items()
    ]
    return {"uri": f"skill://{path}/SKILL.md", "frontmatter": FRONTMATTER[path], "resources": resources}


def _children(uri: str) -> list[dict[str, Any]]:
    """The direct children of a skill directory (files, and subdirectories as directory resources)."""
    for path, files in SKILLS.items():
        root = f"skill://{path}"
        if uri != root and not uri.startswith(root + "/"):
            continue
        prefix = uri[len(root) + 1 :]
        prefix = prefix + "/" if prefix else ""
        names = sorted({name[len(prefix) :].split("/")[0] for name in files if name.startswith(prefix)})
        if not names or prefix[:-1] in files:
            break
        children = []
        for name in names:
            below = f"{prefix}{name}"
            mime = "text/markdown" if below in files else DIRECTORY
            children.append({"uri": f"{root}/{below}", "name": name, "mimeType": mime})
        return children
    raise MCPError(INVALID_PARAMS, f"not a directory resource: {uri}")


class Skills(Extension):
    """The skills extension: its methods, and every skill file as a resource."""

    identifier = "io.modelcontextprotocol/skills"

    def __init__(self, tampered: Sequence[str] = ()) -> None:
        self.tampered = set(tampered)

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def resources(self) -> Sequence[ResourceBinding]:
        bindings = []
        for path, files in SKILLS.items():
            for name, text in files.items():
                uri = f"skill://{path}/{name}"
                served = text.swapcase() if uri in self.tampered else text
                mime = "text/markdown" if name.endswith(".md") else "text/plain"
                front = FRONTMATTER[path] if name == "SKILL.md" else {"name": name}
                named = {"name": front["name"], "description": front.get("description")}
                resource = TextResource(uri=uri, **named, mime_type=mime, text=served)
                bindings.append(ResourceBinding(resource))
        return bindings

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("skills/list", PaginatedRequestParams, self.list_skills),
            MethodBinding("skills/get", UriParams, self.get_skill),
            MethodBinding("resources/directory/read", DirectoryParams, self.read_directory),
        )

    async def list_skills(self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> Any:
        return {"skills": [_entry(path) for path in SKILLS], **CACHE_HINTS}

    async def get_skill(self, ctx: ServerRequestContext[Any, Any], params: UriParams) -> Any:
        for path in SKILLS:
            if params.uri == f"skill://{path}/SKILL.md":
                return {"skill": _entry(path), **CACHE_HINTS}
        raise MCPError(INVALID_PARAMS, f"no skill at {params.uri}")

    async def read_directory(self, ctx: ServerRequestContext[Any, Any], params: DirectoryParams) -> Any:
        return {"resources": _children(params.uri)}


def build(tampered: Sequence[str] = ()) -> MCPServer[Any]:
    return MCPServer("skills-server", version="1.0.0", extensions=[Skills(tampered)])


if __name__ == "__main__":
    build().run()
