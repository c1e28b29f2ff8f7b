"""`load.collect`: the one collection step, its stages in one order (-k, --lf/--ff, --shard, --resume)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from toolproof.load import LoadError, Selection, SelectionError, Shard, collect, run_order
from toolproof.load.collect import prioritise

NAMES = ["alpha refund", "beta refund", "gamma booking", "delta refund", "epsilon booking", "zeta refund"]


@pytest.fixture
def cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    directory = Path("cases")
    directory.mkdir()
    for number, name in enumerate(NAMES):
        case = f"name: {name}\nprompt: hi\nexpect:\n  - reply: {{contains: x}}\n"
        (directory / f"{number}.yaml").write_text(case)
    (directory / "broken.yaml").write_text("name: broken\nprompt: hi\nexpect: [{nonsense: 1}]\n")
    return directory


def names(items: Sequence[object]) -> list[str]:
    return [getattr(item, "name", "<load error>") for item in items]


def test_without_a_selection_every_case_and_load_error_is_collected(cases: Path) -> None:
    collected = collect([cases], kind="agent")
    assert sorted(names(collected.cases)) == sorted(NAMES)
    assert [error.file.name for error in collected.errors] == ["broken.yaml"]
    assert collected.found == collected.items and collected.sharded is None and collected.order is None


def test_k_keeps_load_errors_and_a_pattern_that_selects_nothing_is_an_error(cases: Path) -> None:
    collected = collect([cases], Selection(pattern="refund and not beta"), kind="agent")
    assert names(collected.cases) == ["alpha refund", "delta refund", "zeta refund"]
    assert len(collected.errors) == 1
    with pytest.raises(SelectionError, match="-k 'nothing' selects none of the 6 cases found"):
        collect([cases], Selection(pattern="nothing"), kind="agent")


def test_lf_and_ff_read_a_case_as_failed_when_one_of_its_checks_did(cases: Path) -> None:
    failed = frozenset({"cases/2.yaml::gamma booking › reply contains", "cases/4.yaml::epsilon booking"})
    only = collect([cases], Selection(failed=failed, failed_only=True), kind="agent")
    assert names(only.cases) == ["gamma booking", "epsilon booking"]
    assert len(only.errors) == 1  # a file that does not load is always reported
    first = collect([cases], Selection(failed=failed), kind="agent")
    assert names(first.cases)[:2] == ["gamma booking", "epsilon booking"]
    assert len(first.cases) == len(NAMES)


def test_the_stages_run_in_order_k_then_lf_then_shard_then_resume(cases: Path) -> None:
    failed = frozenset(
        {"cases/0.yaml::alpha refund", "cases/3.yaml::delta refund", "cases/2.yaml::gamma booking"}
    )
    everything = Selection(pattern="refund", failed=failed, failed_only=True)
    selected = collect([cases], everything, kind="agent")
    assert names(selected.cases) == ["alpha refund", "delta refund"]  # gamma: not selected by -k
    assert len(selected.found) == len(NAMES) + 1  # what was found, before any stage
    parts = [
        collect([cases], Selection("refund", failed, True, Shard(index, 2)), kind="agent") for index in (1, 2)
    ]
    assert sorted(names([*parts[0].cases, *parts[1].cases])) == ["alpha refund", "delta refund"]
    assert all(part.sharded is not None and part.sharded.order == run_order(selected.items) for part in parts)
    finished = frozenset({"cases/0.yaml::alpha refund"})
    resumed = collect([cases], Selection("refund", failed, True, finished=finished), kind="agent")
    assert names(resumed.cases) == ["delta refund"]
    assert resumed.order == run_order(selected.items)  # every item of the run, finished or not


def test_one_collection_for_every_kind_of_case(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(
        "name: a server case\nserver: {command: srv}\nassert: {tool: t}\n---\n"
        "name: an agent case\nprompt: hi\nexpect: [{reply: {contains: x}}]\n"
    )
    assert names(collect([mixed], kind="any").items) == ["a server case", "an agent case"]
    assert names(collect([mixed]).items) == ["a server case", "<load error>"]  # run reads server cases only
    assert names(collect([mixed], kind="agent").items) == ["an agent case"]


def test_prioritise_keeps_load_errors_in_place() -> None:
    error = LoadError(file=Path("x.yaml"), line=1, column=1, field="", message="bad")
    items = ["a", error, "b"]
    node_id = lambda item: item if isinstance(item, str) else None  # noqa: E731
    assert prioritise(items, node_id, {"b"}, only=True) == [error, "b"]
    assert prioritise(items, node_id, {"b"}, only=False) == ["b", "a", error]
