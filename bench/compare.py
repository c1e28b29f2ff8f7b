"""Benchmark: toolproof fresh and `--reuse-server` against mcp-assert and its `--reuse-server`, side by side.

Run with `python bench/compare.py [--rounds N]` (the first step of `make bench`). On the four real-server
suites (the parity suites in tests/parity/suites plus bench/suites/everything50: server-everything,
server-filesystem, server-memory, mcp-server-time) it runs every variant in one process, one suite after
another, interleaved per round, and prints per variant: the wall time summed over the suites, its ratio to
mcp-assert and to mcp-assert --reuse-server, how many cases shared a server, and how many verdicts differ from
toolproof's fresh run (a wrong verdict is the price mcp-assert's reuse pays on stateful cases), then each
variant's wall time per suite. It also prints the load average when it started and ended, since the ratios
only mean something when both ran under the same load, and how many case durations toolproof had recorded
(`.toolproof/durations.json`, which sets the order cases start in; the fresh variant runs first on each suite,
so the reuse variant starts from its durations). toolproof runs from its bytecode cache, as an installed copy
does (compiled first). Then start-up: `--help`, `--version`, `check` on a one-case file and two suites that
start no server (median of five), and the top entries of `python -X importtime -m toolproof check`; the
probes: `lint` + `audit` of the four servers by both tools, default flags, one run (bench_probes.py), with
the four servers in one toolproof command each (side by side) and with a command per server, and the floor
the longest call sets; then every speed target with its figure in one table; and memory: toolproof's peak
RSS on 100 and on 1,000 cases. `--suites-only` stops after the suite ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_startup import TARGETS as STARTUP_TARGETS  # this script's directory is on sys.path

from toolproof.report.timings import last_durations

ROOT = Path(__file__).resolve().parent.parent
PARITY = ROOT / "tests" / "parity"
SUITES = [
    (PARITY / "suites" / "everything", None),
    (PARITY / "suites" / "time", None),
    (PARITY / "suites" / "filesystem", PARITY / "fixtures" / "filesystem"),
    (PARITY / "suites" / "memory", None),
    (ROOT / "bench" / "suites" / "everything50", None),
]
CASE_TIMEOUT = "120s"
VARIANTS = ("toolproof", "toolproof --reuse-server", "mcp-assert", "mcp-assert --reuse-server")
SPEED_STARTUP = ("check (one case)", "run (trajectory only)", "run (all skipped)")
FRESH = "suites fresh / mcp-assert"
REUSE = "suites --reuse-server / mcp-assert's"
PROBES = "probes / mcp-assert, servers at once"
PROBES_EACH = "probes / mcp-assert, a command a server"
RATIO_TARGETS = ((FRESH, 0.35), (REUSE, 0.5), (PROBES, 0.5), (PROBES_EACH, 0.5))


@dataclass
class Tally:
    wall: float = 0.0
    verdicts: dict[str, str] = field(default_factory=dict)
    shared: int = 0
    per_suite: dict[str, float] = field(default_factory=dict)


def environment(scratch: Path, variant: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(ROOT / ".venv" / "bin"), str(ROOT / "node_modules" / ".bin"), env["PATH"]]
    )
    env["NO_COLOR"] = "1"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed toolproof runs from its bytecode cache
    env["PARITY_SUITE_VAR"] = "expanded"
    env.pop("PARITY_UNSET_VARIABLE", None)
    memory = scratch / re.sub(r"\W+", "-", variant) / str(time.monotonic_ns())  # a fresh graph every run
    memory.mkdir(parents=True)
    env["PARITY_MEMORY_DIR"] = str(memory)
    return env


def run_variant(
    variant: str, suite: Path, fixture: Path | None, scratch: Path
) -> tuple[float, list[dict[str, Any]]]:
    """Wall time and per-case results (name, status, shared_server) of one variant on one suite."""
    tool, *flags = variant.split()
    fixture_args = ["--fixture", str(fixture)] if fixture else []
    report = scratch / "report.json"
    if tool == "mcp-assert":
        binary = shutil.which("mcp-assert", path=str(ROOT / ".venv" / "bin"))
        if binary is None:
            sys.exit("mcp-assert is not in .venv/bin: run `make setup`")
        argv = [
            binary,
            "run",
            "--suite",
            str(suite),
            *fixture_args,
            "--timeout",
            CASE_TIMEOUT,
            *flags,
            "--json",
        ]
    else:
        argv = [sys.executable, "-m", "toolproof", "run", str(suite), *fixture_args]
        argv += ["--timeout", CASE_TIMEOUT, *flags, "-q", "--json", str(report)]
    started = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=ROOT,
        env=environment(scratch, variant),
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(
            f"{variant} on {suite.name} exited {done.returncode}:\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    results = json.loads(done.stdout) if tool == "mcp-assert" else json.loads(report.read_text())["results"]
    return wall, results


def load() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def start_up() -> dict[str, float]:
    """Start-up as bench/bench_startup.py measures it (median wall and CPU of five runs, bytecode cache warm):
    `--help`, `--version`, a real one-case `check` (bench/startup's case against its recorded run; a
    status other than 0 or 1 stops the benchmark) and a suite that starts no server, then the top imports of
    that check. Returns the wall seconds by command."""
    from bench_startup import COMMANDS, measure, top_imports  # this script's directory is on sys.path

    walls: dict[str, float] = {}
    print("\nstart-up (median of 5)                wall      cpu   target")
    for label, target in STARTUP_TARGETS.items():
        wall, cpu = measure(COMMANDS[label])
        walls[label] = wall
        timing = f"{wall * 1000:5.0f} ms {cpu * 1000:5.0f} ms"
        print(f"  toolproof {label:<22} {timing}  <= {target * 1000:.0f} ms")
    print("  python -X importtime -m toolproof check (one case): top cumulative imports")
    for us, name in top_imports(COMMANDS["check (one case)"], 8):
        print(f"    {us / 1000:6.1f} ms  {name}")
    return walls


def probes(scratch: Path) -> tuple[float, float, float]:
    """`lint` + `audit` of the four real servers, default flags, one run each (bench_probes.py): toolproof's
    wall time over mcp-assert's with every server in one toolproof command (`--server` repeated, side by
    side; mcp-assert takes one server per command), with one toolproof command per server as mcp-assert
    runs them, and the floor: the longest single call both tools make (server-everything's
    trigger-long-running-operation, 10 s) over mcp-assert's time, which no tool that makes that call can
    beat however well it overlaps the rest."""
    # this script's directory is on sys.path
    from bench_probes import SERVERS, Flags, measure, measure_together

    print("\nprobes, default flags, one run       toolproof  mcp-assert  ratio")
    ours = theirs = 0.0
    for timing in measure(("lint", "audit"), SERVERS, Flags(), scratch):
        ours, theirs = ours + timing.ours_s, theirs + timing.theirs_s
        label, ratio = f"{timing.probe} {timing.server}", timing.ours_s / timing.theirs_s
        print(f"  {label:<32}{timing.ours_s:9.2f}s{timing.theirs_s:11.2f}s{ratio:7.2f}")
    each = ours / theirs
    print(f"  {'lint + audit, a command a server':<32}{ours:9.2f}s{theirs:11.2f}s{each:7.2f}")
    ours = theirs = longest = 0.0
    for together in measure_together(("lint", "audit"), SERVERS, Flags(), scratch):
        ours, theirs = ours + together.ours_s, theirs + together.theirs_s
        longest = max(longest, together.longest_call_s)
        label, ratio = f"{together.probe}, four servers at once", together.ours_s / together.theirs_s
        print(f"  {label:<32}{together.ours_s:9.2f}s{together.theirs_s:11.2f}s{ratio:7.2f}")
    print(f"  {'lint + audit, servers at once':<32}{ours:9.2f}s{theirs:11.2f}s{ours / theirs:7.2f}")
    print(f"  floor: the longest call ({longest:.2f}s) / mcp-assert's {theirs:.2f}s = {longest / theirs:.2f}")
    return ours / theirs, each, longest / theirs


def targets(ratios: dict[str, float], walls: dict[str, float], floors: dict[str, float]) -> None:
    """Every figure of the speed targets (issue 30) in one table, beside its target (and, for the probes,
    the floor no tool that makes their longest call can beat)."""
    print(f"\n{'speed targets':<46}{'measured':>10}{'target':>10}{'floor':>10}")
    for label, limit in RATIO_TARGETS:
        floor = f"{floors[label]:9.2f}x" if label in floors else ""
        print(f"  {label:<44}{ratios[label]:9.2f}x{limit:9.2f}x{floor}")
    for label in SPEED_STARTUP:
        print(f"  {label + ', median of 5':<44}{walls[label]:9.3f}s{STARTUP_TARGETS[label]:9.2f}s")


def peak_rss_kb(suite: Path) -> int:
    """Peak RSS of a toolproof run of `suite` (trajectory cases: toolproof's own bookkeeping, no server)."""
    probe = (
        "import resource, sys\nfrom toolproof import api\n"
        "api.run_suite([sys.argv[1]], jobs=2, reuse_server=True)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(suite)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def memory(scratch: Path) -> None:
    print("\nmemory: peak RSS of one run (echo cases on server-everything, 2 jobs, --reuse-server)")
    sizes = {}
    for count in (100, 1000):
        suite = scratch / f"echo{count}"
        suite.mkdir()
        for i in range(count):
            (suite / f"{i:04d}.yaml").write_text(
                f"name: echo {i}\nserver:\n  command: mcp-server-everything\n"
                f"assert:\n  tool: echo\n  args: {{message: m{i}}}\n  expect: {{contains: [m{i}]}}\n"
            )
        sizes[count] = peak_rss_kb(suite) / 1024
        print(f"  {count:5d} cases   {sizes[count]:6.1f} MB")
    print(f"  growth {sizes[1000] - sizes[100]:+.1f} MB (target <= +10 MB)")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="times each variant runs each suite (default 1)"
    )
    parser.add_argument("--skip-memory", action="store_true", help="leave out the 100/1,000-case RSS runs")
    parser.add_argument(
        "--suites-only",
        action="store_true",
        help="only the suite ratios (fresh and --reuse-server): no probes, start-up or memory",
    )
    args = parser.parse_args()
    os.environ["PATH"] = os.pathsep.join(
        [str(ROOT / ".venv" / "bin"), str(ROOT / "node_modules" / ".bin"), os.environ["PATH"]]
    )
    tallies = {variant: Tally() for variant in VARIANTS}
    cases = sum(len(list(suite.glob("*.yaml"))) for suite, _ in SUITES)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; load {load()}")
    print(f"suites: {', '.join(suite.name for suite, _ in SUITES)} ({cases} cases), {args.rounds} round(s)")
    recorded = len(last_durations(ROOT / ".toolproof"))
    print(
        f"start order: {recorded} case durations recorded in .toolproof/ at the start"
        if recorded
        else "start order: no case durations recorded yet (a first run)"
    )
    compiled = dict(os.environ)
    compiled.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], env=compiled, check=True)
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        for _ in range(args.rounds):
            for suite, fixture in SUITES:
                for variant in VARIANTS:
                    wall, results = run_variant(variant, suite, fixture, scratch)
                    tally = tallies[variant]
                    tally.wall += wall
                    tally.per_suite[suite.name] = tally.per_suite.get(suite.name, 0.0) + wall
                    for result in results:
                        tally.verdicts[f"{suite.name}/{result['name']}"] = str(result["status"]).upper()
                        tally.shared += result.get("shared_server") is not None
        print(f"load at the end {load()}")
        peer, peer_reuse = tallies["mcp-assert"].wall, tallies["mcp-assert --reuse-server"].wall
        print(
            f"\n{'variant':<28}{'wall s':>8}{'/ mcp-assert':>14}{'/ its reuse':>13}{'shared':>8}"
            "  verdicts vs the same tool fresh"
        )
        for variant, tally in tallies.items():
            fresh = tallies[variant.split()[0]].verdicts
            differ = sorted(name for name, status in tally.verdicts.items() if fresh.get(name) != status)
            agree = "same" if not differ else f"{len(differ)} differ"
            shared = f"{tally.shared // args.rounds}" if variant.startswith("toolproof") else "-"
            print(
                f"{variant:<28}{tally.wall:8.1f}{tally.wall / peer:14.2f}{tally.wall / peer_reuse:13.2f}"
                f"{shared:>8}  {agree}"
            )
        for variant, tally in tallies.items():
            fresh = tallies[variant.split()[0]].verdicts
            if variant.endswith("--reuse-server"):
                for name in sorted(n for n, s in tally.verdicts.items() if fresh.get(n) != s):
                    print(f"  {variant}: {name}: {tally.verdicts[name]} (fresh {fresh.get(name)})")
        print(f"\nwall s per suite{'':<12}" + "".join(f"{suite.name:>14}" for suite, _ in SUITES))
        for variant, tally in tallies.items():
            walls = (tally.per_suite[suite.name] / args.rounds for suite, _ in SUITES)
            print(f"{variant:<28}" + "".join(f"{wall:14.1f}" for wall in walls))
        fresh, reuse = tallies["toolproof"].wall / peer, tallies["toolproof --reuse-server"].wall / peer_reuse
        if args.suites_only:
            print(f"\n{FRESH}: {fresh:.2f}x (target 0.35x); {REUSE}: {reuse:.2f}x (target 0.5x)")
            return 0
        together, each, floor = probes(scratch)
        ratios = {FRESH: fresh, REUSE: reuse, PROBES: together, PROBES_EACH: each}
        walls = start_up()
        targets(ratios, walls, {PROBES: floor})
        if not args.skip_memory:
            memory(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
