"""What to generate for a listed server: one draft case per tool, resource, resource template and prompt.

Arguments come from the input schema (`probe.arguments`); with a fixture, path-like arguments point into its
per-case copy (`{{fixture}}`, or the first file in it). A tool annotated as writing (`destructiveHint: true`
or `readOnlyHint: false`, as mcp-assert reads them) is drafted skipped unless writes are included.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolproof.author.listing import Listing
from toolproof.model.server_case import (
    AssertBlock,
    Block,
    Case,
    PromptGet,
    PromptsBlock,
    ResourcesBlock,
    SourceRef,
)
from toolproof.model.server_config import ServerConfig
from toolproof.probe.arguments import schema_value, tool_arguments
from toolproof.sources.options import ServerOptions

MAX_RESOURCES = 25
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_TEMPLATE_VARIABLE = re.compile(r"\{([^{}]*)\}")
_PATH_NAMES = ("path", "file", "dir", "directory", "root", "folder")
_DIRECTORY_WORDS = ("director", "folder", "tree", "search", "list")


@dataclass(frozen=True)
class Draft:
    """One case to write: its file name, the case, and why it is skipped (not called), if it is."""

    file: str
    case: Case
    skipped: str = ""
    note: str = ""


def is_write(tool: Mapping[str, Any]) -> bool:
    annotations = tool.get("annotations") or {}
    return annotations.get("destructiveHint") is True or annotations.get("readOnlyHint") is False


def file_name(prefix: str, name: str) -> str:
    slug = _UNSAFE.sub("_", name).strip("_.") or "unnamed"
    return f"{prefix}{slug}.yaml"


def _fixture_files(fixture: Path | None) -> list[str]:
    if fixture is None:
        return []
    return sorted(str(path.relative_to(fixture)) for path in fixture.rglob("*") if path.is_file())


def _in_fixture(value: Any, name: str, wants_directory: bool, files: Sequence[str]) -> Any:
    """A path-like string argument pointed into the fixture (`{{fixture}}` or a file in it)."""
    if isinstance(value, list):
        return [_in_fixture(item, name, wants_directory, files) for item in value]
    key = name.lower().replace("_", "").replace("-", "")
    if not isinstance(value, str) or not key.rstrip("s").endswith(_PATH_NAMES):
        return value
    if wants_directory or not files or key.rstrip("s").endswith(("dir", "directory", "root", "folder")):
        return "{{fixture}}"
    return f"{{{{fixture}}}}/{files[0]}"


def arguments_for(tool: Mapping[str, Any], fixture: Path | None) -> dict[str, Any]:
    """The schema's arguments for `tool`; with a fixture, path-like ones point into it."""
    arguments = tool_arguments(tool.get("inputSchema"))
    files = _fixture_files(fixture)
    if fixture is None:
        return arguments
    words = f"{tool.get('name', '')} {tool.get('description', '')}".lower()
    wants_directory = any(word in str(tool.get("name", "")).lower() for word in _DIRECTORY_WORDS) or (
        "directory" in words and "file" not in str(tool.get("name", "")).lower()
    )
    return {name: _in_fixture(value, name, wants_directory, files) for name, value in arguments.items()}


def _template_value(expression: str) -> str:
    """A value for one `{...}` of a URI template: the first variable's name suggests it (`id` -> 1)."""
    name = expression.lstrip("+#./;?&").split(",")[0].split(":")[0].rstrip("*")
    return str(schema_value({"type": "string"}, name=name))


def _case(name: str, file: Path, server: ServerConfig, block: Block) -> Case:
    return Case(name=name, source=SourceRef(file=file), server=server, block=block)


def drafts(
    listing: Listing, server: ServerConfig, output: Path, options: ServerOptions, include_writes: bool
) -> list[Draft]:
    """One draft per tool, resource, resource template (its variables filled from their names; at most
    MAX_RESOURCES of each) and prompt, in the server's order."""
    found: list[Draft] = []
    for tool in listing.tools:
        name = str(tool.get("name"))
        file = file_name("", name)
        block = AssertBlock(tool=name, args=arguments_for(tool, options.fixture))
        skipped = (
            ""
            if include_writes or not is_write(tool)
            else (
                "the tool is annotated as writing (destructiveHint or readOnlyHint: false); "
                "generate with --include-writes to call it"
            )
        )
        case = _case(f"{name} with generated arguments", output / file, server, block)
        found.append(Draft(file, case, skipped))
    for resource in listing.resources[:MAX_RESOURCES]:
        uri = str(resource.get("uri"))
        file = file_name("resource-", str(resource.get("name") or uri))
        found.append(Draft(file, _case(f"read {uri}", output / file, server, ResourcesBlock(read=uri))))
    for template in listing.templates[:MAX_RESOURCES]:
        pattern = str(template.get("uriTemplate"))
        uri = _TEMPLATE_VARIABLE.sub(lambda match: _template_value(match.group(1)), pattern)
        file = file_name("resource-", str(template.get("name") or pattern))
        found.append(Draft(file, _case(f"read {uri}", output / file, server, ResourcesBlock(read=uri))))
    for prompt in listing.prompts:
        name = str(prompt.get("name"))
        arguments = {
            str(item.get("name")): str(schema_value({"type": "string"}, name=str(item.get("name"))))
            for item in prompt.get("arguments") or []
            if item.get("required")
        }
        file = file_name("prompt-", name)
        prompt_block = PromptsBlock(get=PromptGet(name=name, arguments=arguments))
        found.append(Draft(file, _case(f"prompt {name}", output / file, server, prompt_block)))
    return found
