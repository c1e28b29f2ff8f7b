"""`toolproof load`'s measures and objectives: nearest-rank percentiles, the report, `--slo` parsing."""

from __future__ import annotations

import pytest

from toolproof.probe.load.slo import SloError, describe, parse_slo
from toolproof.probe.load.stats import LoadReport, percentile, summarize


def _report(latencies_ms: list[float], errors: dict[str, int], requests: int) -> LoadReport:
    return summarize(
        requests=requests,
        latencies=[value / 1000 for value in latencies_ms],
        errors=errors,
        elapsed_s=2.0,
        cpu_ticks=None,
        peak_rss=None,
        sessions=1,
        concurrency=4,
    )


def test_percentiles_are_nearest_rank() -> None:
    ordered = [float(value) for value in range(1, 101)]
    assert [percentile(ordered, share) for share in (50, 90, 95, 99, 100)] == [50, 90, 95, 99, 100]
    assert percentile([7.0], 99) == 7.0
    assert percentile([1.0, 2.0], 50) == 1.0


def test_the_report_counts_errors_by_kind_and_throughput() -> None:
    report = _report([10.0] * 18, {"tool_error": 1, "timeout": 1}, requests=20)
    assert report.latency_ms == {"p50": 10.0, "p90": 10.0, "p95": 10.0, "p99": 10.0, "max": 10.0}
    assert (report.failed, report.error_percent, report.throughput_rps) == (2, 10.0, 10.0)
    table = report.table()
    assert "errors      2 (10.00%): timeout 1, tool_error 1" in table
    assert "peak RSS" not in table  # none measured (HTTP)
    assert report.as_json()["errors"] == {"timeout": 1, "tool_error": 1}


def test_objectives_are_checked_against_the_report() -> None:
    report = _report([5.0] * 95 + [500.0] * 5, {"tool_error": 1}, requests=100)
    met = {
        objective.text: objective.met(report)
        for objective in parse_slo("p95<200ms, p99<=1s,errors<1%,rps>=50")
    }
    assert met == {"p95<200ms": True, "p99<=1s": True, "errors<1%": False, "rps>=50": True}
    [slow] = parse_slo("max<0.1s")
    assert describe(slow, report) == "max<0.1s: 500.00 ms, NOT met"
    [latency] = parse_slo("p50<1s")
    assert not latency.met(_report([], {"transport": 3}, requests=3))  # nothing answered: not met


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p95=200ms", "expected MEASURE OP VALUE"),
        ("p42<1s", "unknown measure 'p42'"),
        ("p95<fast", "invalid duration"),
        ("errors<1", "give errors as a percentage"),
        ("p95<200ms,", "expected MEASURE OP VALUE"),
    ],
)
def test_a_malformed_objective_is_named(text: str, message: str) -> None:
    with pytest.raises(SloError, match=message):
        parse_slo(text)
