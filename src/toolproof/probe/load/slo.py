"""`--slo p95<200ms,errors<1%`: objectives a load run must meet, each checked against its `LoadReport`.

An objective is `MEASURE OP VALUE`: a latency (`p50`, `p90`, `p95`, `p99`, `max`) against a duration (`200ms`,
`1.5s`), `errors` against a percentage of the requests (`1%`), or `rps` against requests per second; `OP` is
one of `<`, `<=`, `>`, `>=`. Objectives are separated by commas.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from toolproof.core.durations import parse_duration
from toolproof.probe.load.stats import PERCENTILES, LoadReport

LATENCIES = frozenset({*(name for name, _ in PERCENTILES), "max"})
_OBJECTIVE = re.compile(r"\s*([a-z0-9]+)\s*(<=|>=|<|>)\s*(\S+?)\s*")
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class SloError(ValueError):
    """An objective that does not parse."""


@dataclass(frozen=True)
class Objective:
    """One objective: `measure` `op` `limit` (milliseconds, a percentage or requests per second)."""

    text: str
    measure: str
    op: str
    limit: float

    def actual(self, report: LoadReport) -> float | None:
        """The measured value (None: a latency with no answered request)."""
        if self.measure == "errors":
            return report.error_percent
        if self.measure == "rps":
            return report.throughput_rps
        return None if report.latency_ms is None else report.latency_ms[self.measure]

    def met(self, report: LoadReport) -> bool:
        value = self.actual(report)
        return value is not None and _COMPARE[self.op](value, self.limit)


def parse_slo(text: str) -> list[Objective]:
    """The objectives of `text`; raises SloError naming the one that does not parse."""
    found: list[Objective] = []
    for part in text.split(","):
        match = _OBJECTIVE.fullmatch(part)
        if match is None:
            raise SloError(f"--slo {part.strip()!r}: expected MEASURE OP VALUE, e.g. p95<200ms or errors<1%")
        measure, op, value = match.groups()
        found.append(Objective(part.strip(), measure, op, _limit(measure, value, part.strip())))
    return found


def _limit(measure: str, value: str, text: str) -> float:
    try:
        if measure in LATENCIES:
            return parse_duration(value) * 1000
        if measure == "errors":
            if not value.endswith("%"):
                raise ValueError("give errors as a percentage, e.g. 1%")
            return float(value[:-1])
        if measure == "rps":
            return float(value)
    except ValueError as error:
        raise SloError(f"--slo {text!r}: {error}") from None
    known = ", ".join([*sorted(LATENCIES), "errors", "rps"])
    raise SloError(f"--slo {text!r}: unknown measure {measure!r} (use {known})")


def describe(objective: Objective, report: LoadReport) -> str:
    """`p95<200ms: 12.3 ms, met` for the table."""
    value = objective.actual(report)
    unit = "%" if objective.measure == "errors" else " requests/s" if objective.measure == "rps" else " ms"
    shown = "no answered request" if value is None else f"{value:.2f}{unit}"
    return f"{objective.text}: {shown}, {'met' if objective.met(report) else 'NOT met'}"
