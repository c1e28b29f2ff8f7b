"""`toolproof watch`: run a suite, then rerun the affected cases whenever a suite file, the fixture or an
--also path changes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.cli.author_options import (
    UsageError,
    add_command,
    add_server_options,
    add_suite_options,
    fail,
    given_server,
    load_items,
    server_options,
    suite_paths,
    with_server,
)
from toolproof.cli.options import add_output_options, add_subscription_wait_option, duration_arg

if TYPE_CHECKING:
    from toolproof.model.server_config import ServerConfig
    from toolproof.sources.options import ServerOptions


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        commands,
        "watch",
        help="rerun the affected cases whenever a suite file, the fixture or an --also path changes",
        description="Run the suite, then watch it: a changed suite file (in any subdirectory) reruns its "
        "cases; a change in the fixture or in an --also path (e.g. the server's source) reruns every case. "
        "Runs until stopped; exit status 128 + the signal number (130 after Ctrl-C), 2 on a usage error.",
    )
    add_suite_options(parser)
    add_server_options(parser, server_help="override every case's server: a command, or a URL (--transport)")
    add_subscription_wait_option(parser)
    parser.add_argument(
        "--also",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="another file or directory whose changes rerun every case (may repeat)",
    )
    parser.add_argument(
        "--debounce",
        type=duration_arg,
        default=0.3,
        metavar="DURATION",
        help="changes within this time are taken together (default 300ms)",
    )
    parser.add_argument("--output", type=Path, metavar="FILE", help="a JSON report of each run (as --json)")
    add_output_options(parser)
    parser.set_defaults(handler=watch)


class _Runner:
    def __init__(self, args: argparse.Namespace, options: ServerOptions, server: ServerConfig | None) -> None:
        self.args, self.options, self.server = args, options, server

    async def run(self, paths: list[Path]) -> None:
        from toolproof.cli.options import reports
        from toolproof.model.server_case import Case
        from toolproof.run.secrets import run_secrets
        from toolproof.run.server_suite import run_server_suite

        try:
            items = with_server(load_items(paths), self.server)
        except UsageError as error:
            print(f"toolproof watch: {error}", file=sys.stderr)
            return
        cases = [item for item in items if isinstance(item, Case)]
        sink = reports(self.args).sink(run_secrets([case.server for case in cases], self.options.environ))
        await run_server_suite(items, self.options, jobs=self.args.jobs, sink=sink)
        sys.stdout.flush()


def watch(args: argparse.Namespace) -> int:
    from toolproof.author.watching import Watched
    from toolproof.author.watching import watch as watch_files
    from toolproof.core.sanitize import clean
    from toolproof.run.interrupt import run_until_signal

    if args.output is not None and args.json is None:
        args.json = str(args.output)
    try:
        paths = suite_paths(args)
        options = server_options(args)
        server = given_server(args)
        missing = [path for path in [*paths, *args.also] if not path.exists()]
        if missing:
            raise UsageError(f"{missing[0]}: no such file or directory")
    except UsageError as error:
        return fail("watch", error)
    reports = {Path(path).resolve() for path in (args.json, args.junit) if path and path != "-"}
    watched = Watched(paths, options.fixture, args.also, frozenset(reports))
    runner = _Runner(args, options, server)

    async def rerun(files: list[Path] | None, changed: list[Path]) -> None:
        shown = ", ".join(str(path) for path in changed[:3]) + (" ..." if len(changed) > 3 else "")
        scope = "every case" if files is None else f"the cases of {len(files)} file(s)"
        print(clean(f"\n-- changed: {shown}; rerunning {scope}"), flush=True)
        await runner.run(paths if files is None else files)

    async def main() -> None:
        await runner.run(paths)
        print("-- watching for changes (Ctrl-C to stop)", flush=True)
        await watch_files(watched, rerun, debounce_ms=max(1, round(args.debounce * 1000)))

    outcome = run_until_signal(main)
    return outcome.report("toolproof watch") if outcome is not None else 0
