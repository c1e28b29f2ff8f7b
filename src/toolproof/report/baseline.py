"""Baselines: a run's verdicts saved as mcp-assert saves them (`{entries: [{name, status}]}`, plus `pass_rate`
for a case run as trials), and a later run compared with one: regressions, new and removed cases.

A regression is a case that passed in the baseline and does not now, or whose pass rate over trials fell.
New and removed cases are listed but are not regressions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from toolproof.core.sanitize import MASK, Scrubber
from toolproof.core.writing import warn, write_best_effort
from toolproof.model.events import Event, RunFinished
from toolproof.model.result import CaseResult, Status
from toolproof.report.cut_short import CutShort


class BaselineError(ValueError):
    """A baseline file that cannot be read; the message names the file and the problem."""


class Entry(BaseModel):
    """One case of a baseline; unknown keys (mcp-assert's `language`) are kept."""

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str
    status: str
    pass_rate: float | None = None


def entries_of(results: Iterable[CaseResult]) -> dict[str, Entry]:
    """The baseline entries of a run, by case name (the last result of a name wins, as in mcp-assert)."""
    found: dict[str, Entry] = {}
    for result in results:
        rate = result.trials.rate if result.trials is not None and result.trials.n > 1 else None
        found[result.name] = Entry(
            name=result.name, status=result.status.value, pass_rate=None if rate is None else round(rate, 6)
        )
    return found


def baseline_document(results: Iterable[CaseResult], secrets: Iterable[str] = ()) -> str:
    """The baseline file of a run: entries sorted by name, as JSON text."""
    scrub = Scrubber(secrets)
    entries = sorted(entries_of(results).values(), key=lambda entry: entry.name)
    document = {
        "entries": [{**entry.model_dump(exclude_none=True), "name": scrub(entry.name)} for entry in entries]
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def load_baseline(path: str | os.PathLike[str]) -> dict[str, Entry]:
    """The entries of a baseline file by name. Raises BaselineError."""
    try:
        document: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise BaselineError(f"{path}: {error.strerror or error}") from error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: not JSON: {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise BaselineError(f"{path}: expected an object with an `entries` list")
    found: dict[str, Entry] = {}
    for number, item in enumerate(document["entries"]):
        try:
            entry = Entry.model_validate(item)
        except ValidationError as error:
            problem = error.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            raise BaselineError(f"{path}: entries[{number}].{field}: {problem['msg']}") from error
        found[entry.name] = entry
    return found


@dataclass(frozen=True)
class Regression:
    name: str
    before: Entry
    now: Entry

    @property
    def why(self) -> str:
        """`PASS -> FAIL`, or `pass rate 100% -> 67%`."""
        if self.before.status == Status.PASS.value and self.now.status != Status.PASS.value:
            return f"{self.before.status} -> {self.now.status}"
        return f"pass rate {self.before.pass_rate or 0:.0%} -> {self.now.pass_rate or 0:.0%}"


@dataclass(frozen=True)
class Comparison:
    """A run compared with a baseline."""

    regressions: tuple[Regression, ...] = ()
    new: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "regressions": [
                {"name": each.name, "before": each.before.status, "now": each.now.status, "why": each.why}
                for each in self.regressions
            ],
            "new": list(self.new),
            "removed": list(self.removed),
        }


def compare(baseline: dict[str, Entry], results: Sequence[CaseResult]) -> Comparison:
    """The regressions, new and removed cases of `results` against `baseline`."""
    now = entries_of(results)
    baseline = _unmasked(baseline, now)
    regressions = []
    for name, entry in now.items():
        before = baseline.get(name)
        if before is None:
            continue
        fell = before.status == Status.PASS.value and entry.status != Status.PASS.value
        rate_fell = (
            before.pass_rate is not None
            and entry.pass_rate is not None
            and entry.pass_rate < before.pass_rate - 1e-9
        )
        if fell or rate_fell:
            regressions.append(Regression(name, before, entry))
    return Comparison(
        regressions=tuple(sorted(regressions, key=lambda each: each.name)),
        new=tuple(sorted(name for name in now if name not in baseline)),
        removed=tuple(sorted(name for name in baseline if name not in now)),
    )


def _unmasked(baseline: dict[str, Entry], now: dict[str, Entry]) -> dict[str, Entry]:
    """`baseline` with each name saved masked (a secret in a case name is written as ***) keyed by the name
    of this run it stands for, so the case is compared rather than listed as removed and new."""
    keyed = dict(baseline)
    unmatched = [name for name in now if name not in baseline]
    for masked in [name for name in baseline if MASK in name and name not in now]:
        match = next((name for name in unmatched if _stands_for(masked, name)), None)
        if match is not None:
            keyed[match] = keyed.pop(masked)
            unmatched.remove(match)
    return keyed


def _stands_for(masked: str, name: str) -> bool:
    """Whether `name` is `masked` with each *** standing for at least one character."""
    first, *middle, last = masked.split(MASK)
    if not name.startswith(first) or not name.endswith(last):
        return False
    position, end = len(first), len(name) - len(last)
    for part in middle:
        found = name.find(part, position + 1)
        if found < 0:
            return False
        position = found + len(part)
    return end > position


class BaselineWriter:
    """Writes the run's baseline to `path` when it finishes; a run that stopped before every case ran (a
    signal, -x, --maxfail) leaves the file as it was, with a warning, as its cases that did not run would
    be missing from it."""

    def __init__(
        self, path: str | os.PathLike[str], secrets: Iterable[str] = (), *, stderr: TextIO | None = None
    ) -> None:
        self._path, self._secrets, self._stderr = path, tuple(secrets), stderr
        self._run = CutShort()

    def handle(self, event: Event) -> None:
        self._run.see(event)
        if isinstance(event, RunFinished):
            ran = self._run.ran(event)
            if ran is not None:
                warn(f"baseline not saved to {self._path}: the run stopped after {ran} cases", self._stderr)
                return
            text = baseline_document(event.results, self._secrets)
            write_best_effort(self._path, text, atomic=True, stderr=self._stderr)
