"""`toolproof lint`: check a server's tool schemas against the rules agents depend on."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from toolproof.cli.probing import COMMON_DIFFERENCES, add_server_options
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.probe.lint_rules import Finding
    from toolproof.run.interrupt import Interrupted

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
    add_server_options(parser, required=False)
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
    from toolproof.cli.probing import connect_spec, usage

    if (args.server is None) == (args.tools_file is None):
        return usage(_NAME, "give either --server or --tools-file")
    if args.tools_file is not None and (args.call_tools or args.detect_nondeterminism):
        return usage(_NAME, "--call-tools and --detect-nondeterminism need --server")
    try:
        spec = connect_spec(args) if args.server is not None else None
    except UsageError as error:
        return usage(_NAME, str(error))
    started = time.perf_counter()
    gathered = _gather(args, spec)
    if isinstance(gathered, int):
        return gathered
    found, stopped = gathered
    status = _report(args, spec, found, time.perf_counter() - started)
    return stopped.report(f"toolproof {_NAME}") if stopped is not None else status


Gathered: TypeAlias = "tuple[list[dict[str, Any]], list[Finding], list[str]]"
"""The tools, every finding, and the lines the server wrote to stdout that are not MCP."""


def _gather(args: argparse.Namespace, spec: ConnectSpec | None) -> tuple[Gathered, Interrupted | None] | int:
    """What lint found (so far, when a signal stopped it, with that stop), or the exit status after saying why
    there is nothing."""
    from toolproof.cli.probing import usage

    skip = frozenset(code.strip().upper() for code in args.skip_rules.split(",") if code.strip())
    if spec is None:
        from toolproof.probe.lint_rules import grade, lint_tools
        from toolproof.probe.tools import ToolsFileError, load_tools_file

        try:
            tools = load_tools_file(args.tools_file)
        except ToolsFileError as error:
            return usage(_NAME, str(error))
        return (tools, grade(lint_tools(tools, skip), skip=skip, strict=args.strict), []), None
    from toolproof.cli.probing import cannot_connect, run_async
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted

    # a skipped rule never calls a tool
    calls = args.call_tools and "E301" not in skip, args.detect_nondeterminism and "W107" not in skip
    listed: list[dict[str, Any]] = []
    found: list[Finding] = []
    stray: list[str] = []

    async def probe() -> None:
        """Start the server, and load the rules while it boots; fill `listed`, `found` and `stray` as they
        come, so a stop by signal keeps them."""
        import threading

        import anyio.to_thread

        from toolproof.probe.connection import Prober

        loading = threading.Thread(target=_load_rules, name="toolproof-lint-rules", daemon=True)
        loading.start()
        async with Prober(spec) as prober:
            try:
                listed.extend(await prober.list_tools())
                await anyio.to_thread.run_sync(loading.join)
                from toolproof.probe.lint import CallRules, call_findings
                from toolproof.probe.lint_rules import lint_tools

                rules = CallRules(calls[0], args.max_response_kb, calls[1])
                found.extend(lint_tools(listed, skip))
                await call_findings(prober, listed, rules, found)
            finally:
                stray.extend(prober.stray_stdout)

    try:
        outcome = run_async(probe)
    except RequestFailed as error:
        return cannot_connect(_NAME, error.failure.message, error.stderr)
    from toolproof.probe.lint_rules import grade

    stopped = outcome if isinstance(outcome, Interrupted) else None
    return (listed, grade(found, skip=skip, strict=args.strict), stray), stopped


def _load_rules() -> None:
    """Import the rules and the results they become (run in a worker thread while the server starts)."""
    import toolproof.probe.lint
    import toolproof.probe.lint_rules  # noqa: F401


def _report(args: argparse.Namespace, spec: ConnectSpec | None, gathered: Gathered, duration_s: float) -> int:
    from toolproof.cli.probing import Reporter, say, secrets, source_path, terminal_stream
    from toolproof.core.gofmt import counted
    from toolproof.probe.lint import lint_results, stdout_result
    from toolproof.probe.lint_rules import Severity

    tools, findings, stray = gathered
    source = source_path(spec) if spec is not None else args.tools_file
    results = lint_results(tools, findings, source, threshold=args.threshold)
    if stray:
        results.append(stdout_result(stray, source))
    if args.fix:
        _print_fixes(args, tools, findings)
        return ExitCode.FAILED if any(result.failure for result in results) else ExitCode.OK
    reporter = Reporter(args, f"toolproof lint {source}", secrets(spec))
    reporter.start(len(results))
    reporter.all(results)
    status = reporter.end(duration_s)
    errors = sum(1 for finding in findings if finding.severity is Severity.ERROR)
    say(
        f"lint: {counted(len(tools), 'tool')}, {counted(errors, 'error')}, "
        f"{counted(len(findings) - errors, 'warning')}",
        terminal_stream(args),
    )
    return status


def _print_fixes(args: argparse.Namespace, tools: list[dict[str, Any]], findings: list[Finding]) -> None:
    from toolproof.cli.probing import say
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_best_effort
    from toolproof.probe.fixes import tool_patches

    patches = tool_patches(tools, findings)
    if args.json:
        document = {
            "tools": len(tools),
            "findings": len(findings),
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
