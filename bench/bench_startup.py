"""Start-up cost of the CLI: median wall and CPU time of N runs of `--help`, `--version`, `check --help`, a
one-case `check`, two suites that start no server (a trajectory-only `run`, an all-skipped `run`) and a `run`
of a tiny stdio suite, each beside its target and as a multiple of Python's own start (and of the pydantic
floor: pydantic's import and one validated model, which each `check` and `run` pays), then the slowest
imports of the one-case `check` (`python -X importtime`). With `--instructions`, also the instructions each
command executes (valgrind's callgrind, when installed): deterministic where wall and CPU time are not on a
shared machine, so that a change is measured as a ratio of them.

Each command runs once untimed first, with the bytecode cache allowed, so the timed runs read toolproof's
compiled modules as an installed toolproof does (an unset `PYTHONDONTWRITEBYTECODE` would otherwise make every
run compile toolproof's source again, which no installed copy does).

Targets (issues 14 and 30), median wall on a 2-core machine: `--help`, `--version`, `check --help` <= 0.1 s; a
one-case `check` and a suite that starts no server <= 0.2 s (`TARGETS`). Medians, not bests: the machine is
shared, and a median is what a user waits. `compare.py` prints the same figures through `measure`.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "startup"
RUNS = 5
TOP_IMPORTS = 15
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}

COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "--version": ["--version"],
    "check --help": ["check", "--help"],
    "check (one case)": [
        "check",
        str(HERE / "one_case.yaml"),
        "--trace",
        str(HERE / "refund.transcript.json"),
    ],
    "run (trajectory only)": ["run", str(ROOT / "examples/blocks/trajectory/01_inline_order.yaml")],
    "run (all skipped)": ["run", str(HERE / "skipped.yaml")],
    "run (tiny stdio suite)": [
        "run",
        str(ROOT / "examples/quickstart/01_tiny_tools.yaml"),
        "--server",
        f"{sys.executable} {ROOT / 'examples/servers/tiny_server.py'}",
    ],
}
TARGETS: dict[str, float] = {
    "--help": 0.1,
    "--version": 0.1,
    "check --help": 0.1,
    "check (one case)": 0.2,
    "run (trajectory only)": 0.2,
    "run (all skipped)": 0.2,
}
"""Median wall seconds each command should stay within (the stdio suite starts a server: no target)."""

PYDANTIC_FLOOR = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int\nM(x=1)"
"""What any command that validates one pydantic model pays before its own work: the import, one model
class and its validator (whose first build also loads pydantic's plugins, importing `importlib.metadata`)."""


def measure(
    args: list[str], cwd: Path, runs: int = RUNS, python: list[str] | None = None
) -> tuple[float, float]:
    """Median wall and median CPU (user+sys of the child) seconds of `python -m toolproof ARGS` over `runs`
    runs in `cwd`, after one untimed run that fills the bytecode cache (`python`: another command line instead
    of `python -m toolproof`). Exits when a run's status is neither 0 nor 1."""
    walls, cpus = [], []
    for timed in [False] + [True] * runs:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        argv = python or [sys.executable, "-m", "toolproof", *args]
        done = subprocess.run(argv, capture_output=True, cwd=cwd, env=ENV)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"toolproof {' '.join(args)} exited {done.returncode}: {done.stderr.decode()}")
        if timed:
            walls.append(wall)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def instructions(args: list[str], cwd: Path, python: list[str] | None = None) -> int | None:
    """Instructions executed by `python -m toolproof ARGS` in `cwd` (`python`: another command line instead)
    under callgrind (None without valgrind), after `measure`'s untimed run has filled the bytecode cache."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    callgrind = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*callgrind, *(python or [sys.executable, "-m", "toolproof", *args])],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def top_imports(args: list[str], cwd: Path, count: int = TOP_IMPORTS) -> list[tuple[int, str]]:
    """The slowest imports (cumulative microseconds, module) of `python -X importtime -m toolproof ARGS` in
    `cwd`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolproof", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    """Every command runs in an empty working directory, so no `.toolproof/` record left by earlier runs in
    the repository (a large durations record costs a `check` tens of milliseconds) changes a figure."""
    with tempfile.TemporaryDirectory(prefix="toolproof-start-up-") as scratch:
        _measure_all("--instructions" in sys.argv[1:], Path(scratch))


def _measure_all(counting: bool, cwd: Path) -> None:
    print(f"start-up, median of {RUNS}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    python, _ = measure([], python=[sys.executable, "-c", "pass"], cwd=cwd)
    header = f"{'command':<24} {'wall s':>8} {'cpu s':>8} {'x python':>9} {'target s':>9}  met"
    print(header + "  instr G" * counting)
    print(f"{'python -c pass':<24} {python:>8.3f}")
    floor = [sys.executable, "-c", PYDANTIC_FLOOR]
    wall, cpu = measure([], python=floor, cwd=cwd)
    row = f"{'pydantic floor':<24} {wall:>8.3f} {cpu:>8.3f} {wall / python:>9.1f}"
    if counting:
        count = instructions([], python=floor, cwd=cwd)
        row += f"{'':>15}  {count / 1e9:7.3f}" if count else ""
    print(row)
    for label, args in COMMANDS.items():
        wall, cpu = measure(args, cwd=cwd)
        target = TARGETS.get(label)
        verdict = "-" if target is None else ("yes" if wall <= target else "no")
        limit = "-" if target is None else f"{target:.2f}"
        row = f"{label:<24} {wall:>8.3f} {cpu:>8.3f} {wall / python:>9.1f} {limit:>9}  {verdict:<3}"
        if counting:
            count = instructions(args, cwd=cwd)
            row += f"  {count / 1e9:7.3f}" if count else "        -"
        print(row)
    print("\nslowest imports of check (one case), cumulative ms:")
    for cumulative, name in top_imports(COMMANDS["check (one case)"], cwd=cwd):
        print(f"{cumulative / 1000:>8.1f}  {name}")


if __name__ == "__main__":
    main()
