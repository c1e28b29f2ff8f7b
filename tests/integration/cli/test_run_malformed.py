"""One directory holding every class of malformed file that once crashed or hung a run, among good files: the
good ones run and pass, each bad one is an ERROR naming its file, line and field, in one run, no traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"



def good(name: str) -> str:
    return (
        f"name: {name}\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        "assert: {tool: echo, args: {text: fine}, expect: {equals: fine}}\n"
    )


STUB = "server: {command: srv}\n"


def laughs(levels: int) -> str:
    """The "billion laughs": each anchor repeats the one before nine times."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


MALFORMED = {
    # file: (text, line, field, message)
    "tag_on_list.yaml": (
        f"name: !!str [a]\n{STUB}assert: {{tool: t}}\n", 1, "name", "the YAML tag !!str does not fit a list"
    ),
    "bad_int.yaml": (f"name: i\n{STUB}timeout: !!int abc\nassert: {{tool: t}}\n", 3, "timeout",
                     "'abc' is not a valid !!int"),
    "bad_bool.yaml": (f"name: b\n{STUB}assert: {{tool: t, expect: {{is_error: !!bool maybe}}}}\n", 3,
                      "assert.expect.is_error", "'maybe' is not a valid !!bool"),
    "bad_float.yaml": (f"name: f\n{STUB}assert: {{tool: t, args: {{v: !!float x}}}}\n", 3, "assert.args.v",
                       "'x' is not a valid !!float"),
    "deep.yaml": (f"name: d\n{STUB}assert: {{tool: t, args: {{v: {'[' * 300}{']' * 300}}}}}\n", 3, "",
                  "the document nests more than 100 levels deep (the limit)"),
    "laughs.yaml": (f"name: l\n{STUB}{laughs(12)}assert: {{tool: t}}\n", 8, "",
                    "aliases repeat more than 100000 values in all (the limit)"),
    "huge.yaml": (f"name: h\n{STUB}assert: {{tool: t}}\n# {'x' * (4 * 1024 * 1024)}\n", 1, "",
                  "file is larger than the 4 MiB limit"),
    "bad_url.yaml": ('name: u\nserver: {transport: http, url: "http://[::1"}\nassert: {tool: t}\n', 2,
                     "server.url", "not a valid URL: Invalid IPv6 URL"),
    "stdio_url.yaml": ('name: s\nserver: {command: srv, url: "http://127.0.0.1:1/mcp"}\nassert: {tool: t}\n',
                       2, "server.url", "a url needs transport: http or sse (a stdio server is started by "
                       "its command)"),
    "flow_duplicate.yaml": ("name: dup\nserver: {command: a, command: b}\nassert: {tool: t}\n", 2,
                            "server.command", "duplicate key (first written at line 2)"),
    "not_contains_number.yaml": (f"name: n\n{STUB}assert: {{tool: t, expect: {{not_contains: 42}}}}\n", 3,
                                 "assert.expect.not_contains", "Input should be a valid list, got 42"),
    "file_not_exists_number.yaml": (
        f"name: e\n{STUB}assert: {{tool: t, expect: {{file_not_exists: 42}}}}\n", 3,
        "assert.expect.file_not_exists", "Input should be a valid list, got 42",
    ),
    "contains_number.yaml": (f"name: c\n{STUB}assert: {{tool: t, expect: {{contains: 42}}}}\n", 3,
                             "assert.expect.contains", "Input should be a valid list, got 42"),
    "anchor_twice.yaml": (f"name: a\n{STUB}x: &v 1\ny: &v 2\nassert: {{tool: t, args: {{v: *v}}}}\n", 4, "",
                          "anchor &v is defined twice (first at line 3)"),
}
FIFO = "cannot read file: it is a named pipe (FIFO), not a regular file"


def test_a_directory_of_every_malformed_class_runs_its_good_files(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    texts = {name: text for name, (text, *_) in MALFORMED.items()}
    texts |= {"00_good.yaml": good("first good"), "zz_good.yaml": good("last good")}
    texts["two_documents.yaml"] = good("good beside a bad one") + "---\nname: !!int x\n" + STUB
    suite = write_suite(texts)
    fifo = suite.parent / "fifo.yaml"  # named: the walker leaves special files inside a directory alone
    os.mkfifo(fifo)

    outcome = toolproof(str(suite), str(fifo))

    assert "Traceback" not in outcome.out + outcome.err
    assert "<unicode string>" not in outcome.out + outcome.err
    assert outcome.status == 2
    passed = {r["name"] for r in outcome.report["results"] if r["status"] == "PASS"}
    assert passed == {"first good", "last good", "good beside a bad one"}
    errors = {Path(r["file"]).name: r for r in outcome.report["results"] if r["status"] == "ERROR"}
    assert set(errors) == {*MALFORMED, "two_documents.yaml", "fifo.yaml"}
    assert errors["fifo.yaml"]["failure"]["message"] == f"{fifo}:1:1: {FIFO}"
    for name, (_, line, field, message) in MALFORMED.items():
        failure = errors[name]["failure"]
        assert failure["kind"] == "config", name
        assert failure["message"].startswith(f"{suite / name}:{line}:"), (name, failure["message"])
        assert failure["message"].endswith(f"{field}: {message}" if field else message), (name, failure)
    assert errors["two_documents.yaml"]["failure"]["message"].endswith("name: 'x' is not a valid !!int")


def test_a_url_malformed_once_expanded_is_a_configuration_error(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BAD_URL", "http://[::1")
    text = "name: u\nserver: {transport: http, url: '${BAD_URL}'}\nassert: {tool: t}\n"
    suite = write_suite({"url.yaml": text})
    outcome = toolproof(str(suite))
    assert "Traceback" not in outcome.out + outcome.err
    assert outcome.status == 1
    failure = outcome.result("u")["failure"]
    assert failure["kind"] == "config"
    assert failure["message"] == "server.url: not a valid URL: Invalid IPv6 URL"


def test_file_expectations_see_a_directory_or_fifo_as_there_but_not_a_file(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    directory, fifo = tmp_path / "a_directory", tmp_path / "a_fifo"
    directory.mkdir()
    os.mkfifo(fifo)
    call = "assert: {{tool: echo, args: {{text: fine}}, expect: {{{check}}}}}\n"
    server = f"server: {{command: {sys.executable}, args: [{TINY}]}}\n"
    suite = write_suite({
        "dir_not_exists.yaml": f"name: dir\n{server}" + call.format(check=f"file_not_exists: [{directory}]"),
        "fifo_contains.yaml": f"name: fifo\n{server}" + call.format(check=f"file_contains: {{{fifo}: x}}"),
        "gone.yaml": f"name: gone\n{server}" + call.format(check=f"file_not_exists: [{tmp_path / 'gone'}]"),
    })
    outcome = toolproof(str(suite))
    assert outcome.verdicts() == {"dir": "FAIL", "fifo": "FAIL", "gone": "PASS"}
    assert outcome.result("dir")["failure"]["message"] == (
        f"file_not_exists: {directory} exists after the call (a directory)"
    )
    assert outcome.result("fifo")["failure"]["message"] == (
        f"file_contains: {fifo} exists after the call but cannot be read as a file (a named pipe (FIFO))"
    )
