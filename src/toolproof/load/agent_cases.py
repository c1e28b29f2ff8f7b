"""Agent case files: loading every case of every dialect they hold."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from toolproof.load.dialects import dialect_of, suffixes, unknown
from toolproof.load.errors import LoadError
from toolproof.load.shapes import settings_file
from toolproof.load.yaml_source import read_yaml
from toolproof.model.scenario import AgentCase

CASE_SUFFIXES = suffixes("agent")


def load_agent_cases(paths: Iterable[Path]) -> tuple[list[AgentCase], list[LoadError]]:
    """The agent cases of the files, recognised by dialect (each once), and the load errors.

    Documents of mcp-assert suites are left out (`toolproof run` checks those), and so are toolproof's own
    settings files that may sit among cases: the project file and scripted-model scripts.
    """
    cases: dict[tuple[Path, int, str], AgentCase] = {}
    errors: list[LoadError] = []
    for path in paths:
        source = read_yaml(path)
        errors.extend(source.errors)
        for document in source.documents:
            dialect = dialect_of(document)
            if dialect is None or dialect.kind != "agent":
                if dialect is None and not settings_file(path, document.data):
                    errors.append(unknown(document, "agent"))
                continue
            try:
                items = dialect.loader().load(document, path)
            except Exception as error:  # a loader's own bug costs one document, never the run
                items = [document.error((), f"cannot load this document ({type(error).__name__}: {error})")]
            for item in items:
                if isinstance(item, AgentCase):
                    cases.setdefault((item.source.file.resolve(), item.source.line, item.name), item)
                elif isinstance(item, LoadError):
                    errors.append(item)
    return list(cases.values()), errors
