from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from tests.unit.load.conftest import Write

from toolproof.core.regular_file import MAX_FILE_BYTES
from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import MAX_ALIAS_VALUES, MAX_DEPTH, format_path, read_yaml


def test_yaml_1_2_scalars_stay_what_they_say(write: Write) -> None:
    path = write(
        """
        yes_: yes
        on_: on
        no_: no
        date: 2024-01-01
        stamp: 2024-01-01T10:00:00Z
        explicit: !!timestamp 2024-01-01
        octal_like: 010
        octal: 0o10
        hex: 0x1F
        float: 1.5
        exp: 1e3
        true_: true
        null_: ~
        empty:
        quoted: "010"
        explicit_str: !!str 123
        block: |
          two
          lines
        anchored: &flag true
        alias: *flag
        """
    )
    (document,) = read_yaml(path).documents
    assert document.data == {
        "yes_": "yes",
        "on_": "on",
        "no_": "no",
        "date": "2024-01-01",
        "stamp": "2024-01-01T10:00:00Z",
        "explicit": "2024-01-01",
        "octal_like": 10,
        "octal": 8,
        "hex": 31,
        "float": 1.5,
        "exp": 1000.0,
        "true_": True,
        "null_": None,
        "empty": None,
        "quoted": "010",
        "explicit_str": "123",
        "block": "two\nlines\n",
        "anchored": True,
        "alias": True,
    }
    kinds = {key: type(value) for key, value in document.data.items()}
    assert kinds["octal_like"] is int and kinds["float"] is float and kinds["quoted"] is str
    assert kinds["anchored"] is bool and kinds["block"] is str


def test_values_are_plain_python_containers(write: Write) -> None:
    (document,) = read_yaml(write("a: {b: [1, {c: d}]}\n")).documents
    assert type(document.data) is dict
    assert type(document.data["a"]["b"]) is list
    assert type(document.data["a"]["b"][1]) is dict


def test_scalar_keys_become_go_strings(write: Write) -> None:
    (document,) = read_yaml(write("1: a\nfalse: b\n1.5: c\n")).documents
    assert document.data == {"1": "a", "false": "b", "1.5": "c"}


def test_positions_of_keys_and_list_items(write: Write) -> None:
    path = write(
        """
        # comment
        server:
          command: x
          args:
            - one
            - two
        setup: [{tool: a}, {tool: b}]
        """
    )
    (document,) = read_yaml(path).documents
    assert (document.line, document.column) == (2, 1)
    assert document.position(("server",)) == (2, 1)
    assert document.position(("server", "command")) == (3, 3)
    assert document.position(("server", "args", 1)) == (6, 7)
    assert document.position(("setup", 1)) == (7, 20)
    assert document.position(("setup", 1, "tool")) == (7, 21)
    assert document.position(("server", "missing", "deeper")) == (2, 1)


def test_merge_keys_are_merged_and_located_by_their_mapping(write: Write) -> None:
    path = write(
        """
        base: &base {command: srv, args: [a]}
        server:
          <<: *base
          args: [b]
        """
    )
    (document,) = read_yaml(path).documents
    assert document.data["server"] == {"command": "srv", "args": ["b"]}
    assert document.position(("server", "command")) == (2, 1)
    assert document.position(("server", "args")) == (4, 3)


def test_every_document_is_read_and_empty_ones_are_skipped(write: Write) -> None:
    path = write(
        """
        a: 1
        ---
        # only a comment
        ---
        b: 2
        ...
        ---
        c: 3
        """
    )
    source = read_yaml(path)
    assert source.errors == []
    assert [(d.index, d.data, d.line) for d in source.documents] == [
        (0, {"a": 1}, 1),
        (1, {"b": 2}, 5),
        (2, {"c": 3}, 8),
    ]


def test_empty_file_has_no_documents_and_no_errors(write: Write) -> None:
    source = read_yaml(write("# nothing here\n"))
    assert source.documents == [] and source.errors == []


def test_syntax_error_is_one_error_with_the_parser_position(write: Write) -> None:
    path = write("a: 1\n---\nserver:\n  command: x\n   args: [y]\n")
    source = read_yaml(path)
    assert source.documents == []
    message = "YAML syntax error: mapping values are not allowed here"
    assert source.errors == [LoadError(path, 5, 8, "", message)]
    assert str(source.errors[0]) == f"{path}:5:8: YAML syntax error: mapping values are not allowed here"


def test_syntax_error_with_context_hint(write: Write) -> None:
    path = write('name: "unterminated\n')
    (error,) = read_yaml(path).errors
    assert (error.line, error.column, error.field) == (2, 1, "")
    assert error.message == "YAML syntax error: found unexpected end of stream"
    assert error.hint == "while scanning a quoted scalar started at line 1, column 7"


def test_undefined_alias_is_an_error(write: Write) -> None:
    path = write("a: 1\nb: *nope\n")
    message = "YAML syntax error: found undefined alias 'nope'"
    assert read_yaml(path).errors == [LoadError(path, 2, 4, "", message)]


def test_duplicate_keys_are_errors_at_the_repeated_key(write: Write) -> None:
    path = write(
        """
        name: a
        assert:
          tool: t
          expect: {contains: [x], contains: [y]}
        name: b
        ---
        ok: 1
        """
    )
    source = read_yaml(path)
    assert [document.data for document in source.documents] == [{"ok": 1}]
    assert source.errors == [
        LoadError(path, 4, 27, "assert.expect.contains", "duplicate key", "first written at line 4"),
        LoadError(path, 5, 1, "name", "duplicate key", "first written at line 1"),
    ]


def test_keys_equal_after_conversion_are_duplicates(write: Write) -> None:
    path = write('1: a\n"1": b\n')
    assert read_yaml(path).errors == [LoadError(path, 2, 1, "1", "duplicate key", "first written at line 1")]


def test_non_mapping_documents_are_errors(write: Write) -> None:
    path = write("a: 1\n---\n- x\n---\njust text\n")
    source = read_yaml(path)
    assert [document.data for document in source.documents] == [{"a": 1}]
    assert source.errors == [
        LoadError(path, 3, 1, "", "a document must be a mapping, not a list"),
        LoadError(path, 5, 1, "", "a document must be a mapping, not a scalar"),
    ]


def test_document_index_counts_rejected_documents(write: Write) -> None:
    path = write("- x\n---\na: 1\n")
    (document,) = read_yaml(path).documents
    assert document.index == 1


def test_unsupported_tag_and_value_types(write: Write) -> None:
    path = write("a: !env HOME\nb: !!binary aGk=\nc: {d: !!set {x}}\n")
    assert read_yaml(path).errors == [
        LoadError(path, 1, 1, "a", "unsupported YAML tag !env"),
        LoadError(path, 2, 1, "b", "unsupported YAML tag !!binary"),
        LoadError(path, 3, 5, "c.d", "unsupported YAML tag !!set"),
    ]


def test_complex_keys_are_errors(write: Write) -> None:
    path = write("args:\n  ? [a, b]\n  : 1\n")
    assert read_yaml(path).errors == [
        LoadError(path, 1, 1, "args", "mapping keys must be strings, numbers or booleans, not ('a', 'b')")
    ]


def test_recursive_alias_ends_as_null(write: Write) -> None:
    (document,) = read_yaml(write("a: &loop\n  - *loop\nb: &m {c: *m}\n")).documents
    assert document.data == {"a": [None], "b": {"c": None}}


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"a: \xff\n")
    missing = tmp_path / "gone.yaml"
    assert read_yaml(binary).errors == [LoadError(binary, 1, 1, "", "not UTF-8 text (byte 3)")]
    message = "cannot read file: No such file or directory"
    assert read_yaml(missing).errors == [LoadError(missing, 1, 1, "", message)]


def test_control_character_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "ctl.yaml"
    path.write_text("a: 1\nb: x\x00\n", encoding="utf-8")
    (error,) = read_yaml(path).errors
    assert (error.line, error.column) == (2, 5)
    assert error.message.startswith("YAML syntax error: ")


def test_utf8_bom_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeffa: é\n".encode())
    assert read_yaml(path).documents[0].data == {"a": "é"}


def test_format_path() -> None:
    assert format_path(()) == ""
    assert format_path(("setup", 0, "capture", "id")) == "setup[0].capture.id"
    assert format_path(("assert_resources", "list", "cursr")) == "assert_resources.list.cursr"


def test_typed_tags_with_bad_values_and_misfit_tags_are_located(write: Write) -> None:
    path = write("a: !!int abc\nb: !!bool maybe\nc: !!float x\nd: !!str [a]\ne: !!seq {k: 1}\nf: !!int 0x1\n")
    assert read_yaml(path).errors == [
        LoadError(path, 1, 1, "a", "'abc' is not a valid !!int"),
        LoadError(path, 2, 1, "b", "'maybe' is not a valid !!bool"),
        LoadError(path, 3, 1, "c", "'x' is not a valid !!float"),
        LoadError(path, 4, 1, "d", "the YAML tag !!str does not fit a list"),
        LoadError(path, 5, 1, "e", "the YAML tag !!seq does not fit a mapping"),
    ]


def test_nesting_is_bounded_at_the_node_that_crosses_the_limit(write: Write) -> None:
    at_limit = write("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n", "ok.yaml")
    (document,) = read_yaml(at_limit).documents
    value, depth = document.data["a"], 1
    while value:
        (value,), depth = value, depth + 1
    assert depth == MAX_DEPTH - 1
    # the root is level 1, each `{` one more, and the 99th mapping's key `k` (column 397) is level 101
    too_deep = write("a: " + "{k: " * 5000 + "1" + "}" * 5000 + "\n", "deep.yaml")
    message = f"the document nests more than {MAX_DEPTH} levels deep (the limit)"
    assert read_yaml(too_deep).errors == [LoadError(too_deep, 1, 397, "", message)]


def test_nesting_brought_in_by_aliases_counts(write: Write) -> None:
    levels = [f"l0: &l0 {'[' * 30}{']' * 30}"]
    levels += [f"l{n}: &l{n} {'[' * 30}*l{n - 1}{']' * 30}" for n in range(1, 5)]
    path = write("\n".join(levels) + "\n")
    (error,) = read_yaml(path).errors
    assert (error.line, error.message) == (
        4, f"aliases nest this value more than {MAX_DEPTH} levels deep (the limit)"
    )


def test_billion_laughs_stops_before_expanding(write: Write) -> None:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 30)]
    path = write("\n".join(lines) + "\n")
    tracemalloc.start()
    errors = read_yaml(path).errors
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = f"aliases repeat more than {MAX_ALIAS_VALUES} values in all (the limit)"
    assert errors == [LoadError(path, 6, 10, "", message)]
    assert peak < 20 * 1024 * 1024


def test_aliases_below_the_limit_expand(write: Write) -> None:
    path = write('a: &a [x, y]\nb: [*a, *a]\nc: {<<: {k: 1}, j: *a}\n')
    (document,) = read_yaml(path).documents
    assert document.data == {"a": ["x", "y"], "b": [["x", "y"], ["x", "y"]], "c": {"j": ["x", "y"], "k": 1}}


def test_an_anchor_defined_twice_is_an_error(write: Write) -> None:
    path = write("a: &v 1\nb: &v 2\nc: *v\n")
    message = "anchor &v is defined twice (first at line 1)"
    assert read_yaml(path).errors == [LoadError(path, 2, 4, "", message)]


def test_ruamel_warnings_become_the_files_own_errors(
    write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("%YAML 1.1\n---\na: 1e3\n")
    (error,) = read_yaml(path).errors
    assert (error.file, error.line) == (path, 3)
    assert error.message.startswith("YAML warning: In YAML 1.1 floating point values should have a dot")
    captured = capsys.readouterr()
    assert captured.err == captured.out == ""


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    message = "cannot read file: it is a named pipe (FIFO), not a regular file"
    assert read_yaml(fifo).errors == [LoadError(fifo, 1, 1, "", message)]
    assert read_yaml(tmp_path).errors == [
        LoadError(tmp_path, 1, 1, "", "cannot read file: it is a directory, not a regular file")
    ]
    device = Path("/dev/zero")
    message = "cannot read file: it is a character device, not a regular file"
    assert read_yaml(device).errors == [LoadError(device, 1, 1, "", message)]


def test_a_file_over_the_size_limit_is_not_parsed(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * MAX_FILE_BYTES + "\n")
    assert read_yaml(path).errors == [LoadError(path, 1, 1, "", "file is larger than the 4 MiB limit")]
