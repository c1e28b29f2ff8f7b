"""Which YAML files under a suite path are tests: a walk skips, with a note, the files no format knows."""

from __future__ import annotations

from pathlib import Path

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_paths

CASE = "name: a case\nserver: {command: s}\nassert: {tool: t}\n"
COMPOSE = "services:\n  db: {image: postgres}\n"


def loaded(paths: list[Path]) -> tuple[list[str], list[str], list[str]]:
    """The names of the cases, the messages of the errors and the notes of loading `paths`."""
    notes: list[str] = []
    items = load_paths(paths, notes.append)
    cases = [item.name for item in items if not isinstance(item, LoadError)]
    errors = [f"{item.file.name}: {item.message}" for item in items if isinstance(item, LoadError)]
    return cases, errors, notes


def test_a_walk_skips_yaml_that_holds_no_test_with_a_note(write: Write, tmp_path: Path) -> None:
    write(CASE, "cases.yaml")
    compose = write(COMPOSE, "docker-compose.yml")
    write("log_level: debug\nname: my app\n", "config/settings.yaml")
    write("", "empty.yaml")
    cases, errors, notes = loaded([tmp_path])
    assert (cases, errors) == (["a case"], [])
    note = "skipped: no document in it is a test of a format toolproof knows (name the file to load it)"
    assert notes == [
        f"{tmp_path / 'config' / 'settings.yaml'}: {note}",
        f"{compose}: {note}",
        f"{tmp_path / 'empty.yaml'}: {note}",
    ]


def test_yaml_that_toolproof_cannot_read_but_is_no_test_is_skipped_too(write: Write, tmp_path: Path) -> None:
    """A tag toolproof does not read (CloudFormation's `!Ref`), a duplicate key or a list of plays does not
    make a file a test file: only a document some format recognises does."""
    write("Resources:\n  Bucket: {Type: X, Name: !Ref Name}\n", "template.yaml")
    write("a: 1\na: 2\n", "dup.yaml")
    write("- hosts: all\n  tasks: []\n", "playbook.yml")
    cases, errors, notes = loaded([tmp_path])
    assert (cases, errors) == ([], [])
    assert [Path(note.split(": ")[0]).name for note in notes] == ["dup.yaml", "playbook.yml", "template.yaml"]


def test_a_test_file_with_a_tag_or_duplicate_key_is_still_reported(write: Write, tmp_path: Path) -> None:
    write(f"{CASE}server: {{command: t}}\n", "dup.yaml")
    write("name: tagged\nserver: {command: !Ref s}\nassert: {tool: t}\n", "tagged.yaml")
    cases, errors, notes = loaded([tmp_path])
    assert (cases, notes) == ([], [])
    assert errors == ["dup.yaml: duplicate key", "tagged.yaml: unsupported YAML tag !Ref"]


def test_a_file_named_by_its_path_always_loads(write: Write) -> None:
    compose = write(COMPOSE, "docker-compose.yml")
    cases, errors, notes = loaded([compose])
    assert (cases, notes) == ([], [])
    assert errors == ["docker-compose.yml: not a test format toolproof knows"]


def test_test_files_with_mistakes_still_fail_loudly(write: Write, tmp_path: Path) -> None:
    write("server: {command: s\nassert: {tool: b}\n", "syntax.yaml")  # does not parse: it may be a test
    write(f"{CASE}---\nservices: {{}}\n", "mixed.yaml")  # one document is a case: the file is a test file
    write("name: typo\nserver: {command: s}\nasert: {tool: t}\n", "typo.yaml")
    cases, errors, notes = loaded([tmp_path])
    assert cases == ["a case"] and notes == []
    files = [error.split(":")[0] for error in errors]
    assert files == ["mixed.yaml", "syntax.yaml", "typo.yaml", "typo.yaml"]
    assert errors[0] == "mixed.yaml: not a test format toolproof knows"
    assert errors[3] == "typo.yaml: unknown key"


def test_toolproofs_own_settings_files_are_skipped_without_a_note(write: Write, tmp_path: Path) -> None:
    write(CASE, "cases.yaml")
    write("provider: scripted\nscript: model.yaml\n", "toolproof.yaml")
    write("scenarios:\n  greet: [{reply: hi}]\n", "model.yaml")
    assert loaded([tmp_path]) == (["a case"], [], [])
