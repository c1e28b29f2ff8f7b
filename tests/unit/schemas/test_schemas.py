"""The JSON Schemas of the file formats: fresh, valid, true to the repository's files and to the loaders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolproof.cli import main
from toolproof.load import LoadError, load_file, mcp_assert, mcplab, mibo, promptkit, scenario_file
from toolproof.load.agent_cases import load_agent_cases
from toolproof.load.project_file import load_project
from toolproof.load.script_file import ScriptError, load_script
from toolproof.load.shapes import PROJECT_FILE
from toolproof.load.yaml_source import Document, read_yaml
from toolproof.schemas import FORMATS, HERE, build, file_name, render
from toolproof.schemas.validate import problems

ROOT = Path(__file__).resolve().parents[3]
SUITES = ("examples", "tests", "bench")
SUFFIXES = {".yaml", ".yml", ".json"}
MODELINE = "# yaml-language-server: $schema="


def format_of(document: Document) -> str | None:
    """The format a document is read as, by the loaders' own recognition (None: no case format)."""
    if document.file.name == PROJECT_FILE:
        return "project"
    if set(document.data) == {"scenarios"} and isinstance(document.data["scenarios"], dict):
        return "script"
    if mcp_assert.detect(document.data):
        return "mcp-assert"
    for name, dialect in (
        ("promptkit", promptkit),
        ("mibo", mibo),
        ("mcplab", mcplab),
        ("scenario", scenario_file),
    ):
        if dialect.detect(document):
            return name
    return None


def repository_files() -> list[Path]:
    found = []
    for top in SUITES:
        for folder, subfolders, files in os.walk(ROOT / top):
            subfolders[:] = sorted(name for name in subfolders if name not in {"node_modules", "__pycache__"})
            found.extend(Path(folder) / name for name in sorted(files) if Path(name).suffix in SUFFIXES)
    return found


def repository_documents() -> dict[str, list[Path]]:
    """The repository's example and test-suite files by format (a file once per format it holds)."""
    by_format: dict[str, list[Path]] = {name: [] for name in FORMATS}
    for path in repository_files():
        source = read_yaml(path)
        for name in {format_of(document) for document in source.documents} - {None}:
            by_format[str(name)].append(path)
    return by_format


DOCUMENTS = repository_documents()


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_stored_schemas_are_the_generated_ones(name: str) -> None:
    generated = render(build(name))
    for folder in (HERE, ROOT / "schemas"):
        stored = (folder / file_name(name)).read_text(encoding="utf-8")
        assert stored == generated, (
            f"{folder / file_name(name)} is stale: run python -m toolproof.schemas schemas"
        )


@pytest.mark.parametrize("name", list(FORMATS))
def test_each_schema_is_a_draft_2020_12_schema(name: str) -> None:
    schema = build(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_example_and_suite_file_is_valid_against_its_schema(name: str) -> None:
    files = DOCUMENTS[name]
    assert files, f"no file of format {name} found to check"
    found = [str(problem) for path in files for problem in problems(name, path)]
    assert found == []


def test_every_example_names_its_schema_on_its_first_line() -> None:
    for name, files in DOCUMENTS.items():
        for path in files:
            if path.suffix == ".json" or not path.is_relative_to(ROOT / "examples"):
                continue
            first = path.read_text(encoding="utf-8").split("\n", 1)[0]
            target = os.path.relpath(ROOT / "schemas" / file_name(name), path.parent)
            assert first == f"{MODELINE}{target}", path


MISTAKES = [
    (
        "mcp-assert",
        "name: x\nserver: {command: srv}\nassert:\n  tool: t\n  expcet: {contains: [a]}\n",
        "case.yaml:5:3: assert.expcet: unknown key (did you mean 'expect'?)",
    ),
    (
        "mcp-assert",
        "name: x\nserver: {command: srv}\nassert:\n  tool: t\n  expect: {min_results: many}\n",
        "case.yaml:5:12: assert.expect.min_results: 'many' is not of type integer or null",
    ),
    (
        "scenario",
        "name: x\nprompt: hi\nexpect:\n  - called: {tool: a, argz: {}}\n",
        "case.yaml:4:23: expect[0].called.argz: unknown key (did you mean 'args'?)",
    ),
    (
        "scenario",
        "name: x\nprompt: hi\nexpect:\n  - tokens: {max_total: lots}\n",
        "case.yaml:4:14: expect[0].tokens.max_total: 'lots' is not of type 'integer'",
    ),
    (
        "mcplab",
        "scenarios:\n  - id: s\n    prompt: p\n    eval:\n      tool_constraint: {required_tools: [a]}\n",
        "case.yaml:5:7: scenarios[0].eval.tool_constraint: unknown key (did you mean 'tool_constraints'?)",
    ),
    (
        "mcplab",
        "scenarios:\n  - id: s\n    prompt: p\n    eval:\n      tool_sequence: {allow: lookup}\n",
        "case.yaml:5:23: scenarios[0].eval.tool_sequence.allow: 'lookup' is not of type 'array'",
    ),
    (
        "mibo",
        '{"scenario": "s", "input_utterance": "hi", "assertions": {"procedural": '
        '[{"target": "response_regex", "patern": "x"}]}}\n',
        "case.yaml:1:103: assertions.procedural[0].patern: unknown key (did you mean 'pattern'?)",
    ),
    (
        "mibo",
        '{"scenario": "s", "input_utterance": "hi", "assertions": '
        '{"semantic": [{"criteria": "c", "threshold": "high"}]}}\n',
        "case.yaml:1:90: assertions.semantic[0].threshold: 'high' is not of type 'number'",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns:\n"
        "    - role: user\n      content: hi\n      assertions:\n        - type: tools_called\n"
        "          parms: {tools: [a]}\n",
        "case.yaml:9:11: spec.turns[0].assertions[0].parms: unknown key (did you mean 'params'?)",
    ),
    (
        "promptkit",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nspec:\n  turns: many\n",
        "case.yaml:4:3: spec.turns: 'many' is not of type 'array'",
    ),
    (
        "project",
        "provider: scripted\nmodle: m\n",
        "toolproof.yaml:2:1: modle: unknown key (did you mean 'model'?)",
    ),
    (
        "project",
        "provider: scripted\ntrials: twice\n",
        "toolproof.yaml:2:1: trials: 'twice' is not of type integer or null",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "expected"), MISTAKES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MISTAKES)]
)
def test_a_misspelt_key_or_a_wrong_type_is_rejected_with_its_path(
    name: str, text: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / ("toolproof.yaml" if name == "project" else "case.yaml")
    path.write_text(text)
    found = [str(problem).removeprefix(f"{tmp_path}/") for problem in problems(name, path)]
    assert found == [expected]
    # the loader refuses the same file
    if name == "project":
        assert load_project(path)[1]
    elif name == "script":
        with pytest.raises(ScriptError):
            load_script(path)
    elif name == "mcp-assert":
        items = load_file(path)
        assert items and all(isinstance(item, LoadError) for item in items)
    else:
        cases, errors = load_agent_cases([path])
        assert errors and not cases


def test_the_mcp_assert_schema_the_command_prints_accepts_every_example_and_rejects_a_misspelt_expect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema", "mcp-assert"]) == 0
    validator = Draft202012Validator(json.loads(capsys.readouterr().out))
    examples = [path for path in DOCUMENTS["mcp-assert"] if path.is_relative_to(ROOT / "examples")]
    assert len(examples) > 40
    for path in examples:
        for document in read_yaml(path).documents:
            assert list(validator.iter_errors(document.data)) == [], path
    misspelt = {
        "name": "x",
        "server": {"command": "srv"},
        "assert": {"tool": "t", "expcet": {"contains": ["a"]}},
    }
    errors = list(validator.iter_errors(misspelt))
    assert errors
    assert ["expcet" in error.message for error in errors] == [True]
