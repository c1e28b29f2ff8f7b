"""`toolproof lint`: check a server's tool schemas against the rules agents depend on."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.api import Reports
    from toolproof.api.lint import LintResult

_NAME = "lint"

DIFFERENCES = (
    "Differences from mcp-assert 0.12.3: E105 is reported once per field and consuming tool (mcp-assert "
    "repeats it); E107 is shown as the warning it is, once per group of tools that feed each other in a "
    "circle; E112 also flags access_token, refresh_token, api_token and a token its description does not "
    "call a link, reference, page or CSRF token; a skipped rule never runs; W105 is reported once per tool; "
    "a warning is a passing result that carries it (it never fails the run), and so are lines the server "
    "writes to stdout that are not MCP; --fix prints an RFC 6902 JSON Patch per tool and exits as lint does "
    "(mcp-assert: always 0); --tools-file lints a saved tools/list result without a server. "
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        _NAME,
        help="check a server's tool schemas (24 rules, mcp-assert's codes)",
        description="List the server's tools (or read --tools-file) and check each definition against 24 "
        "rules: errors (E1xx, E301) fail, warnings (W1xx) are reported. Exit status: 0 no errors, 1 errors "
        "(or more findings than --threshold), 2 usage error or the server cannot be reached. ",
        epilog=DIFFERENCES + COMMON_DIFFERENCES,
    )
    add_server_options(parser, required=False, several=True)
    parser.add_argument(
        "--tools-file", type=Path, metavar="FILE", help="lint a saved tools/list result instead of a server"
    )
    parser.add_argument(
        "--threshold",
        type=int,
        default=0,
        metavar="N",
        help="fail when there are more than N findings (0: off)",
    )
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument(
        "--skip-rules", default="", metavar="CODES", help="codes to leave out, e.g. E107,W112"
    )
    parser.add_argument(
        "--call-tools", action="store_true", help="also call each non-destructive tool (E301 response size)"
    )
    parser.add_argument(
        "--max-response-kb", type=int, default=100, metavar="KB", help="E301 limit (default 100)"
    )
    parser.add_argument(
        "--detect-nondeterminism",
        action="store_true",
        help="call each non-destructive tool 3 times; differing outputs are W107",
    )
    parser.add_argument(
        "--fix", action="store_true", help="print the suggested schema edits as a JSON Patch per tool"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof import api
    from toolproof.cli.probing import connect_specs, probe_status, usage

    try:
        if args.fix and args.server is not None and len(args.server) > 1:
            raise UsageError("--fix suggests edits to one server's tools: give one --server")
        specs = connect_specs(args) if args.server is not None else None
        result = api.lint(
            specs,
            tools_file=args.tools_file,
            skip_rules=args.skip_rules.split(","),
            strict=args.strict,
            threshold=args.threshold,
            call_tools=args.call_tools,
            max_response_kb=args.max_response_kb,
            detect_nondeterminism=args.detect_nondeterminism,
            reports=None if args.fix else _reports(args),
        )
    except UsageError as error:
        return usage(_NAME, str(error))
    if result.unreached is None or result.results:
        if args.fix:
            _print_fixes(args, result)
        else:
            _summary(args, result)
    return probe_status(_NAME, result)


def _reports(args: argparse.Namespace) -> Reports:
    from toolproof.cli.options import reports

    return reports(args)


def _summary(args: argparse.Namespace, result: LintResult) -> None:
    from toolproof.cli.probing import say, terminal_stream
    from toolproof.core.gofmt import counted
    from toolproof.probe.lint_rules import Severity

    errors = sum(1 for finding in result.findings if finding.severity is Severity.ERROR)
    say(
        f"lint: {counted(len(result.tools), 'tool')}, {counted(errors, 'error')}, "
        f"{counted(len(result.findings) - errors, 'warning')}",
        terminal_stream(args),
    )


def _print_fixes(args: argparse.Namespace, result: LintResult) -> None:
    from toolproof.cli.probing import say
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_best_effort

    patches = result.patches
    if args.json:
        document = {
            "tools": len(result.tools),
            "findings": len(result.findings),
            "fixable": len(patches),
            "patches": patches,
        }
        text = json.dumps(document, indent=2, ensure_ascii=args.json == "-") + "\n"
        if args.json == "-":
            say(text.rstrip("\n"))
        else:
            write_best_effort(args.json, text)
        return
    if not patches:
        say("lint --fix: nothing to fix automatically")
        return
    for tool, patch in patches.items():
        say(f"{clean(tool)}:")
        say(json.dumps(patch, indent=2))  # ASCII only: no server text can reach the terminal raw
