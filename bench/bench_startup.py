"""Start-up cost of the CLI: wall and CPU time (best of N) of `--help`, `--version`, a one-case `check` and a
trajectory-only `run`, then the slowest imports of the one-case `check` (`python -X importtime`).

Targets (issue 14): `check` on one case <= 0.2 s, `--help`/`--version` <= 0.1 s on a 2-core machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "startup"
RUNS = 5
TOP_IMPORTS = 15

COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "--version": ["--version"],
    "check (one case)": [
        "check",
        str(HERE / "one_case.yaml"),
        "--trace",
        str(HERE / "refund.transcript.json"),
    ],
    "run (trajectory only)": ["run", str(ROOT / "examples/blocks/trajectory/01_inline_order.yaml")],
}


def _measure(args: list[str]) -> tuple[float, float]:
    """Best wall and best CPU (user+sys of the child) seconds of `python -m toolproof ARGS` over RUNS runs."""
    walls, cpus = [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "toolproof", *args], capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode not in (0, 1):
            raise SystemExit(f"toolproof {' '.join(args)} exited {done.returncode}: {done.stderr.decode()}")
    return min(walls), min(cpus)


def _top_imports(args: list[str]) -> list[tuple[int, str]]:
    """The slowest imports (cumulative microseconds, module) of `python -X importtime -m toolproof ARGS`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolproof", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:TOP_IMPORTS]


def main() -> None:
    print(f"start-up, best of {RUNS}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'command':<24} {'wall s':>8} {'cpu s':>8}")
    for label, args in COMMANDS.items():
        wall, cpu = _measure(args)
        print(f"{label:<24} {wall:>8.3f} {cpu:>8.3f}")
    print("\nslowest imports of check (one case), cumulative ms:")
    for cumulative, name in _top_imports(COMMANDS["check (one case)"]):
        print(f"{cumulative / 1000:>8.1f}  {name}")


if __name__ == "__main__":
    main()
