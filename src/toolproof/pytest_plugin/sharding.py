"""`--toolproof-shard K/N`: keep the toolproof cases of one shard, as `toolproof run --shard K/N` does.

The split is the one the commands make (`load/shards.py`), so a shard holds the same cases under pytest and
under `toolproof run`. Items that are no toolproof case are left alone. A shard that holds no case of the
suite says so and ends with status 0, not pytest's 5, so a CI matrix job does not fail for it.
"""

from __future__ import annotations

import pytest

from toolproof.load.shards import Shard, take_shard

EMPTIED = pytest.StashKey[str]()


def keep_shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the toolproof cases of other shards than --toolproof-shard's from `items`, in place;
    pytest.UsageError for a malformed shard."""
    from toolproof.load.selection import SelectionError
    from toolproof.pytest_plugin.items import AgentCaseItem, ServerCaseItem

    try:
        shard = Shard.parse(str(config.getoption("toolproof_shard")))
    except SelectionError as error:
        raise pytest.UsageError(f"toolproof: {error}") from None
    ours = [item for item in items if isinstance(item, (ServerCaseItem, AgentCaseItem))]
    taken, _ = take_shard([item.case for item in ours], shard)  # the commands' shard stage
    kept = set(map(id, taken))
    dropped = [item for item in ours if id(item.case) not in kept]
    if not dropped:
        return
    gone = set(map(id, dropped))
    items[:] = [item for item in items if id(item) not in gone]
    config.hook.pytest_deselected(items=dropped)
    if len(dropped) == len(ours):
        config.stash[EMPTIED] = f"toolproof shard {shard} held no case (of {len(ours)})"


def settle_empty(session: pytest.Session) -> None:
    """An emptied shard ends with 0 and a line saying so, when nothing else ran."""
    note = session.config.stash.get(EMPTIED, None)
    if note is None or session.exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(note)
    session.exitstatus = pytest.ExitCode.OK
