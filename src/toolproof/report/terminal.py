"""The terminal report: one line per case in file order, failure details, a pytest-like summary."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, TextIO

from toolproof.core.sanitize import Scrubber
from toolproof.core.writing import silence, warn
from toolproof.model.events import (
    CaseFinished,
    CaseStarted,
    Event,
    LoadFailed,
    RunFinished,
    RunStarted,
    RunStopped,
    TrialFinished,
    Warned,
)
from toolproof.model.result import CaseResult, Status, TrialStats
from toolproof.report.describe import (
    case_ids,
    display_name,
    failure_lines,
    format_duration,
    one_line,
    shorten,
    shown_failure,
    stderr_tail,
    value_text,
)
from toolproof.report.ordering import InOrder
from toolproof.report.summary import Summary

if TYPE_CHECKING:
    from rich.console import Console

    from toolproof.report.progress import StatusLine

STDERR_LINES = 10
VALUE_CHARS = 500
VALUE_LINES = 10

_MARKS = {Status.PASS: "✓", Status.FAIL: "✗", Status.SKIP: "○", Status.ERROR: "!"}
_STYLES = {Status.PASS: "green", Status.FAIL: "red", Status.SKIP: "yellow", Status.ERROR: "bold red"}
_WARNED = ("⚠", "WARN", "yellow")  # the mark, word and style of a case that passed with warnings
_WORD_WIDTH = max(len(status.value) for status in Status)
_RICH_STRIPS = dict.fromkeys((7, 8, 11, 12, 13))  # the control characters rich drops from any text

Piece = tuple[str, str]
"""Text and its rich style ("" for none): a line of the report is a sequence of pieces."""


class Verbosity(IntEnum):
    QUIET = -1  # failures and the summary only
    NORMAL = 0
    VERBOSE = 1  # also phase timings, each step sent and answered, failure details in full


def use_colour(stream: TextIO, env: Mapping[str, str]) -> bool:
    """No colour under a non-empty NO_COLOR; colour under a non-empty FORCE_COLOR; else only on a TTY."""
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return env.get("TERM") != "dumb" and _isatty(stream)


class _Output:
    """Where the report's lines go, through rich when coloured. Plain, a line without tabs or trailing
    whitespace is written as it is, which is what rich prints for it (so rich, slow to import, is loaded only
    for colour or such a line). Once the reader has gone (`| head`), it goes quiet instead of exiting."""

    def __init__(self, stream: TextIO, *, colour: bool) -> None:
        self._stream = stream
        self._colour = colour
        self._console: Console | None = None
        self._quiet = False

    def line(self, pieces: Sequence[Piece] = ()) -> None:
        if self._quiet:
            return
        text = "".join(text for text, _ in pieces).translate(_RICH_STRIPS)
        if self._colour or any("\t" in line or line[-1:].isspace() for line in text.split("\n")):
            self._rich_line(pieces)
            return
        try:
            self._stream.write(text + "\n")
            self._stream.flush()
        except BrokenPipeError:
            self._go_quiet()

    def _rich_line(self, pieces: Sequence[Piece]) -> None:
        from rich.text import Text

        if self._console is None:
            self._console = _rich_console(self._stream, self._colour, self._go_quiet)
        self._console.print(Text.assemble(*pieces))

    def _go_quiet(self) -> None:
        self._quiet = True
        silence(self._stream)


def _rich_console(stream: TextIO, colour: bool, on_broken_pipe: Callable[[], None]) -> Console:
    """A rich console on `stream` that calls `on_broken_pipe` when its reader goes away."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            on_broken_pipe()

    return _Console(
        file=stream,
        force_terminal=colour,
        color_system="standard" if colour else None,
        no_color=not colour,
        force_interactive=False,
        legacy_windows=False,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
    )


class TerminalReport:
    """Prints each case as it finishes, in file order, and a summary at the end.

    Plain text (`PASS`/`FAIL`/`SKIP`/`ERROR`, no escape codes) unless `use_colour` says otherwise, then
    coloured marks `✓ ✗ ○ !`. When stderr is a terminal (and TERM is not dumb) a transient `[done/total]
    name` status line shows there. All server-provided text is cleaned of escapes and secrets are masked.
    A case run as several trials (which may overlap) shows its wall time, from its start to its last trial's
    end, measured with `clock`; the result's own duration is the trials' sum. Once the reader of `stdout`
    has gone (a closed pipe), nothing more is printed to it and the run carries on.
    """

    def __init__(
        self,
        *,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        verbosity: Verbosity = Verbosity.NORMAL,
        secrets: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        out = sys.stdout if stdout is None else stdout
        err = sys.stderr if stderr is None else stderr
        environ = os.environ if env is None else env
        colour = use_colour(out, environ)
        self._out = _Output(out, colour=colour)
        self._marks = colour and _can_encode(out, "".join(_MARKS.values()) + _WARNED[0])
        self._indent = " " * (2 if self._marks else _WORD_WIDTH + 1)
        self._status = _status_line(err) if environ.get("TERM") != "dumb" and _isatty(err) else None
        self._err = err
        self._verbosity = verbosity
        self._scrub = Scrubber(secrets)
        self._order: InOrder[tuple[CaseResult, float | None]] = InOrder()  # each with its wall time
        self._running: dict[int, str] = {}
        self._clock = clock
        self._started: dict[int, float] = {}
        self._finished = 0
        self._total = 0
        self._printed = False

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._order, self._running, self._finished, self._total = InOrder(), {}, 0, event.total
            self._started, self._printed = {}, False
        elif isinstance(event, CaseStarted):
            self._running[event.index] = event.name
            self._started[event.index] = self._clock()
            self._total = event.total
        elif isinstance(event, CaseFinished):
            self._running.pop(event.index, None)
            self._finished += 1
            started = self._started.pop(event.index, None)
            wall = None if started is None else self._clock() - started
            self._emit(self._order.add(event.index, (event.result, wall)))
        elif isinstance(event, RunFinished):
            if self._status:
                self._status.clear()
            self._emit(self._order.rest())
            self._end(event)
            return
        else:
            self._note(event)
        self._show_status()

    def _note(self, event: Event) -> None:
        """Warnings and load failures on stderr as they come; a stop, and in verbose mode each trial's
        verdict, among the cases."""
        if self._status:
            self._status.clear()
        if isinstance(event, Warned):
            warn(self._scrub(event.message), self._err)
        elif isinstance(event, LoadFailed):
            for problem in event.problems:
                warn(self._scrub(f"load error: {problem}"), self._err)
        elif isinstance(event, RunStopped):
            text = f"stopped {self._line(event.reason)}; {event.unfinished} of {self._total} cases not run"
            self._out.line([(text, "yellow")])
            self._printed = True
        elif isinstance(event, TrialFinished) and self._verbosity >= Verbosity.VERBOSE:
            result = event.result
            text = f"trial {event.trial}/{event.trials} of {self._line(result.name)}: {result.status.value}"
            self._out.line([(text, "dim")])
            self._printed = True

    def _emit(self, results: Iterable[tuple[CaseResult, float | None]]) -> None:
        for line in (line for result, wall in results for line in self._case(result, wall)):
            if self._status:
                self._status.clear()
            self._out.line(line)
            self._printed = True

    def _show_status(self) -> None:
        if self._status:
            name = next(reversed(self._running.values()), "")
            self._status.show(self._line(f"[{self._finished}/{self._total}] {name}").rstrip())

    def _mark(self, status: Status, *, warned: bool = False) -> Piece:
        if warned and status is Status.PASS:
            mark, word, style = _WARNED
            return (mark if self._marks else word.ljust(_WORD_WIDTH)), style
        text = _MARKS[status] if self._marks else status.value.ljust(_WORD_WIDTH)
        return text, _STYLES[status]

    def _case(self, result: CaseResult, wall: float | None) -> list[list[Piece]]:
        failed = result.status in (Status.FAIL, Status.ERROR)
        if self._verbosity <= Verbosity.QUIET and not failed:
            return []
        head = [self._mark(result.status, warned=bool(result.warnings)), (" ", ""), (self._name(result), "")]
        if result.status is Status.SKIP:
            if result.reason:
                head.append((f"  ({self._line(result.reason)})", "dim"))
        else:
            head.append((f"  {_took(result, wall)}", "dim"))
        if result.trials is not None:
            head.append((f"  {trials_line(result.trials)}", "dim"))
        lines = [head]
        if self._verbosity >= Verbosity.VERBOSE and result.phases:
            phases = ", ".join(f"{name} {format_duration(s)}" for name, s in result.phases.items())
            lines.append(self._indented(f"phases: {self._line(phases)}", "dim"))
        if self._verbosity >= Verbosity.VERBOSE and result.shared_server is not None:
            lines.append(self._indented(f"shared server #{result.shared_server}", "dim"))
        if self._verbosity >= Verbosity.VERBOSE and result.protocol is not None:
            lines.append(self._indented(f"protocol {self._line(result.protocol)}", "dim"))
        lines.extend(self._indented(f"warning: {self._line(text)}", "yellow") for text in result.warnings)
        if self._verbosity >= Verbosity.VERBOSE:
            lines.extend(self._steps(result))
        if failed:
            lines.extend(self._details(result))
        return lines

    def _details(self, result: CaseResult) -> list[list[Piece]]:
        lines: list[list[Piece]] = []
        failure = shown_failure(result)
        if failure:
            full = self._verbosity >= Verbosity.VERBOSE
            detail = failure_lines(
                failure,
                self._scrub,
                max_chars=None if full else VALUE_CHARS,
                max_lines=None if full else VALUE_LINES,
                details=full,
            )
            lines.append(self._indented(detail[0], _STYLES[result.status]))
            lines.extend(self._indented(line) for line in detail[1:])
        lines.append(self._indented(f"at {self._line(f'{result.file}:{result.line}')}", "dim"))
        tail, total = stderr_tail(self._scrub(result.stderr), STDERR_LINES)
        if tail:
            shown = "" if total == len(tail) else f" (last {len(tail)} of {total} lines)"
            heading = f"server stderr{shown}:"
            lines.append(self._indented(heading, "dim"))
            lines.extend(self._indented(f"  {line}", "dim") for line in tail)
        return lines

    def _steps(self, result: CaseResult) -> list[list[Piece]]:
        """Each step on two lines, cut to VALUE_CHARS: `-> name request` and `<- checks response`."""
        lines: list[list[Piece]] = []
        for step in result.steps:
            sent = shorten(self._line(value_text(step.request)), VALUE_CHARS, None)
            lines.append(self._indented(f"-> {self._line(step.name or step.kind)} {sent}", "dim"))
            if step.response is not None or step.checks:
                got = "" if step.response is None else value_text(step.response)
                said = f"{self._line(', '.join(step.checks))} " if step.checks else ""
                lines.append(self._indented(f"<- {said}{shorten(self._line(got), VALUE_CHARS, None)}", "dim"))
        return lines

    def _indented(self, text: str, style: str = "") -> list[Piece]:
        return [(self._indent, ""), (text, style)]

    def _name(self, result: CaseResult) -> str:
        return self._line(display_name(result, numbered=result.trial > 1))

    def _line(self, text: str) -> str:
        return one_line(self._scrub(text))

    def _end(self, event: RunFinished) -> None:
        summary = Summary.of(event.results, event.duration_s)
        failures = [
            (result, node_id)
            for result, node_id in zip(event.results, case_ids(event.results), strict=True)
            if result.status in (Status.FAIL, Status.ERROR)
        ]
        if failures:
            if self._printed:
                self._out.line()
            self._out.line([("failures:", "bold")])
            for result, node_id in failures:
                node = display_name(result, numbered=result.trial > 1, label=node_id)
                self._out.line([("  ", ""), self._mark(result.status), (" ", ""), (self._line(node), "")])
            self._printed = True
        reliable = [result for result in event.results if result.trials is not None]
        if reliable:
            if self._printed:
                self._out.line()
            self._out.line([("reliability:", "bold")])
            for result in reliable:
                assert result.trials is not None
                self._out.line([(f"  {self._line(result.name)}  {trials_line(result.trials)}", "")])
            self._printed = True
        if self._printed:
            self._out.line()
        self._out.line([(_summary_text(summary), _summary_style(summary))])


def _took(result: CaseResult, wall: float | None) -> str:
    """How long a case took: its duration; for a case run as trials, the wall time from its start to its
    last trial's end (their sum, labelled so, when its start was not seen)."""
    if result.trials is None:
        return format_duration(result.duration_s)
    if wall is None:
        return f"{format_duration(result.duration_s)} summed over {result.trials.n} trials"
    return format_duration(wall)


def trials_line(stats: TrialStats) -> str:
    """`3/5 trials passed, pass@5 1.00, pass^5 0.00`, and `, flaky` when some but not all passed."""
    return (
        f"{stats.passed}/{stats.n} trials passed, pass@{stats.k} {stats.pass_at_k:.2f}, "
        f"pass^{stats.k} {stats.pass_hat_k:.2f}" + (", flaky" if stats.flaky else "")
    )


def _summary_text(summary: Summary) -> str:
    took = f"in {format_duration(summary.duration_s)}"
    if summary.total == 0:
        return f"no cases ran {took}"
    parts = [summary.passed_text, f"{summary.failed} failed"]
    if summary.skipped:
        parts.append(f"{summary.skipped} skipped")
    if summary.errors:
        parts.append(f"{summary.errors} error{'s' if summary.errors > 1 else ''}")
    return f"{', '.join(parts)} {took}"


def _summary_style(summary: Summary) -> str:
    if not summary.ok:
        return "bold red"
    return "bold green" if summary.passed else "bold yellow"


def _status_line(stream: TextIO) -> StatusLine:
    from toolproof.report.progress import StatusLine  # rich's cell widths: loaded only for a terminal

    return StatusLine(stream)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (LookupError, UnicodeEncodeError):
        return False
    return True
