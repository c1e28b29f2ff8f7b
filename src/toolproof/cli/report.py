"""`toolproof report`: turn a saved JSON report into the HTML page, e.g. from a CI artifact."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "report",
        help="render a saved JSON report (--json FILE) as an HTML page",
        description="Render a JSON report written by --json as the self-contained HTML page --html writes. "
        "Exit status: 0 written, 2 the report cannot be read or the page cannot be written.",
    )
    parser.add_argument("report", type=Path, metavar="REPORT.json", help="a JSON report written by --json")
    parser.add_argument("--html", type=Path, required=True, metavar="OUT", help="where to write the page")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from toolproof.core.writing import write_atomic
    from toolproof.report.html import ReportFormatError, render_saved

    try:
        page = render_saved(json.loads(args.report.read_text(encoding="utf-8")), str(args.report))
    except OSError as error:
        return _fail(f"{args.report}: {error.strerror or error}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return _fail(f"{args.report}: not JSON: {error}")
    except ReportFormatError as error:
        return _fail(str(error))
    try:
        write_atomic(args.html, page)
    except OSError as error:
        return _fail(f"{args.html}: {error.strerror or error}")
    return 0


def _fail(message: str) -> int:
    print(f"toolproof report: {message}", file=sys.stderr)
    return 2
