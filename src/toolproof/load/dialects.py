"""The file formats toolproof reads, in one registry: the first dialect that recognises a document loads it.

Each dialect is a cheap shape test in `load/shapes.py` and a loader module with `load(document, source) ->
[case or LoadError]`, imported only once a document is recognised as its dialect, so a command loads no more
of them than its files need. Server dialects give `Case`s (`toolproof run`), agent dialects `AgentCase`s
(`eval`, `check`). To add a format, write its shape test and loader module and add a `Dialect` row here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, cast

from toolproof.load import shapes
from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import Document, YamlFile

if TYPE_CHECKING:
    from toolproof.model.scenario import AgentCase
    from toolproof.model.server_case import Case

Kind = Literal["server", "agent"]
YAML = frozenset({".yaml", ".yml"})
YAML_OR_JSON = frozenset({".yaml", ".yml", ".json"})


class Loader(Protocol):
    """What a dialect's module offers."""

    def load(self, document: object, source: Path) -> Sequence[Case | AgentCase | LoadError]: ...


@dataclass(frozen=True)
class Dialect:
    """A test-file format: what its cases are, how to tell it, the suffixes it owns, its loader module."""

    name: str
    kind: Kind
    recognised_by: str
    suffixes: frozenset[str]
    module: str
    detect: Callable[[object], bool]

    def loader(self) -> Loader:
        return cast(Loader, importlib.import_module(f"toolproof.load.{self.module}"))


# Agent dialects first, in the order their shapes are told apart; an mcp-assert document is recognised last.
DIALECTS: tuple[Dialect, ...] = (
    Dialect("PromptKit", "agent", "kind: Scenario", YAML_OR_JSON, "promptkit", shapes.promptkit),
    Dialect(
        "Mibo",
        "agent",
        "scenario with input_utterance, turns, custom_body or assertions",
        YAML_OR_JSON,
        "mibo",
        shapes.mibo,
    ),
    Dialect(
        "MCPLab", "agent", "scenarios, or a prompt with eval or id", YAML_OR_JSON, "mcplab", shapes.mcplab
    ),
    Dialect(
        "toolproof scenario",
        "agent",
        "an expect list, or turns with user",
        YAML_OR_JSON,
        "scenario_file",
        shapes.scenario_file,
    ),
    Dialect(
        "mcp-assert",
        "server",
        "a key assert, assert_*, trajectory, server or setup",
        YAML,
        "mcp_assert",
        shapes.mcp_assert,
    ),
)


def suffixes(kind: Kind) -> frozenset[str]:
    """Every suffix some dialect of `kind` reads: what a directory walk collects."""
    return frozenset().union(*(dialect.suffixes for dialect in DIALECTS if dialect.kind == kind))


def dialect_of(document: Document, kind: Kind | None = None) -> Dialect | None:
    """The first dialect (of `kind`, if given) that recognises `document`."""
    for dialect in DIALECTS:
        if (kind is None or dialect.kind == kind) and dialect.detect(document):
            return dialect
    return None


def holds_tests(source: YamlFile) -> bool:
    """Whether a file found by walking a directory is a test file: some dialect recognises one of its
    mappings (one with mistakes too, so that they are reported), or the file does not parse at all (its
    error says why). Any other YAML file (a `docker-compose.yml`, a CloudFormation template with its `!Ref`
    tags, an Ansible playbook's list) is not toolproof's to judge."""
    mappings = (*source.documents, *source.partial)
    return source.broken or any(dialect_of(document) is not None for document in mappings)


def unknown(document: Document, kind: Kind) -> LoadError:
    """The error of a document no dialect of `kind` recognises, naming the known ones."""
    known = "; ".join(
        f"{dialect.name}, recognised by {dialect.recognised_by}"
        for dialect in DIALECTS
        if dialect.kind == kind
    )
    return document.error((), "not a test format toolproof knows", f"known formats: {known}")


def load_document(document: Document) -> list[Case | LoadError]:
    """The server cases of `document` by the dialect that recognises it, or an error naming the known ones."""
    dialect = dialect_of(document, "server")
    if dialect is None:
        return [unknown(document, "server")]
    return cast("list[Case | LoadError]", list(dialect.loader().load(document, document.file)))
