"""The one collection step of every command that runs cases and of the pytest plugin: the files the paths
name, their cases and load errors, then the selection stages, once and in this order: `-k`, `--lf`/`--ff`,
`--shard`, `--resume`. `--maxfail`/`-x` rides along in the `Selection` for the scheduler that runs the items.

A stage keeps load errors (a file that does not load is reported, whatever is selected) and keeps the order
of what it keeps, except `--ff`, which moves the cases that failed last time to the front.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal, TypeVar, overload

from toolproof.core.writing import warn
from toolproof.load.errors import LoadError
from toolproof.load.selection import SelectionError, select
from toolproof.load.shards import Shard, Sharded, run_order, take_shard, unfinished
from toolproof.model.envelope import CaseEnvelope

if TYPE_CHECKING:
    from toolproof.model.scenario import AgentCase
    from toolproof.model.server_case import Case

C = TypeVar("C", bound=CaseEnvelope)
T = TypeVar("T")
Kind = Literal["server", "agent", "any"]
FAILED_CHECK = " › "
"""What joins a case's node id and a check's name in the id of a check's result (`check`, `eval`)."""


@dataclass(frozen=True)
class Selection:
    """Which collected cases run, and when the run stops: the same for every command (the pytest plugin
    collects with none and leaves -k, --lf and -x to pytest).

    `pattern`: `-k`. `failed`: the node ids (`file::name`, or a check's `file::name › check`) that failed last
    time, for `--lf` (`failed_only`: only those) or `--ff` (those first); None for neither. `shard`:
    `--shard K/N`. `finished`: `--resume`, the ids of the cases a stopped run finished. `maxfail`: stop after
    that many failed cases (0: never)."""

    pattern: str | None = None
    failed: frozenset[str] | None = None
    failed_only: bool = False
    shard: Shard | None = None
    finished: frozenset[str] | None = None
    maxfail: int = 0


@dataclass(frozen=True)
class Collected(Generic[C]):
    """What `collect` gives: `items` to run, in run order; `found`, every case and load error of the files
    before any stage (what a case's recorded runs are paired among, `check`); `sharded` when --shard took
    part; `order`, under --resume, the ids of every item of the shard in run order (finished or not)."""

    items: tuple[C | LoadError, ...]
    found: tuple[C | LoadError, ...] = ()
    sharded: Sharded | None = None
    order: tuple[str, ...] | None = None

    @property
    def cases(self) -> list[C]:
        return [item for item in self.items if not isinstance(item, LoadError)]

    @property
    def errors(self) -> list[LoadError]:
        return [item for item in self.items if isinstance(item, LoadError)]


@overload
def collect(
    paths: Sequence[Path],
    selection: Selection = ...,
    *,
    kind: Literal["server"] = ...,
    leave_out: frozenset[Path] = ...,
    skip_found: Callable[[Path], str | None] | None = ...,
    note: Callable[[str], None] = ...,
) -> Collected[Case]: ...


@overload
def collect(
    paths: Sequence[Path],
    selection: Selection = ...,
    *,
    kind: Literal["agent"],
    leave_out: frozenset[Path] = ...,
    skip_found: Callable[[Path], str | None] | None = ...,
    note: Callable[[str], None] = ...,
) -> Collected[AgentCase]: ...


@overload
def collect(
    paths: Sequence[Path],
    selection: Selection = ...,
    *,
    kind: Literal["any"],
    leave_out: frozenset[Path] = ...,
    skip_found: Callable[[Path], str | None] | None = ...,
    note: Callable[[str], None] = ...,
) -> Collected[Case | AgentCase]: ...


def collect(
    paths: Sequence[Path],
    selection: Selection = Selection(),
    *,
    kind: Kind = "server",
    leave_out: frozenset[Path] = frozenset(),
    skip_found: Callable[[Path], str | None] | None = None,
    note: Callable[[str], None] = warn,
) -> Collected[Case] | Collected[AgentCase] | Collected[Case | AgentCase]:
    """The cases of `kind` (server: mcp-assert; agent: the agent dialects; any: both, file by file) and the
    load errors of the files `paths` name, through the stages of `selection`.

    `leave_out`: resolved files that are not cases though they sit among them (settings, trace files).
    `skip_found(path)`: for an agent file a directory walk found, the note to skip it with (None: load it).
    Raises SuiteNotFound for a missing path, SelectionError for a `-k` pattern that does not parse or that
    selects none of the cases found."""
    loaded: list[CaseEnvelope | LoadError]
    if kind == "server":
        loaded = [*_server_items(paths, note)]
    elif kind == "agent":
        loaded = [*_agent_items(paths, leave_out, skip_found, note)]
    else:
        from toolproof.load.dialects import suffixes
        from toolproof.load.walk import walk

        wanted = suffixes("server") | suffixes("agent")
        loaded = [item for path in walk(paths, wanted) for item in load_any(path)]
    return _select(loaded, selection)  # type: ignore[return-value]


def _server_items(paths: Sequence[Path], note: Callable[[str], None]) -> list[Case | LoadError]:
    from toolproof.load import load_paths
    from toolproof.load.sharing import share_servers

    return share_servers(load_paths(paths, note))


def _agent_items(
    paths: Sequence[Path],
    leave_out: frozenset[Path],
    skip_found: Callable[[Path], str | None] | None,
    note: Callable[[str], None],
) -> list[AgentCase | LoadError]:
    from toolproof.load.agent_cases import CASE_SUFFIXES, load_agent_cases
    from toolproof.load.walk import walk

    named = {Path(os.path.realpath(path)) for path in paths}
    files: list[Path] = []
    for path in walk(paths, CASE_SUFFIXES):
        resolved = Path(os.path.realpath(path))  # a looping link has no resolve()
        if resolved in leave_out:
            continue
        if skip_found is not None and resolved not in named and (text := skip_found(path)) is not None:
            note(text)
            continue
        files.append(path)
    cases, errors = load_agent_cases(files)
    return [*errors, *cases]


def load_any(path: Path) -> list[Case | AgentCase | LoadError]:
    """Every case and load error of one file, of any dialect, in the order written."""
    from toolproof.load import load_source
    from toolproof.load.agent_cases import load_agent_cases
    from toolproof.load.dialects import dialect_of
    from toolproof.load.yaml_source import read_yaml

    source = read_yaml(path)
    server = {doc.index for doc in source.documents if (found := dialect_of(doc)) and found.kind == "server"}
    if len(server) == len(source.documents):
        return list(load_source(source))
    items: list[Case | AgentCase | LoadError] = [
        item
        for item in load_source(source)
        if not isinstance(item, LoadError) or (item.document in server and item not in source.errors)
    ]
    cases, errors = load_agent_cases([path])
    return sorted([*items, *cases, *errors], key=_position)


def _position(item: CaseEnvelope | LoadError) -> tuple[int, int]:
    if isinstance(item, LoadError):
        return item.line, item.column
    return item.source.line, item.source.column


def _select(loaded: Sequence[C | LoadError], selection: Selection) -> Collected[C]:
    """The stages, in order: -k, --lf/--ff, --shard, --resume."""
    found = [item for item in loaded if not isinstance(item, LoadError)]
    chosen = {id(case) for case in select(found, selection.pattern)}
    if found and not chosen:
        raise SelectionError(f"-k {selection.pattern!r} selects none of the {len(found)} cases found")
    kept = [item for item in loaded if isinstance(item, LoadError) or id(item) in chosen]
    if selection.failed is not None:
        kept = prioritise(kept, _node_id, failed_cases(selection.failed), only=selection.failed_only)
    taken, sharded = take_shard(kept, selection.shard)
    if selection.finished is None:
        return Collected(tuple(taken), tuple(loaded), sharded)
    return Collected(tuple(unfinished(taken, selection.finished)), tuple(loaded), sharded, run_order(taken))


def _node_id(item: CaseEnvelope | LoadError) -> str | None:
    return None if isinstance(item, LoadError) else item.node_id


def failed_cases(failed: frozenset[str]) -> set[str]:
    """The node ids of the cases among recorded failures: a case failed when its own result or one of its
    checks' results (`file::name › check`) did."""
    return {node.split(FAILED_CHECK)[0] for node in failed}


def prioritise(
    items: Sequence[T], node_id: Callable[[T], str | None], failed: set[str], *, only: bool
) -> list[T]:
    """With `only`, the items that failed last time (all of them when none of them did); else every item,
    those that failed last time first. Items without a node id (load errors) always stay, in place."""
    if not any(node_id(item) in failed for item in items):
        return list(items)
    if only:
        return [item for item in items if node_id(item) is None or node_id(item) in failed]
    return [item for item in items if node_id(item) in failed] + [
        item for item in items if node_id(item) not in failed
    ]

