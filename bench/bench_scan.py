"""Benchmark: `toolproof scan`'s rules on hostile text of growing size (each doubling should about double
the time: every pattern is linear), then the scan of the four real servers.

Run with `python bench/bench_scan.py [--sizes 25000,50000,100000,200000]`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from toolproof.probe.scan import Listing, scan_listings

ROOT = Path(__file__).resolve().parent.parent
SHAPES = {
    "words": "ignore do not tell send read pass ",
    "letters": "A",
    "digits": "0",
    "zero-width": "\u200b",
    "tags": "\U000e0041",
    "escapes": "\x1b[",
}


def rules(sizes: list[int]) -> None:
    for shape, unit in SHAPES.items():
        times = []
        for size in sizes:
            text = (unit * (size // len(unit) + 1))[:size]
            listing = Listing("s", [{"name": "t", "description": text, "inputSchema": {"type": "object"}}])
            started = time.perf_counter()
            scan_listings([listing])
            times.append(time.perf_counter() - started)
        print(
            f"{shape:>11}: "
            + "  ".join(f"{size}: {seconds:.3f}s" for size, seconds in zip(sizes, times, strict=True))
        )


def servers() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        argv = [sys.executable, "-m", "toolproof", "scan", "--quiet"]
        for server in (
            "mcp-server-everything",
            f"mcp-server-filesystem {scratch}",
            "mcp-server-memory",
            "mcp-server-time",
        ):
            argv += ["--server", server]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
        print(f"scan of the four real servers: {time.perf_counter() - started:.1f}s, exit {done.returncode}")
        print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="25000,50000,100000,200000")
    options = parser.parse_args()
    rules([int(size) for size in options.sizes.split(",")])
    if shutil.which("mcp-server-everything"):
        servers()


if __name__ == "__main__":
    main()
