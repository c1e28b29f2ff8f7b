from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.load.conftest import Write

import toolproof.load as load_module
from toolproof.load import LoadError, dialects, load_file, load_suite
from toolproof.load.yaml_source import Document
from toolproof.model.server_case import Case


def test_bad_files_yield_errors_and_the_rest_loads(write: Write, tmp_path: Path) -> None:
    write("server: {command: s}\nassert: {tool: a}\n", "1_good.yaml")
    write("server: {command: s\nassert: {tool: b}\n", "2_syntax.yaml")
    write("server: {command: s}\nassert: {tool: c}\n---\nassert: {tol: d}\n", "3_mixed.yaml")
    write("server: {command: s}\nassert: {tool: e}\n", "sub/4_nested.yml")
    suite = load_suite([tmp_path])
    assert [(case.source.file.name, getattr(case.block, "tool", None)) for case in suite.cases] == [
        ("1_good.yaml", "a"),
        ("3_mixed.yaml", "c"),
        ("4_nested.yml", "e"),
    ]
    assert [(error.file.name, error.line, error.field) for error in suite.errors] == [
        ("2_syntax.yaml", 2, ""),
        ("3_mixed.yaml", 4, "assert.tool"),
        ("3_mixed.yaml", 4, "assert.tol"),
    ]
    assert suite.errors[0].message.startswith("YAML syntax error: ")
    assert all(isinstance(error, LoadError) for error in suite.errors)


def test_files_are_loaded_in_the_order_given(write: Write) -> None:
    second = write("name: second\nserver: {command: s}\nassert: {tool: t}\n", "z.yaml")
    first = write("name: first\nserver: {command: s}\nassert: {tool: t}\n", "a.yaml")
    assert [case.name for case in load_suite([second, first]).cases] == ["second", "first"]


def test_a_loader_that_raises_costs_only_its_document(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a dialect loader is that document's load error, named by file and line; the rest loads."""
    real = dialects.load_document

    def broken(document: Document) -> list[Case | LoadError]:
        if document.data.get("name") == "boom":
            raise KeyError("surprise")
        return real(document)

    monkeypatch.setattr(load_module, "load_document", broken)
    text = "name: fine\nserver: {command: srv}\nassert: {tool: t}\n---\nname: boom\nassert: {tool: u}\n"
    path = write(text)
    fine, error = load_file(path)
    assert isinstance(fine, Case) and fine.name == "fine"
    assert error == LoadError(path, 5, 1, "", "cannot load this document (KeyError: 'surprise')")
