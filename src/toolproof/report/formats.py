"""The table of report formats written to files: one `Format` row each (its name, flag, help and how its sink
is made). The report flags of every command (`cli/options.py`) and `api/reports.py` `Reports.sink` are built
from `FORMATS`, so a new output format is its sink module and one row here. A row's factory imports its sink
module only when the format is asked for."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolproof.load.shards import Sharded
    from toolproof.model.events import Sink
    from toolproof.report.baseline import Entry


@dataclass(frozen=True)
class Context:
    """What a format's sink may use besides its file: the secret values to mask, the run's title (None: the
    report's own default), the loaded baseline to compare with, and the shard the run is."""

    secrets: frozenset[str] = frozenset()
    title: str | None = None
    baseline: Mapping[str, Entry] | None = None
    sharded: Sharded | None = None

    def baseline_copy(self) -> dict[str, Entry] | None:
        return None if self.baseline is None else dict(self.baseline)


SinkFactory = Callable[[str | Path, Context], "Sink"]
"""Makes a format's sink writing to a destination (a path; "-" for stdout where the format allows it)."""


@dataclass(frozen=True)
class Format:
    """One output format. `name` is its `Reports` destination key (and the flag's argparse dest), `flag` its
    command-line option, `help` the option's help (`FILE` names the destination); `stdout`: a bare flag or
    "-" writes it to stdout (in the commands that allow that)."""

    name: str
    flag: str
    help: str
    make: SinkFactory
    stdout: bool = False


def _json(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.json_report import JsonReport

    return JsonReport(
        str(destination),
        secrets=context.secrets,
        baseline=context.baseline_copy(),
        title=context.title,
        sharded=context.sharded,
    )


def _junit(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.junit import JUnitReport

    return JUnitReport(Path(destination), secrets=context.secrets)


def _markdown(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.markdown import MarkdownReport

    title = context.title or "toolproof"
    return MarkdownReport(destination, context.secrets, title=title, baseline=context.baseline_copy())


def _html(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.html import HtmlReport

    return HtmlReport(destination, context.secrets, baseline=context.baseline_copy(), title=context.title)


def _badge(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.badge import BadgeReport

    return BadgeReport(destination)


def _baseline(destination: str | Path, context: Context) -> Sink:
    from toolproof.report.baseline import BaselineWriter

    return BaselineWriter(destination, context.secrets)


FORMATS: tuple[Format, ...] = (
    Format("json", "--json", "write a JSON report to FILE", _json, stdout=True),
    Format("junit", "--junit", "write a JUnit XML report", _junit),
    Format(
        "markdown",
        "--markdown",
        "append a Markdown report to FILE (also to $GITHUB_STEP_SUMMARY when it is set)",
        _markdown,
    ),
    Format("html", "--html", "write a self-contained HTML report", _html),
    Format("badge", "--badge", "write a shields.io endpoint badge", _badge),
    Format("save_baseline", "--save-baseline", "save this run as a baseline", _baseline),
)
"""Every output format, in the order their sinks get each event."""
