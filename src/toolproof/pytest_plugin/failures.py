"""A failed case as pytest shows it: the same lines the terminal report prints under a failed case."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolproof.core.sanitize import Scrubber
from toolproof.model.result import CaseResult, Status
from toolproof.report.describe import failure_lines, one_line, shown_failure, stderr_tail
from toolproof.report.terminal import STDERR_LINES, VALUE_CHARS, VALUE_LINES


def failure_text(results: Sequence[CaseResult], secrets: Iterable[str], *, verbose: bool) -> str:
    """What went wrong, where the case is written and what the server wrote to stderr, for each result that
    failed (each named when there are several: an agent case checked against several runs)."""
    scrub = Scrubber(secrets)
    failed = [result for result in results if result.status in (Status.FAIL, Status.ERROR)]
    lines: list[str] = []
    for result in failed:
        indent = ""
        if len(results) > 1:
            lines.append(f"{result.status.value}  {one_line(scrub(result.name))}")
            indent = "  "
        failure = shown_failure(result)
        if failure is not None:
            detail = failure_lines(
                failure,
                scrub,
                max_chars=None if verbose else VALUE_CHARS,
                max_lines=None if verbose else VALUE_LINES,
                details=verbose,
            )
            lines.extend(f"{indent}{line}" for line in detail)
        lines.append(f"{indent}at {one_line(scrub(f'{result.file}:{result.line}'))}")
        tail, total = stderr_tail(scrub(result.stderr), STDERR_LINES)
        if tail:
            shown = "" if total == len(tail) else f" (last {len(tail)} of {total} lines)"
            lines.append(f"{indent}server stderr{shown}:")
            lines.extend(f"{indent}  {line}" for line in tail)
    return "\n".join(lines)
