"""Benchmark: `toolproof lint|audit|fuzz` against mcp-assert 0.12.3's on the four real servers.

Run with `python bench/bench_probes.py [--runs N] [--timeout 3s] [--only lint,audit]`. For each server and
probe it prints both wall times (process start to exit, server spawns included), their ratio
(toolproof / mcp-assert; below 1 is faster), the CPU seconds of each (the probe and its servers: on a
shared, loaded machine the wall time is mostly waiting) and what each found, so the verdicts can be compared:
lint: errors/warnings; audit: healthy/tested and the failing tools; fuzz: inputs that are findings
(toolproof: crash, timeout, protocol error; mcp-assert: every non-passed input). Both fuzzers get the same
--seed, --runs and --timeout. server-memory writes to a temporary MEMORY_FILE_PATH. The last line is the
total of both wall times and their ratio. Then each probe once more with every server in one toolproof
command (`--server` repeated: side by side) against mcp-assert's command per server (`measure_together`),
with the longest single call of toolproof's report. `compare.py` takes the `lint` + `audit` totals of both.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tree_cpu import Measured, run_measured  # this script's directory is on sys.path

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ("everything", "filesystem", "memory", "time")


def servers(scratch: Path) -> dict[str, str]:
    (scratch / "files").mkdir(exist_ok=True)
    (scratch / "files" / "hello.txt").write_text("hello\n")
    return {
        "everything": "mcp-server-everything",
        "filesystem": f"mcp-server-filesystem {scratch / 'files'}",
        "memory": "mcp-server-memory",
        "time": "mcp-server-time",
    }


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, Measured]:
    """Wall seconds, CPU seconds (user + system of the process and everything it waited for), the result,
    of `argv` run in `cwd` (a scratch directory: nothing of the repository's working state is read)."""
    done = run_measured(argv, cwd, env)
    return done.wall_s, done.cpu_s, done


def load(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def ours_lint(report: Any) -> str:
    results = report["results"]
    errors = sum(1 for r in results if r["status"] == "FAIL")
    warnings = sum(1 for r in results if r["status"] == "PASS" and r.get("warnings"))  # a passing warning
    return f"{errors}E/{warnings}W"


def theirs_lint(report: Any) -> str:
    return f"{report['errors']}E/{report['warnings']}W"


def ours_audit(report: Any) -> str:
    results = report["results"]
    tested = [r for r in results if r["status"] != "SKIP"]
    bad = sorted(f"{r['name']}={r['failure']['details']['class']}" for r in tested if r["failure"])
    healthy = sum(1 for r in tested if r["status"] == "PASS")
    return f"{healthy}/{len(tested)} healthy" + (f"; {', '.join(bad)}" if bad else "")


def theirs_audit(report: Any) -> str:
    results = report["results"]
    tested = [r for r in results if r["status"] != "skipped"]
    bad = sorted(f"{r['tool']}={r['status']}" for r in tested if r["status"] != "healthy")
    healthy = sum(1 for r in tested if r["status"] == "healthy")
    return f"{healthy}/{len(tested)} healthy" + (f"; {', '.join(bad)}" if bad else "")


def ours_fuzz(report: Any) -> str:
    failures = [r for r in report["results"] if r["failure"]]
    inputs = sum(len(r["failure"]["details"]["categories"]) for r in failures)
    classes = sorted({r["failure"]["details"]["class"] for r in failures})
    shown = f" ({', '.join(classes)})" if classes else ""
    return f"{inputs} failing inputs in {len(failures)} findings{shown}"


def theirs_fuzz(report: Any) -> str:
    failures = [f for tool in report["tools"] for f in tool.get("failures", [])]
    classes = sorted({f["status"] for f in failures})
    return f"{len(failures)} failing inputs" + (f" ({', '.join(classes)})" if classes else "")


Summary = Callable[[Any], str]


@dataclass(frozen=True)
class Flags:
    """What both tools are given: the per-call timeout of audit and fuzz ("": each tool's default, 15s for
    both) and fuzz's seed and inputs per tool."""

    timeout: str = ""
    seed: int = 7
    runs: int = 20


@dataclass(frozen=True)
class Timing:
    """One probe of one server by both tools: wall and CPU seconds, and what each found."""

    server: str
    probe: str
    ours_s: float
    theirs_s: float
    ours_cpu: float
    theirs_cpu: float
    ours: str
    theirs: str
    ours_exit: int
    theirs_exit: int


def commands(probe: str, server: str, flags: Flags, out: Path) -> tuple[list[str], list[str]]:
    toolproof = [sys.executable, "-m", "toolproof", probe, "--server", server, "--json", str(out), "-q"]
    mcp_assert = [str(shutil.which("mcp-assert")), probe, "--server", server, "--json"]
    if probe in ("audit", "fuzz") and flags.timeout:
        toolproof += ["--timeout", flags.timeout]
        mcp_assert += ["--timeout", flags.timeout]
    if probe == "fuzz":
        common = ["--seed", str(flags.seed), "--runs", str(flags.runs)]
        toolproof += common
        mcp_assert += common
    return toolproof, mcp_assert


SUMMARIES: dict[str, tuple[Summary, Summary]] = {
    "lint": (ours_lint, theirs_lint),
    "audit": (ours_audit, theirs_audit),
    "fuzz": (ours_fuzz, theirs_fuzz),
}


def measure(probes: Sequence[str], names: Sequence[str], flags: Flags, scratch: Path) -> Iterator[Timing]:
    """Time each probe of each named server with toolproof, then with mcp-assert (one run each)."""
    if shutil.which("mcp-assert") is None:
        sys.exit("mcp-assert is not on PATH: run `make setup` (it installs mcp-assert==0.12.3)")
    env = {**os.environ, "MEMORY_FILE_PATH": str(scratch / "memory.jsonl"), "NO_COLOR": "1"}
    for name, server in servers(scratch).items():
        if name not in names:
            continue
        for probe in probes:
            report = scratch / f"{name}-{probe}.json"
            ours_argv, theirs_argv = commands(probe, server, flags, report)
            ours_s, ours_cpu, ours_done = timed(ours_argv, env, scratch)
            theirs_s, theirs_cpu, theirs_done = timed(theirs_argv, env, scratch)
            ours_summary, theirs_summary = SUMMARIES[probe]
            ours = load(report.read_text()) if report.exists() else None
            theirs = load(theirs_done.stdout)
            yield Timing(
                name,
                probe,
                ours_s,
                theirs_s,
                ours_cpu,
                theirs_cpu,
                ours_summary(ours) if ours else "no report",
                theirs_summary(theirs) if theirs else "no report",
                ours_done.returncode,
                theirs_done.returncode,
            )


@dataclass(frozen=True)
class Together:
    """One probe of every server: toolproof's one command (`--server` repeated: the servers side by side)
    against mcp-assert's one command per server (it takes one --server), one after another; what each found
    per server; the longest single call in toolproof's report, which no tool that makes it can beat."""

    probe: str
    ours_s: float
    theirs_s: float
    ours: dict[str, str]
    theirs: dict[str, str]
    ours_exit: int
    longest_call_s: float


def measure_together(
    probes: Sequence[str], names: Sequence[str], flags: Flags, scratch: Path
) -> Iterator[Together]:
    """Time each probe of the named servers: toolproof once with every server, mcp-assert once per server."""
    if shutil.which("mcp-assert") is None:
        sys.exit("mcp-assert is not on PATH: run `make setup` (it installs mcp-assert==0.12.3)")
    env = {**os.environ, "MEMORY_FILE_PATH": str(scratch / "memory.jsonl"), "NO_COLOR": "1"}
    chosen = {name: server for name, server in servers(scratch).items() if name in names}
    for probe in probes:
        report = scratch / f"together-{probe}.json"
        argvs = {name: commands(probe, server, flags, report) for name, server in chosen.items()}
        ours_argv = next(iter(argvs.values()))[0]
        for server in list(chosen.values())[1:]:
            ours_argv += ["--server", server]
        ours_s, _, ours_done = timed(ours_argv, env, scratch)
        theirs_s, theirs = 0.0, {}
        for name, (_, theirs_argv) in argvs.items():
            wall, _, done = timed(theirs_argv, env, scratch)
            theirs_s += wall
            found = load(done.stdout)
            theirs[name] = SUMMARIES[probe][1](found) if found else "no report"
        document = load(report.read_text()) if report.exists() else None
        results = document["results"] if document else []
        ours = {}
        for name, server in chosen.items():
            mine = [result for result in results if result["file"] == shlex.join(shlex.split(server))]
            ours[name] = SUMMARIES[probe][0]({"results": mine}) if document else "no report"
        longest = max((result.get("duration_ms") or 0.0 for result in results), default=0.0) / 1000
        yield Together(probe, ours_s, theirs_s, ours, theirs, ours_done.returncode, longest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="fuzz inputs per tool (default 20)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--timeout", default="3s", help='per-call timeout for audit and fuzz (default 3s; "": each default)'
    )
    parser.add_argument("--only", default="lint,audit,fuzz", help="probes to time, comma-separated")
    parser.add_argument("--servers", default=",".join(SERVERS))
    args = parser.parse_args()
    flags = Flags(timeout=args.timeout, seed=args.seed, runs=args.runs)
    with tempfile.TemporaryDirectory() as scratch_dir:
        print(
            f"{'server':<11} {'probe':<6} {'toolproof':>10} {'mcp-assert':>11} {'ratio':>6} {'cpu ratio':>9}"
        )
        ours_total = theirs_total = 0.0
        for timing in measure(args.only.split(","), args.servers.split(","), flags, Path(scratch_dir)):
            ours_total += timing.ours_s
            theirs_total += timing.theirs_s
            cpu = timing.ours_cpu / max(timing.theirs_cpu, 1e-3)
            print(
                f"{timing.server:<11} {timing.probe:<6} {timing.ours_s:>9.2f}s {timing.theirs_s:>10.2f}s "
                f"{timing.ours_s / timing.theirs_s:>6.2f} {cpu:>6.2f}"
            )
            print(f"    toolproof  (exit {timing.ours_exit}): {timing.ours}")
            print(f"    mcp-assert (exit {timing.theirs_exit}): {timing.theirs}")
        print(f"{'total':<18} {ours_total:>9.2f}s {theirs_total:>10.2f}s {ours_total / theirs_total:>6.2f}")
        print("\nevery server in one toolproof command (side by side); mcp-assert one command per server")
        ours_total = theirs_total = 0.0
        togethers = measure_together(args.only.split(","), args.servers.split(","), flags, Path(scratch_dir))
        for together in togethers:
            ours_total += together.ours_s
            theirs_total += together.theirs_s
            ratio = together.ours_s / together.theirs_s
            print(
                f"{'all':<11} {together.probe:<6} {together.ours_s:>9.2f}s {together.theirs_s:>10.2f}s "
                f"{ratio:>6.2f}   longest call {together.longest_call_s:.2f}s"
            )
            for name, found in together.ours.items():
                print(f"    {name:<11} toolproof:  {found}")
                print(f"    {'':<11} mcp-assert: {together.theirs[name]}")
        print(f"{'total':<18} {ours_total:>9.2f}s {theirs_total:>10.2f}s {ours_total / theirs_total:>6.2f}")


if __name__ == "__main__":
    main()
