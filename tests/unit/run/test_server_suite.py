"""A document that does not load is one ERROR result, named after its case, whatever the number of its
mistakes; distinct documents give distinct ids."""

from __future__ import annotations

import textwrap
from pathlib import Path

import anyio

from toolproof.load import LoadError, load_file
from toolproof.model.events import Event, LoadFailed, RunFinished
from toolproof.model.result import FailureKind, Status
from toolproof.run.load_errors import by_document, load_error_result
from toolproof.run.server_suite import run_server_suite
from toolproof.sources.options import ServerOptions

BROKEN = """
name: type wrong
server:
  command: echo
  args: 5
assert:
  tool: x
  expect:
    min_results: "abc"
timeout: 3 parsecs
---
server: {command: echo}
assert: {tool: x, expect: {contians: [a]}}
tiemout: 3s
---
server: {command: echo}
assert: {tool: x}
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)


def broken_file(tmp_path: Path) -> Path:
    path = tmp_path / "d_type.yaml"
    path.write_text(textwrap.dedent(BROKEN).lstrip("\n"))
    return path


def test_errors_know_their_document_and_case_name(tmp_path: Path) -> None:
    errors = [item for item in load_file(broken_file(tmp_path)) if isinstance(item, LoadError)]
    assert [(e.document, e.case_name) for e in errors] == [
        (0, "type wrong"), (0, "type wrong"), (0, "type wrong"),
        (1, "d_type.yaml [2]"), (1, "d_type.yaml [2]"),
    ]


def test_the_errors_of_one_document_are_one_entry(tmp_path: Path) -> None:
    entries = by_document(load_file(broken_file(tmp_path)))
    assert [len(entry) if isinstance(entry, tuple) else entry.name for entry in entries] == [
        3, 2, "d_type.yaml [3]"
    ]


def test_one_result_per_broken_document_with_every_problem(tmp_path: Path) -> None:
    path = broken_file(tmp_path)
    sink = Recorder()
    items = [item for item in load_file(path) if isinstance(item, LoadError)]
    results = anyio.run(lambda: run_server_suite(items, ServerOptions(environ={}), jobs=2, sink=sink))
    assert [(r.name, r.status, r.line) for r in results] == [
        ("type wrong (load error)", Status.ERROR, 4),
        ("d_type.yaml [2] (load error)", Status.ERROR, 12),
    ]
    assert len({r.node_id for r in results}) == 2
    first = results[0].failure
    assert first is not None and first.kind is FailureKind.CONFIG
    assert first.message.splitlines() == [
        "3 problems:",
        f"- {path}:4:3: server.args: Input should be a valid list, got 5",
        f"- {path}:8:5: assert.expect.min_results: Input should be a valid integer, unable to parse string"
        " as an integer, got 'abc'",
        f"- {path}:9:1: timeout: invalid duration '3 parsecs' (use e.g. 30s, 1m30s, 500ms, 2h)",
    ]
    assert first.details == {"field": "server.args", "fields": ["server.args", "assert.expect.min_results",
                                                                 "timeout"]}
    finished = sink.events[-1]
    assert isinstance(finished, RunFinished) and len(finished.results) == 2
    failed = [event for event in sink.events if isinstance(event, LoadFailed)]
    assert [(e.file, e.line, len(e.problems)) for e in failed] == [(path, 4, 3), (path, 12, 2)]
    assert failed[0].problems[0] == f"{path}:4:3: server.args: Input should be a valid list, got 5"


def test_a_single_problem_is_reported_as_it_is(tmp_path: Path) -> None:
    error = LoadError(tmp_path / "f.yaml", 3, 1, "tiemout", "unknown key", "did you mean 'timeout'?")
    result = load_error_result(error)
    assert result.name == "f.yaml (load error)"
    assert result.failure is not None and result.failure.message == str(error)


def test_a_list_document_is_named_by_its_position(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("server: {command: echo}\nassert: {tool: x}\n---\n- a list\n")
    (_, entry) = by_document(load_file(path))
    assert isinstance(entry, tuple) and load_error_result(*entry).name == "f.yaml [2] (load error)"
