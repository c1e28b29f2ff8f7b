"""`--shard K/N`: the split is a stable hash of each case's node id, disjoint, whole and portable."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.load.errors import LoadError
from toolproof.load.selection import SelectionError
from toolproof.load.shards import Shard, shard_key, take_shard
from toolproof.model.envelope import CaseEnvelope, SourceRef

IDS = [f"suite/file{number % 7}.yaml::case {number}" for number in range(300)]


def _case(file: str, name: str) -> CaseEnvelope:
    return CaseEnvelope(name=name, source=SourceRef(file=Path(file)))


def _shard_of(key: str, total: int) -> int:
    return next(index for index in range(1, total + 1) if Shard(index, total).holds(key))


@pytest.mark.parametrize("total", [1, 2, 3, 4, 5])
def test_the_shards_are_disjoint_and_cover_every_case(total: int) -> None:
    held = [[key for key in IDS if Shard(index, total).holds(key)] for index in range(1, total + 1)]
    assert sorted(key for part in held for key in part) == sorted(IDS)
    assert sum(len(part) for part in held) == len(IDS)
    assert all(len(part) > len(IDS) / total / 2 for part in held)  # no shard starves


def test_a_case_keeps_its_shard_when_another_is_added_or_removed() -> None:
    before = {key: _shard_of(key, 4) for key in IDS}
    after = {key: _shard_of(key, 4) for key in [*IDS[:100], "suite/new.yaml::a new case", *IDS[150:]]}
    assert all(after[key] == before[key] for key in after if key in before)


def test_the_split_is_pinned_so_every_machine_computes_the_same() -> None:
    # sha256, not Python's salted hash(): these shards hold in every process and on every machine
    assert [_shard_of(f"a.yaml::case {number}", 5) for number in range(8)] == [3, 5, 5, 1, 3, 1, 4, 4]


def test_a_file_under_the_working_directory_hashes_as_written_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert shard_key(tmp_path / "suite" / "a.yaml", "x") == shard_key(Path("suite/a.yaml"), "x")
    assert shard_key(Path("/elsewhere/a.yaml"), "x") == "/elsewhere/a.yaml::x"


def test_take_shard_keeps_load_errors_in_one_shard_and_records_the_whole_order() -> None:
    broken = LoadError(file=Path("b.yaml"), line=3, column=1, field="assert", message="bad", case="broken")
    items = [_case("a.yaml", f"case {number}") for number in range(10)] + [broken]
    parts = [take_shard(items, Shard(index, 3)) for index in range(1, 4)]
    assert sorted(id(item) for taken, _ in parts for item in taken) == sorted(map(id, items))
    recorded = {sharded.order for _, sharded in parts if sharded is not None}
    assert recorded == {(*(f"a.yaml::case {number}" for number in range(10)), "b.yaml::broken (load error)")}
    assert take_shard(items, None) == (items, None)


@pytest.mark.parametrize("text", ["0/3", "4/3", "1", "a/b", "1/0", "-1/2", "1/2/3"])
def test_a_malformed_shard_is_refused(text: str) -> None:
    with pytest.raises(SelectionError, match=r"--shard"):
        Shard.parse(text)


def test_a_shard_reads_with_blanks_and_prints_as_k_of_n() -> None:
    assert str(Shard.parse(" 2 / 5 ")) == "2/5"
