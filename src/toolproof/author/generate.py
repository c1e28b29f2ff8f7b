"""Generate a suite from a live server: one case per tool, resource and prompt, with arguments drawn from the
schema and expectations from the server's own answers.

Each request is made twice, each time on a fresh server with its own copy of the fixture, exactly as the
written case will run; what stays the same is asserted (see `expectations`). A tool annotated as writing
(`destructiveHint: true` or `readOnlyHint: false`, as mcp-assert reads them) is not called unless
`include_writes`: its case is written with `skip: true`. So is a case whose request failed outright, with the
reason, so that the suite passes as generated and says what is left to do.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from toolproof import __version__
from toolproof.author.expectations import expectations
from toolproof.author.listing import Listing, list_server, server_label
from toolproof.model.observation import Observation
from toolproof.model.result import CaseResult, Failure
from toolproof.model.server_case import (
    AssertBlock,
    Block,
    Case,
    Expect,
    PromptGet,
    PromptsBlock,
    ResourcesBlock,
    ServerConfig,
    SourceRef,
    Transport,
)
from toolproof.probe.arguments import schema_value, tool_arguments
from toolproof.report.sinks import Broadcast
from toolproof.run.scheduler import Slot, run_all
from toolproof.run.secrets import run_secrets
from toolproof.run.server_case import execute_case
from toolproof.sources.options import ServerOptions

MAX_RESOURCES = 25
CALLS = 2
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


@dataclass
class Generated:
    """What `generate` did: files written, files left alone (they existed), and the listing it worked from."""

    listing: Listing
    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    skipped: list[Draft] = field(default_factory=list)


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


def drafts(listing: Listing, server: ServerConfig, output: Path, options: ServerOptions,
           include_writes: bool) -> list[Draft]:
    """One draft per tool, resource, resource template (its variables filled from their names; at most
    MAX_RESOURCES of each) and prompt, in the server's order."""
    found: list[Draft] = []
    for tool in listing.tools:
        name = str(tool.get("name"))
        file = file_name("", name)
        block = AssertBlock(tool=name, args=arguments_for(tool, options.fixture))
        skipped = "" if include_writes or not is_write(tool) else (
            "the tool is annotated as writing (destructiveHint or readOnlyHint: false); "
            "generate with --include-writes to call it"
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


async def observe(drafts: Sequence[Draft], options: ServerOptions, jobs: int) -> list[Draft]:
    """Each draft that is not skipped, made CALLS times, with expectations from the answers; a draft whose
    request failed comes back skipped, with the reason. The requests are made in rounds (all of them, then all
    again), so that on a server whose state they share a value that another request changed is left out."""
    runnable = [draft for draft in drafts if not draft.skipped]
    secrets = run_secrets([draft.case.server for draft in runnable], options.environ)
    seen: dict[int, list[Observation]] = {index: [] for index in range(len(runnable))}

    async def execute(index: int, slot: Slot) -> CaseResult:
        return await execute_case(runnable[index].case, options, on_answered=slot.release,
                                  on_observed=seen[index].append)

    failed: dict[int, Failure] = {}
    for _ in range(CALLS):  # every request once, then all again: a change one request makes shows in the next
        results = await run_all(range(len(runnable)), execute, lambda index: runnable[index].case.name,
                                jobs=jobs, sink=Broadcast([]), title="toolproof generate")
        failed.update((index, result.failure) for index, result in enumerate(results) if result.failure)
    done: dict[int, Draft] = {}
    for index, draft in enumerate(runnable):
        if len(seen[index]) < CALLS:
            failure = failed.get(index)
            reason = failure.message if failure else "the request did not complete"
            why = f"the request failed with the generated arguments: {reason}; edit them and remove skip"
            done[index] = replace(draft, skipped=why)
            continue
        block = draft.case.block
        expect = expectations(seen[index], tool=isinstance(block, AssertBlock), secrets=secrets)
        checks = Expect.model_validate(expect)
        case = draft.case.model_copy(update={"block": block.model_copy(update={"expect": checks})})
        note = "the server answered with an error for these arguments" if expect.get("is_error") else ""
        done[index] = replace(draft, case=case, note=note)
    by_draft = {id(draft): done[index] for index, draft in enumerate(runnable)}
    return [by_draft.get(id(draft), draft) for draft in drafts]


def _quoted(value: Any) -> Any:
    """Strings double-quoted, so that YAML 1.1 readers (mcp-assert's) never take one for a bool or a date."""
    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, dict):
        return {key: _quoted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_quoted(item) for item in value]
    return value


def _server_yaml(server: ServerConfig) -> dict[str, Any]:
    if server.transport is Transport.STDIO:
        return {"command": server.command, "args": list(server.args)}
    data: dict[str, Any] = {"transport": server.transport.value, "url": server.url}
    if server.headers:
        data["headers"] = dict(server.headers)
    return data


def _block_yaml(block: Block) -> tuple[str, dict[str, Any]]:
    expect = block.expect.model_dump(exclude_none=True) if hasattr(block, "expect") else {}
    if isinstance(block, AssertBlock):
        body: dict[str, Any] = {"tool": block.tool, "args": dict(block.args)}
    elif isinstance(block, ResourcesBlock):
        body = {"read": block.read}
    elif isinstance(block, PromptsBlock) and block.get is not None:
        body = {"get": {"name": block.get.name, "arguments": dict(block.get.arguments)}}
    else:
        raise TypeError(f"generate writes no {block.kind} block")
    return block.kind, {**body, "expect": expect or {"not_error": True}}


def render(draft: Draft, label: str, when: datetime) -> str:
    """The file's text: a header saying how it was made, then the case in mcp-assert's YAML."""
    case = draft.case
    key, block = _block_yaml(case.block)
    data: dict[str, Any] = {"name": case.name, "server": _server_yaml(case.server), key: block}
    if draft.skipped:
        data["skip"] = True
    header = [
        f"# Generated by `toolproof generate` {__version__} on {when:%Y-%m-%d %H:%M} UTC from {label}.",
        "# Arguments come from the input schema; expectations from the server's answers to two calls",
        "# (values that changed between them, dates, UUIDs, hex ids and temporary paths are left out).",
    ]
    if draft.skipped:
        header.append(f"# Skipped: {draft.skipped}.")
    if draft.note:
        header.append(f"# Note: {draft.note}.")
    stream = io.StringIO()
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.dump(_quoted(data), stream)
    return "\n".join(line.replace("\n", " ") for line in header) + "\n" + stream.getvalue()


async def generate(
    server: ServerConfig, output: Path, options: ServerOptions, *, include_writes: bool, overwrite: bool,
    jobs: int,
) -> Generated:
    """List the server, draft and observe a case per item, and write each file (existing ones only with
    `overwrite`). Raises RequestFailed when the server cannot be listed, OSError when a file cannot be
    written."""
    listing = await list_server(server, options)
    planned = drafts(listing, server, output, options, include_writes)
    fresh = [draft for draft in planned if overwrite or not (output / draft.file).exists()]
    done = Generated(listing, kept=[output / draft.file for draft in planned if draft not in fresh])
    label = server_label(server, ServerOptions(environ={}))
    when = datetime.now(UTC)
    output.mkdir(parents=True, exist_ok=True)
    for draft in await observe(fresh, options, jobs):
        path = output / draft.file
        path.write_text(render(draft, label, when), encoding="utf-8")
        done.written.append(path)
        if draft.skipped:
            done.skipped.append(draft)
    return done
