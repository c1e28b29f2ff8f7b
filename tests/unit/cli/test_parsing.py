"""Options are never abbreviated; a command's own usage on its errors; mcp-assert's extras named."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.cli import build_parser, main
from toolproof.cli.mcp_assert_flags import COMMANDS, FLAGS


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(list(argv))
    assert stopped.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        (["run", "suite", "--fixt", "dir"], "--fixt"),
        (["run", "suite", "--tim", "5s"], "--tim"),
        (["check", "cases", "--trace", "t.jsonl", "--by"], "--by"),
        (["eval", "cases", "--rep", "dir"], "--rep"),
    ],
)
def test_a_prefix_is_not_the_option(capsys: pytest.CaptureFixture[str], argv: list[str], prefix: str) -> None:
    err = usage_error(capsys, *argv)
    assert f"unrecognized arguments: {prefix}" in err
    assert f"usage: toolproof {argv[0]}" in err


def test_an_unknown_flag_after_a_command_prints_that_commands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = usage_error(capsys, "run", "suite", "--bogus")
    assert err.startswith("usage: toolproof run ")
    assert err.rstrip().endswith("toolproof run: error: unrecognized arguments: --bogus")


def test_an_mcp_assert_flag_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "run", "--suite", "s", "--fix")  # not --fixture either
    assert "--fix is an mcp-assert flag `toolproof run` does not have" in err
    assert "usage: toolproof run" in err
    err = usage_error(capsys, "run", "--suite", "s", "-fix")  # Go's single dash
    assert "--fix is an mcp-assert flag" in err


def test_an_mcp_assert_flag_of_an_authoring_command_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "watch", "--suite", "x", "--interval", "2s")  # every mcp-assert command exists
    assert "--interval is an mcp-assert flag `toolproof watch` does not have" in err


def test_the_table_names_only_what_toolproof_lacks() -> None:
    """When a command or flag is added, its row in cli/mcp_assert_flags.py must go."""
    _, commands = build_parser()
    assert not set(COMMANDS) & set(commands), "remove these rows from COMMANDS in cli/mcp_assert_flags.py"
    for command, flag in FLAGS:
        known = commands[command]._option_string_actions
        assert flag not in known, f"remove ({command!r}, {flag!r}) from FLAGS in cli/mcp_assert_flags.py"


def test_every_parser_refuses_abbreviations() -> None:
    parser, commands = build_parser()
    assert not parser.allow_abbrev
    assert all(not command.allow_abbrev for command in commands.values())


@pytest.mark.parametrize("content", ["", "# only a comment\n", "~\n", "---\n", "---\n---\n"])
def test_a_file_with_no_case_exits_5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(content)
    assert main(["run", str(suite)]) == 5
    assert "toolproof run: nothing ran: no case found (exit status 5)" in capsys.readouterr().err


def test_an_empty_directory_exits_5(tmp_path: Path) -> None:
    assert main(["run", str(tmp_path), "-q"]) == 5
    assert main(["run", str(tmp_path), "--collect-only"]) == 5
    assert main(["check", str(tmp_path), "--trace", str(tmp_path), "-q"]) == 5
    assert main(["eval", str(tmp_path), "-q"]) == 5


def test_schema_without_a_format_does_not_call_its_optional_files_required(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = usage_error(capsys, "schema")
    assert "the following arguments are required: FORMAT\n" in err
