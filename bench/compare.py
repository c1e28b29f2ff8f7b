"""Benchmark: toolproof fresh and `--reuse-server` against mcp-assert and its `--reuse-server`, side by side.

Run with `python bench/compare.py [--rounds N]` (the first step of `make bench`). On the four real-server
suites (the parity suites in tests/parity/suites plus bench/suites/everything50: server-everything,
server-filesystem, server-memory, mcp-server-time) it runs every variant in one process, one suite after
another, interleaved per round. Every run starts cold, in an empty temporary working directory of its own
(the fixture copied in, a fresh memory graph): toolproof finds no case durations there (`.toolproof/`, which
orders the cases it starts), so nothing a test or an earlier run left behind changes a figure. It prints per
variant: the wall time and the CPU time (user + system of the whole process tree) summed over the suites,
the ratio to mcp-assert and to mcp-assert --reuse-server, how many cases shared a server, and how many
verdicts differ from the same tool's fresh run (a wrong verdict is the price mcp-assert's reuse pays on
stateful cases); then each variant's wall time per suite, and its CPU per suite split into the tool's own
process and its children (the servers). From those, each suite's floor: the least wall time a run starting
those servers could take on this machine, their CPU over the cores and never less than the longest case
(fresh: the servers of mcp-assert's fresh run; reuse: those of toolproof --reuse-server's run); a ratio's
floor is the sum of the floors over the other tool's wall time. Then the same two ratios over the suites
where both tools do the same work (each tool's verdicts equal its fresh run's, and no case says
`expect_notification: true`, which toolproof waits for and mcp-assert does not), with the reason each other
suite is left out. It also prints the load average when it started and ended, since the ratios only mean
something when both ran under the same load, and the toolproof and mcp-assert versions and commit measured.
toolproof runs from its bytecode cache, as an installed copy does (compiled first). Then start-up: `--help`,
`--version`, `check` on a one-case file and two suites that start no server (median of five; the floor is
`python -c pass`), and the top entries of `python -X importtime -m toolproof check`; the probes: `lint` +
`audit` of the four servers by both tools, default flags, one run (bench_probes.py), with the four servers in
one toolproof command each (side by side) and with a command per server, and the floor the longest call
sets; then every speed target with its figure and its floor in one table; and memory: toolproof's peak RSS
on 100 and on 1,000 cases. `--suites-only` stops after the suite ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

# this script's directory is on sys.path
from bench_startup import TARGETS as STARTUP_TARGETS
from floors import floor_s, left_out_because, longest_case_s, notification_waits, ratio_over
from tree_cpu import Measured, run_measured

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
SAME_WORK = {FRESH: f"{FRESH}, same work", REUSE: f"{REUSE}, same work"}
PROBES = "probes / mcp-assert, servers at once"
PROBES_EACH = "probes / mcp-assert, a command a server"
RATIO_TARGETS = (
    (FRESH, 0.35),
    (SAME_WORK[FRESH], 0.35),
    (REUSE, 0.5),
    (SAME_WORK[REUSE], 0.5),
    (PROBES, 0.5),
    (PROBES_EACH, 0.5),
)
PAIRS = (
    (FRESH, "toolproof", "mcp-assert", "mcp-assert"),
    (REUSE, "toolproof --reuse-server", "mcp-assert --reuse-server", "toolproof --reuse-server"),
)
"""Per suite target: toolproof's variant, mcp-assert's, and the variant whose servers' CPU sets the floor."""


@dataclass
class SuiteRuns:
    """One variant on one suite, over the rounds: wall and CPU seconds summed (the whole process tree's, and
    the tool's own process's), each case's shortest duration, the last round's verdicts, cases that shared."""

    wall: float = 0.0
    cpu: float = 0.0
    own_cpu: float = 0.0
    durations: dict[str, float] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    shared: int = 0

    @property
    def children_cpu(self) -> float:
        """The CPU of the tool's children (its servers; toolproof's watchdog too)."""
        return max(0.0, self.cpu - self.own_cpu)

    def add(self, measured: Measured, results: list[dict[str, Any]]) -> None:
        self.wall += measured.wall_s
        self.cpu += measured.cpu_s
        self.own_cpu += measured.own_cpu_s
        for result in results:
            name, seconds = result["name"], (result.get("duration_ms") or 0.0) / 1000
            self.durations[name] = min(self.durations.get(name, seconds), seconds)
            self.verdicts[name] = str(result["status"]).upper()
            self.shared += result.get("shared_server") is not None


def workplace(scratch: Path, fixture: Path | None) -> Path:
    """An empty working directory of its own for one run: nothing recorded by an earlier run (toolproof
    keeps case durations in `.toolproof/` under it), a copy of the suite's fixture where the suites name it
    (relative to the repository root), and an empty directory for the memory server's graph files."""
    cwd = Path(tempfile.mkdtemp(prefix="run-", dir=scratch))
    if fixture is not None:
        shutil.copytree(fixture, cwd / fixture.relative_to(ROOT))
    (cwd / "memory").mkdir()
    return cwd


def environment(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(ROOT / ".venv" / "bin"), str(ROOT / "node_modules" / ".bin"), env["PATH"]]
    )
    env["NO_COLOR"] = "1"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed toolproof runs from its bytecode cache
    env["PARITY_SUITE_VAR"] = "expanded"
    env.pop("PARITY_UNSET_VARIABLE", None)
    env["PARITY_MEMORY_DIR"] = str(cwd / "memory")  # a fresh graph every run
    return env


def run_variant(
    variant: str, suite: Path, fixture: Path | None, scratch: Path
) -> tuple[Measured, list[dict[str, Any]]]:
    """Wall time, CPU and per-case results (name, status, duration_ms, shared_server) of one variant on one
    suite, run in a working directory of its own."""
    tool, *flags = variant.split()
    cwd = workplace(scratch, fixture)
    fixture_args = ["--fixture", str(cwd / fixture.relative_to(ROOT))] if fixture else []
    report = cwd / "report.json"
    if tool == "mcp-assert":
        argv = [
            mcp_assert_binary(),
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
    done = run_measured(argv, cwd, environment(cwd))
    if done.returncode not in (0, 1):
        sys.exit(
            f"{variant} on {suite.name} exited {done.returncode}:\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    results = json.loads(done.stdout) if tool == "mcp-assert" else json.loads(report.read_text())["results"]
    return done, results


def git_revision() -> str:
    """The repository's commit, and whether src/ differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return git("rev-parse", "--short", "HEAD") + (
        " with uncommitted changes to src/" if git("status", "--porcelain", "--", "src") else ""
    )


def mcp_assert_binary() -> str:
    binary = shutil.which("mcp-assert", path=str(ROOT / ".venv" / "bin"))
    if binary is None:
        sys.exit("mcp-assert is not in .venv/bin: run `make setup`")
    return binary


def mcp_assert_version() -> str:
    done = subprocess.run([mcp_assert_binary(), "--version"], capture_output=True, text=True, check=False)
    return done.stdout.split()[-1] if done.stdout.split() else "unknown"


def load() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def start_up(scratch: Path) -> tuple[dict[str, float], float]:
    """Start-up as bench/bench_startup.py measures it (median wall and CPU of five runs, bytecode cache warm,
    in an empty working directory): `--help`, `--version`, a real one-case `check` (bench/startup's case
    against its recorded run; a status other than 0 or 1 stops the benchmark) and a suite that starts no
    server, then the top imports of that check. Returns the wall seconds by command, and the floor: the
    median wall of `python -c pass`, which no command of a Python tool can beat."""
    from bench_startup import COMMANDS, measure, top_imports  # this script's directory is on sys.path

    cwd = Path(tempfile.mkdtemp(prefix="start-up-", dir=scratch))
    python, _ = measure([], python=[sys.executable, "-c", "pass"], cwd=cwd)
    walls: dict[str, float] = {}
    print("\nstart-up (median of 5)                wall      cpu   target")
    print(f"  {'python -c pass (the floor)':<32} {python * 1000:5.0f} ms")
    for label, target in STARTUP_TARGETS.items():
        wall, cpu = measure(COMMANDS[label], cwd=cwd)
        walls[label] = wall
        timing = f"{wall * 1000:5.0f} ms {cpu * 1000:5.0f} ms"
        print(f"  toolproof {label:<22} {timing}  <= {target * 1000:.0f} ms")
    print("  python -X importtime -m toolproof check (one case): top cumulative imports")
    for us, name in top_imports(COMMANDS["check (one case)"], cwd, 8):
        print(f"    {us / 1000:6.1f} ms  {name}")
    return walls, python


def probes(scratch: Path) -> tuple[dict[str, float], dict[str, float]]:
    """`lint` + `audit` of the four real servers, default flags, one run each (bench_probes.py): toolproof's
    wall time over mcp-assert's with every server in one toolproof command (`--server` repeated, side by
    side; mcp-assert takes one server per command), with one toolproof command per server as mcp-assert
    runs them, and the floor of each: the longest single call both tools make (server-everything's
    trigger-long-running-operation, 10 s) over mcp-assert's time, which no tool that makes that call can
    beat however well it overlaps the rest. Returns the ratios and the floors by target."""
    # this script's directory is on sys.path
    from bench_probes import SERVERS, Flags, measure, measure_together

    print("\nprobes, default flags, one run       toolproof  mcp-assert  ratio")
    ours = theirs = 0.0
    for timing in measure(("lint", "audit"), SERVERS, Flags(), scratch):
        ours, theirs = ours + timing.ours_s, theirs + timing.theirs_s
        label, ratio = f"{timing.probe} {timing.server}", timing.ours_s / timing.theirs_s
        print(f"  {label:<32}{timing.ours_s:9.2f}s{timing.theirs_s:11.2f}s{ratio:7.2f}")
    each, theirs_each = ours / theirs, theirs
    print(f"  {'lint + audit, a command a server':<32}{ours:9.2f}s{theirs:11.2f}s{each:7.2f}")
    ours = theirs = longest = 0.0
    for together in measure_together(("lint", "audit"), SERVERS, Flags(), scratch):
        ours, theirs = ours + together.ours_s, theirs + together.theirs_s
        longest = max(longest, together.longest_call_s)
        label, ratio = f"{together.probe}, four servers at once", together.ours_s / together.theirs_s
        print(f"  {label:<32}{together.ours_s:9.2f}s{together.theirs_s:11.2f}s{ratio:7.2f}")
    print(f"  {'lint + audit, servers at once':<32}{ours:9.2f}s{theirs:11.2f}s{ours / theirs:7.2f}")
    print(f"  floor: the longest call ({longest:.2f}s) / mcp-assert's {theirs:.2f}s = {longest / theirs:.2f}")
    ratios = {PROBES: ours / theirs, PROBES_EACH: each}
    return ratios, {PROBES: longest / theirs, PROBES_EACH: longest / theirs_each}


def targets(
    ratios: dict[str, float], floors: dict[str, float], walls: dict[str, float], python: float
) -> None:
    """Every figure of the speed targets (issue 30) in one table, beside its target and its floor: what this
    machine lets any run reach (the suites: their servers' CPU over the cores; the probes: their longest
    call; start-up: Python's own start)."""
    print(f"\n{'speed targets':<54}{'measured':>10}{'target':>10}{'floor':>10}")
    for label, limit in RATIO_TARGETS:
        print(f"  {label:<52}{ratios[label]:9.2f}x{limit:9.2f}x{floors[label]:9.2f}x")
    for label in SPEED_STARTUP:
        print(
            f"  {label + ', median of 5':<52}{walls[label]:9.3f}s{STARTUP_TARGETS[label]:9.2f}s{python:9.3f}s"
        )


def peak_rss_kb(suite: Path, cwd: Path) -> int:
    """Peak RSS of a toolproof run of `suite` (trajectory cases: toolproof's own bookkeeping, no server)."""
    probe = (
        "import resource, sys\nfrom toolproof import api\n"
        "api.run_suite([sys.argv[1]], jobs=2, reuse_server=True)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(suite)], cwd=cwd, capture_output=True, text=True, check=True
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
        sizes[count] = peak_rss_kb(suite, workplace(scratch, None)) / 1024
        print(f"  {count:5d} cases   {sizes[count]:6.1f} MB")
    print(f"  growth {sizes[1000] - sizes[100]:+.1f} MB (target <= +10 MB)")


Runs = dict[str, dict[str, SuiteRuns]]
"""By variant, by suite name."""


def run_suites(scratch: Path, rounds: int) -> Runs:
    """Every variant on every suite, interleaved: each round, each suite, the variants one after another."""
    runs: Runs = {variant: {suite.name: SuiteRuns() for suite, _ in SUITES} for variant in VARIANTS}
    for _ in range(rounds):
        for suite, fixture in SUITES:
            for variant in VARIANTS:
                runs[variant][suite.name].add(*run_variant(variant, suite, fixture, scratch))
    return runs


def differing(runs: Runs, variant: str, suite: str) -> list[str]:
    """The cases of `suite` whose verdict under `variant` is not the same tool's fresh verdict."""
    fresh = runs[variant.split()[0]][suite].verdicts
    return sorted(name for name, status in runs[variant][suite].verdicts.items() if fresh.get(name) != status)


def print_variants(runs: Runs, rounds: int) -> None:
    """Each variant's wall and CPU seconds over the suites, its ratios, shared cases and verdict agreement,
    then the wall and the CPU of each variant on each suite."""
    names = [suite.name for suite, _ in SUITES]
    total = {variant: sum(run.wall for run in by_suite.values()) for variant, by_suite in runs.items()}
    peer, peer_reuse = total["mcp-assert"], total["mcp-assert --reuse-server"]
    print(
        f"\n{'variant':<28}{'wall s':>8}{'cpu s':>8}{'cores':>6}{'/ mcp-assert':>14}{'/ its reuse':>13}"
        f"{'shared':>8}  verdicts vs the same tool fresh"
    )
    for variant, by_suite in runs.items():
        differ = sum(len(differing(runs, variant, name)) for name in names)
        agree = "same" if not differ else f"{differ} differ"
        shared = sum(run.shared for run in by_suite.values()) // rounds if "toolproof" in variant else "-"
        wall, cpu = total[variant], sum(run.cpu for run in by_suite.values())
        print(
            f"{variant:<28}{wall:8.1f}{cpu:8.1f}{cpu / wall:6.2f}{wall / peer:14.2f}{wall / peer_reuse:13.2f}"
            f"{shared:>8}  {agree}"
        )
    for variant in VARIANTS:
        for name in names:
            fresh = runs[variant.split()[0]][name].verdicts
            for case in differing(runs, variant, name):
                verdict = runs[variant][name].verdicts[case]
                print(f"  {variant}: {name}/{case}: {verdict} (fresh {fresh.get(case)})")
    print(f"\n{'wall s per suite':<28}" + "".join(f"{name:>14}" for name in names))
    for variant, by_suite in runs.items():
        print(f"{variant:<28}" + "".join(f"{by_suite[name].wall / rounds:14.1f}" for name in names))
    print(f"\n{'cpu s per suite, own+children':<28}" + "".join(f"{name:>14}" for name in names))
    for variant, by_suite in runs.items():
        cells = (f"{run.own_cpu / rounds:.1f}+{run.children_cpu / rounds:.1f}" for run in by_suite.values())
        print(f"{variant:<28}" + "".join(f"{cell:>14}" for cell in cells))
    print(
        "  user + system seconds; own: the tool's process; children: everything it started and waited for\n"
        "  (the servers, and toolproof's watchdog); cpu s is the whole tree's (getrusage RUSAGE_CHILDREN),\n"
        "  cores its average use of the machine's cores (cpu s / wall s)"
    )


def suite_floors(runs: Runs, rounds: int) -> dict[str, dict[str, float]]:
    """Print and return, for the fresh and the reuse target, each suite's floor in seconds (one round's)."""
    names = [suite.name for suite, _ in SUITES]
    cores = len(os.sched_getaffinity(0))
    floors: dict[str, dict[str, float]] = {}
    print(f"\n{f'floors on {cores} cores, s':<28}" + "".join(f"{name:>14}" for name in names) + f"{'all':>8}")
    for target, ours, theirs, cpu_of in PAIRS:
        cpu = {name: runs[cpu_of][name].children_cpu / rounds for name in names}
        longest = {
            name: longest_case_s(runs[ours][name].durations, runs[theirs][name].durations) for name in names
        }
        floors[target] = {name: floor_s(cpu[name], cores, longest[name]) for name in names}
        own = {name: runs[ours][name].own_cpu / rounds for name in names}
        with_own = {name: floor_s(cpu[name] + own[name], cores, longest[name]) for name in names}
        mode = "fresh" if target == FRESH else "reuse"
        for label, row in (
            (f"{mode}: servers' cpu", cpu),
            ("  longest case", longest),
            ("  floor", floors[target]),
            ("  floor + toolproof's cpu", with_own),
        ):
            cells = "".join(f"{row[name]:14.1f}" for name in names)
            print(f"{label:<28}{cells}{sum(row.values()):8.1f}")
    print(
        f"  floor = max(servers' cpu / {cores} cores, longest case): the least wall a run starting those\n"
        "  servers could take here. fresh: the servers of mcp-assert's fresh run (one a case, as toolproof\n"
        "  starts them; mcp-assert runs them one at a time, so their CPU is not inflated by contention);\n"
        "  reuse: those of toolproof --reuse-server's run (the servers its rule must start). longest case:\n"
        "  each case at the shorter of the two tools' times in that mode. floor + toolproof's cpu: the same\n"
        "  with the CPU of toolproof's own process in that run added to the servers' (not a ratio's floor)"
    )
    return floors


def same_work(runs: Runs, rounds: int, floors: dict[str, dict[str, float]]) -> dict[str, tuple[float, float]]:
    """Print and return the ratio and its floor over the suites where both tools did the same work, by label,
    and why each other suite is left out."""
    names = [suite.name for suite, _ in SUITES]
    print("\nsame work: the suites where each tool's verdicts equal its fresh run's, and no case expects a")
    print("notification (toolproof waits for one up to --subscription-wait; mcp-assert does not wait)")
    found = {}
    for target, ours, theirs, _ in PAIRS:
        kept, notes = [], []
        for suite, _ in SUITES:
            count = {variant: len(differing(runs, variant, suite.name)) for variant in (ours, theirs)}
            reasons = left_out_because(count, notification_waits(suite))
            if reasons:
                notes.append(f"  {suite.name} left out: {'; '.join(reasons)}")
            else:
                kept.append(suite.name)
        if kept:
            walls = {
                variant: {name: runs[variant][name].wall for name in names} for variant in (ours, theirs)
            }
            ratio = ratio_over(walls[ours], walls[theirs], kept)
            floor = ratio_over({name: floors[target][name] * rounds for name in names}, walls[theirs], kept)
            found[SAME_WORK[target]] = (ratio, floor)
            print(f"{SAME_WORK[target]}: {ratio:.2f}x, floor {floor:.2f}x, over {', '.join(kept)}")
        else:
            print(f"{SAME_WORK[target]}: every suite left out")
        print("\n".join(notes))
    return found


def report_suites(runs: Runs, rounds: int) -> tuple[dict[str, float], dict[str, float]]:
    """Print the suite tables (wall, CPU, verdicts, floors, same work); return ratios and floors by target."""
    print_variants(runs, rounds)
    per_suite = suite_floors(runs, rounds)
    total = {variant: sum(run.wall for run in by_suite.values()) for variant, by_suite in runs.items()}
    ratios, floors = {}, {}
    for target, ours, theirs, _ in PAIRS:
        ratios[target] = total[ours] / total[theirs]
        floors[target] = sum(per_suite[target].values()) * rounds / total[theirs]
    for label, (ratio, floor) in same_work(runs, rounds, per_suite).items():
        ratios[label], floors[label] = ratio, floor
    return ratios, floors


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
    cases = sum(len(list(suite.glob("*.yaml"))) for suite, _ in SUITES)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; load {load()}")
    print(f"toolproof {version('toolproof')} ({git_revision()}), mcp-assert {mcp_assert_version()}")
    print(f"suites: {', '.join(suite.name for suite, _ in SUITES)} ({cases} cases), {args.rounds} round(s)")
    print(
        "every run of every variant starts cold, in an empty working directory of its own (its fixture\n"
        "copied in, a fresh memory graph): toolproof has no case durations recorded (.toolproof/), so it\n"
        "starts cases in a first run's order, as on a fresh checkout; nothing tests left behind is read"
    )
    compiled = dict(os.environ)
    compiled.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], env=compiled, check=True)
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        runs = run_suites(scratch, args.rounds)
        print(f"load at the end {load()}")
        ratios, floors = report_suites(runs, args.rounds)
        if args.suites_only:
            print()
            for label, target in RATIO_TARGETS:
                if label in ratios:
                    print(f"{label}: {ratios[label]:.2f}x (target {target}x, floor {floors[label]:.2f}x)")
            return 0
        probe_ratios, probe_floors = probes(scratch)
        ratios.update(probe_ratios)
        floors.update(probe_floors)
        walls, python = start_up(scratch)
        targets(ratios, floors, walls, python)
        if not args.skip_memory:
            memory(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
