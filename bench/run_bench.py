"""Benchmark: toolproof against mcp-assert 0.12.3 on one suite, toolproof's own per-case overhead, cold start.

Run with `make bench` (or `python bench/run_bench.py [--suite DIR] [--floor-cases N]`). It prints:
- the wall time of the same suite under mcp-assert (`mcp-assert run --suite`) and toolproof (`toolproof run`,
  default jobs), both against `@modelcontextprotocol/server-everything`, and their ratio (target <= 0.5);
- toolproof's own overhead per case: toolproof with one job, minus the official SDK client doing the same
  spawn + initialize + call + close in a plain loop (target <= 10 ms), as the difference of the median
  per-case spans (30 cases each by default; the median and interquartile range of both are shown, so a
  noisy run is visible), and the bookkeeping time per case that is not in any phase of the JSON report;
- the cold start of `toolproof --help` / `--version`, and whether they import the MCP SDK (they must not).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SUITE = ROOT / "bench" / "suites" / "everything50"
SERVER = "mcp-server-everything"


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run argv (no shell) and return its wall time in seconds with the finished process."""
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
    return time.perf_counter() - started, done


def require(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode not in (0, 1):
        tail = f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        sys.exit(f"{what} failed with status {done.returncode}:\n{tail}")


def mcp_assert_wall(suite: Path) -> float:
    binary = shutil.which("mcp-assert")
    if binary is None:
        sys.exit("mcp-assert is not on PATH: run `make setup` (it installs mcp-assert==0.12.3)")
    wall, done = timed([binary, "run", "--suite", str(suite)])
    require(done, "mcp-assert")
    return wall


def toolproof_run(suite: Path, jobs: int | None, report: Path) -> float:
    argv = [sys.executable, "-m", "toolproof", "run", str(suite), "-q", "--json", str(report)]
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    wall, done = timed(argv)
    require(done, "toolproof")
    return wall


def results(report: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(report.read_text())["results"]
    return found


def bookkeeping_ms(report: Path) -> float:
    """Mean time per case that falls outside the reported phases (start, setup, call, stop)."""
    gaps = [r["duration_ms"] - sum(r["phases_ms"].values()) for r in results(report) if r.get("phases_ms")]
    return statistics.mean(gaps) if gaps else float("nan")


def case_spans_ms(report: Path) -> list[float]:
    """Each case's time from spawning the server to the checked answer: everything but the stop phase."""
    return [r["duration_ms"] - r["phases_ms"].get("stop", 0.0) for r in results(report)]


def spread(spans: list[float]) -> str:
    """`median M ms (IQR Q1-Q3 ms)` of per-case spans."""
    q1, median, q3 = statistics.quantiles(spans, n=4)
    return f"median {median:.1f} ms (IQR {q1:.1f}-{q3:.1f} ms)"


def sdk_spans_ms(cases: int) -> list[float]:
    """The official SDK client alone, cases in a row: each case's time from spawn to the echo call's answer.

    The server gets the whole environment, as toolproof (and mcp-assert) give it: the SDK's own default is a
    short list of variables, and a variable such as NODE_EXTRA_CA_CERTS alone costs Node tens of ms at start.
    """
    script = (
        "import json, os, time, anyio\n"
        "from mcp import ClientSession, StdioServerParameters\n"
        "from mcp.client.stdio import stdio_client\n"
        "spans = []\n"
        "async def one(i):\n"
        "    started = time.perf_counter()\n"
        f"    params = StdioServerParameters(command={SERVER!r}, env=dict(os.environ))\n"
        "    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:\n"
        "        await s.initialize()\n"
        "        await s.call_tool('echo', {'message': f'bench message {i}'})\n"
        "        spans.append((time.perf_counter() - started) * 1000)\n"
        "async def main():\n"
        f"    for i in range({cases}):\n"
        "        await one(i)\n"
        "anyio.run(main)\n"
        "print(json.dumps(spans))\n"
    )
    _, done = timed([sys.executable, "-c", script])
    require(done, "SDK floor")
    spans: list[float] = json.loads(done.stdout.strip().splitlines()[-1])
    return spans


def echo_suite(directory: Path, cases: int) -> Path:
    """The floor's workload as a toolproof suite: `cases` echo calls against the same server."""
    for i in range(cases):
        (directory / f"{i:03d}.yaml").write_text(
            f"name: echo {i}\nserver:\n  command: {SERVER}\n"
            f"assert:\n  tool: echo\n  args: {{message: bench message {i}}}\n  expect: {{not_error: true}}\n"
        )
    return directory


def cold_start(flag: str) -> tuple[float, bool]:
    """Best of five wall times of `toolproof FLAG`, and whether that path imports the MCP SDK."""
    walls = [timed([sys.executable, "-m", "toolproof", flag])[0] for _ in range(5)]
    probe = (
        "import sys, contextlib, io\nfrom toolproof.cli import main\n"
        f"with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()): main([{flag!r}])\n"
        "print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))\n"
    )
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return min(walls), imported.stdout.strip() == "True"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE, help="suite run under both tools")
    parser.add_argument(
        "--floor-cases", type=int, default=30, help="cases of the overhead measurement (at least 2)"
    )
    args = parser.parse_args()
    tools = [str(ROOT / ".venv" / "bin"), str(ROOT / "node_modules" / ".bin")]
    os.environ["PATH"] = os.pathsep.join([*tools, os.environ["PATH"]])
    cases = len(list(args.suite.rglob("*.y*ml")))
    print(f"machine: {os.cpu_count()} cores; suite: {args.suite.relative_to(ROOT)} ({cases} cases)")

    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        peer = mcp_assert_wall(args.suite)
        ours = toolproof_run(args.suite, None, work / "suite.json")
        print(f"mcp-assert 0.12.3   {peer:7.2f} s")
        print(f"toolproof           {ours:7.2f} s   ratio {ours / peer:.2f} (target <= 0.50)")
        print(f"bookkeeping outside phases: {bookkeeping_ms(work / 'suite.json'):.2f} ms per case")

        floor_dir = work / "floor"
        floor_dir.mkdir()
        n = args.floor_cases
        sdk = sdk_spans_ms(n)
        toolproof_run(echo_suite(floor_dir, n), 1, work / "floor.json")
        spans = case_spans_ms(work / "floor.json")
        print(f"spawn to answer, {n} echo cases one at a time:")
        print(f"  SDK client  {spread(sdk)}")
        print(f"  toolproof   {spread(spans)}")
        overhead = statistics.median(spans) - statistics.median(sdk)
        print(f"toolproof overhead: {overhead:+.1f} ms per case, difference of medians (target <= 10)")

    for flag in ("--help", "--version"):
        wall, imports_sdk = cold_start(flag)
        answer = "yes" if imports_sdk else "no"
        print(f"toolproof {flag:<10}{wall * 1000:6.0f} ms   imports the MCP SDK: {answer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
