"""Benchmark: `toolproof lint` on the widest tool sets of the tests, rules alone and end to end.

Run with `python bench/bench_lint.py`. The tool sets are the probe target server's (tests/servers/):
10,000 generated tools (the widest list a test lints) and 100 tools of one shape, every one of which can
feed every other (the worst case of the flow rules: one complete graph). For each it prints the time of the
schema rules alone (`lint_tools`, best of 3, in process) and of the whole command (server start, tools/list,
rules, report), and the findings by code. Target (issue 29): every set lints in seconds.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "servers" / "probe_target_server.py"
SETS = {"10000 generated tools": ["--tools", "10000"], "100 tools of one shape": ["--alike", "100"]}
RUNS = 3


def target() -> ModuleType:
    spec = importlib.util.spec_from_file_location("probe_target_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tools_of(server: ModuleType, flags: list[str]) -> list[dict[str, Any]]:
    with mock.patch.object(sys, "argv", [str(SERVER), *flags]):
        listed: list[dict[str, Any]] = server.listed()
    return listed


def rules_seconds(tools: list[dict[str, Any]]) -> tuple[float, Counter[str]]:
    from toolproof.probe.lint_rules import lint_tools

    best, found = float("inf"), Counter[str]()
    for _ in range(RUNS):
        started = time.perf_counter()
        findings = lint_tools(tools)
        best = min(best, time.perf_counter() - started)
        found = Counter(finding.code for finding in findings)
    return best, found


def command_seconds(flags: list[str], report: Path) -> tuple[float, int]:
    server = " ".join([sys.executable, str(SERVER), *flags])
    argv = [sys.executable, "-m", "toolproof", "lint", "--server", server, "--json", str(report), "-q"]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    results = len(json.loads(report.read_text())["results"]) if report.exists() else -1
    if done.returncode not in (0, 1):
        sys.exit(f"lint exited {done.returncode}: {done.stderr}")
    return wall, results


def main() -> None:
    server = target()
    print(f"{'tool set':<24} {'rules':>8} {'command':>8}  findings")
    with tempfile.TemporaryDirectory() as scratch:
        for label, flags in SETS.items():
            rules, found = rules_seconds(tools_of(server, flags))
            wall, _ = command_seconds(flags, Path(scratch) / "report.json")
            codes = ", ".join(f"{count} {code}" for code, count in sorted(found.items()))
            print(f"{label:<24} {rules:>7.2f}s {wall:>7.2f}s  {codes}")


if __name__ == "__main__":
    main()
