"""Agent case files: walking the given paths, and loading every case of every dialect they hold."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolproof.load import mcp_assert, mcplab, mibo, promptkit, scenario_file
from toolproof.load.errors import LoadError
from toolproof.load.project_file import PROJECT_FILE
from toolproof.load.yaml_source import read_yaml
from toolproof.model.scenario import AgentCase

CASE_SUFFIXES = frozenset({".yaml", ".yml", ".json"})
SKIPPED_DIRECTORIES = frozenset({"node_modules", "fixtures"})


def files_under(path: Path, suffixes: frozenset[str]) -> list[Path]:
    """`path` itself, or the files with `suffixes` below it (in name order; hidden and tooling folders
    skipped)."""
    if not path.exists():
        raise FileNotFoundError(str(path))
    if path.is_file():
        return [path]
    found = []
    for entry in sorted(path.iterdir(), key=lambda entry: entry.name):
        if entry.name.startswith(".") or entry.name in SKIPPED_DIRECTORIES:
            continue
        if entry.is_dir():
            found.extend(files_under(entry, suffixes))
        elif entry.suffix.lower() in suffixes:
            found.append(entry)
    return found


def _settings(path: Path, data: dict[str, Any]) -> bool:
    """A project file (`toolproof.yaml`) or a script of the scripted model (a `scenarios` mapping only)."""
    return path.name == PROJECT_FILE or (set(data) == {"scenarios"} and isinstance(data["scenarios"], dict))


def load_agent_cases(paths: Iterable[Path]) -> tuple[list[AgentCase], list[LoadError]]:
    """The agent cases of the files, recognised by dialect (each once), and the load errors.

    Documents of mcp-assert suites are left out (`toolproof run` checks those), and so are toolproof's own
    settings files that may sit among cases: the project file and scripted-model scripts.
    """
    dialects = (promptkit, mibo, mcplab, scenario_file)
    cases: dict[tuple[Path, int, str], AgentCase] = {}
    errors: list[LoadError] = []
    for path in paths:
        source = read_yaml(path)
        errors.extend(source.errors)
        for document in source.documents:
            loader = next((dialect for dialect in dialects if dialect.detect(document)), None)
            if loader is None:
                if not mcp_assert.detect(document.data) and not _settings(path, document.data):
                    errors.append(
                        document.error(
                            (),
                            "not an agent case format toolproof knows",
                            "MCPLab, Mibo, PromptKit or toolproof scenario files",
                        )
                    )
                continue
            try:
                items = loader.load(document, path)
            except Exception as error:  # a loader's own bug costs one document, never the run
                message = f"cannot load this document ({type(error).__name__}: {error})"
                items = [document.error((), message)]
            for item in items:
                if isinstance(item, AgentCase):
                    cases.setdefault((item.source.file.resolve(), item.source.line, item.name), item)
                else:
                    errors.append(item)
    return list(cases.values()), errors
