"""The arithmetic of compare.py's floors and of its "same work" ratios, apart from any measuring.

A floor is the least wall time a run could take on this machine: the CPU its servers need spread over every
core, and never less than its longest single case (a case cannot be split across cores). A ratio's floor is
that floor over the other tool's wall time. A suite counts towards a "same work" ratio only when both tools
did the same work on it: each tool's verdicts equal its own fresh run's, and no case expects a notification
(`expect_notification: true`: toolproof waits up to `--subscription-wait` for one, mcp-assert checks at once).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML


def floor_s(servers_cpu_s: float, cores: int, longest_case_s: float) -> float:
    """The least wall seconds of a run whose servers use `servers_cpu_s` of CPU on `cores` cores."""
    if cores < 1:
        raise ValueError(f"cores must be at least 1, not {cores}")
    return max(servers_cpu_s / cores, longest_case_s)


def longest_case_s(*runs: Mapping[str, float]) -> float:
    """The longest case of a suite, each case at the shortest time any of `runs` (case name: seconds) gave it:
    the least time the slowest case is known to need."""
    names = set().union(*runs)
    return max((min(run[name] for run in runs if name in run) for name in names), default=0.0)


def _mappings(node: Any) -> Iterator[Mapping[Any, Any]]:
    if isinstance(node, Mapping):
        yield node
        for value in node.values():
            yield from _mappings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _mappings(item)


def notification_waits(suite: Path) -> list[str]:
    """The files of `suite` (a directory of YAML cases) with a block saying `expect_notification: true`."""
    yaml = YAML(typ="safe", pure=True)
    found = []
    for path in sorted(suite.glob("*.yaml")):
        documents = list(yaml.load_all(path.read_text(encoding="utf-8")))
        if any(block.get("expect_notification") is True for block in _mappings(documents)):
            found.append(path.name)
    return found


def left_out_because(differing: Mapping[str, int], waits: Sequence[str]) -> list[str]:
    """Why a suite is left out of a "same work" ratio (none: it is kept): the variants whose verdicts differ
    from the same tool's fresh run (variant: how many), and the cases that expect a notification."""
    reasons = [
        f"{variant}: {count} verdict{'s' * (count != 1)} differ{'s' * (count == 1)} from its fresh run"
        for variant, count in differing.items()
        if count
    ]
    if waits:
        reasons.append(f"{', '.join(waits)} expect{'s' * (len(waits) == 1)} a notification")
    return reasons


def ratio_over(ours: Mapping[str, float], theirs: Mapping[str, float], suites: Iterable[str]) -> float:
    """The sum of `ours` over `suites` divided by the sum of `theirs` over the same suites."""
    kept = list(suites)
    if not kept:
        raise ValueError("no suite to take a ratio over")
    return sum(ours[suite] for suite in kept) / sum(theirs[suite] for suite in kept)
