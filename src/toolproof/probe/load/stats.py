"""What a load run measured (`LoadReport`): throughput, latency percentiles, errors by kind, the servers'
peak memory and CPU; as a JSON document and as a text table."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PERCENTILES = (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99))


@dataclass(frozen=True)
class LoadReport:
    """`requests` made in `elapsed_s` by `sessions` sessions with `concurrency` in flight on each;
    `latency_ms` (p50, p90, p95, p99, max) of the answered ones, None when none was; `errors` by kind; for
    stdio servers their CPU seconds and their peak resident memory together (None over HTTP)."""

    requests: int
    errors: dict[str, int]
    elapsed_s: float
    latency_ms: dict[str, float] | None
    cpu_s: float | None
    peak_rss_bytes: int | None
    sessions: int
    concurrency: int
    stopped_by: str | None = None  # the signal that stopped the run before its end

    @property
    def failed(self) -> int:
        return sum(self.errors.values())

    @property
    def error_percent(self) -> float:
        return 100.0 * self.failed / self.requests if self.requests else 0.0

    @property
    def throughput_rps(self) -> float:
        return self.requests / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def as_json(self) -> dict[str, Any]:
        """The report as the JSON document `--json` writes."""
        return {
            "format": "toolproof-load",
            "format_version": 1,
            "sessions": self.sessions,
            "concurrency": self.concurrency,
            "requests": self.requests,
            "failed": self.failed,
            "error_percent": round(self.error_percent, 3),
            "errors": dict(sorted(self.errors.items())),
            "elapsed_s": round(self.elapsed_s, 3),
            "throughput_rps": round(self.throughput_rps, 3),
            "latency_ms": self.latency_ms,
            "cpu_s": None if self.cpu_s is None else round(self.cpu_s, 3),
            "peak_rss_bytes": self.peak_rss_bytes,
            "stopped_by": self.stopped_by,
        }

    def table(self) -> str:
        """The report as lines of text, one measure a line."""
        shape = f"{self.sessions} session(s) x {self.concurrency} in flight"
        rows = [
            ("requests", f"{self.requests} in {self.elapsed_s:.2f}s ({shape})"),
            *([("stopped", f"by {self.stopped_by}, before the end")] if self.stopped_by else []),
            ("throughput", f"{self.throughput_rps:.1f} requests/s"),
        ]
        latency = self.latency_ms or {}
        rows += [(name, f"{latency[name]:.1f} ms") for name in (*dict(PERCENTILES), "max") if latency]
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(self.errors.items()))
        errors = f"{self.failed} ({self.error_percent:.2f}%)" + (f": {kinds}" if kinds else "")
        rows.append(("errors", errors))
        if self.peak_rss_bytes is not None:
            rows.append(("peak RSS", f"{self.peak_rss_bytes / 2**20:.1f} MiB"))
        if self.cpu_s is not None:
            busy = 100 * self.cpu_s / max(self.elapsed_s, 1e-9)
            rows.append(("server CPU", f"{self.cpu_s:.2f}s ({busy:.0f}% of one core)"))
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name.ljust(width)}  {value}" for name, value in rows)


def percentile(ordered: Sequence[float], share: float) -> float:
    """The nearest-rank percentile `share` (0-100) of the sorted, non-empty `ordered`."""
    return ordered[max(math.ceil(share / 100 * len(ordered)) - 1, 0)]


def summarize(
    *,
    requests: int,
    latencies: Sequence[float],
    errors: dict[str, int],
    elapsed_s: float,
    cpu_ticks: int | None,
    peak_rss: int | None,
    sessions: int,
    concurrency: int,
    stopped_by: str | None = None,
) -> LoadReport:
    """The report of one run's raw measurements (latencies in seconds, CPU in clock ticks)."""
    ordered = sorted(latencies)
    latency = None
    if ordered:
        latency = {name: round(percentile(ordered, share) * 1000, 3) for name, share in PERCENTILES}
        latency["max"] = round(ordered[-1] * 1000, 3)
    return LoadReport(
        requests=requests,
        errors=errors,
        elapsed_s=elapsed_s,
        latency_ms=latency,
        cpu_s=None if cpu_ticks is None else cpu_ticks / os.sysconf("SC_CLK_TCK"),
        peak_rss_bytes=peak_rss,
        sessions=sessions,
        concurrency=concurrency,
        stopped_by=stopped_by,
    )
