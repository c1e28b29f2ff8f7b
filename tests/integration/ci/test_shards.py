"""`--shard K/N` on real servers and recorded runs: the shards of a suite are disjoint and together give the
whole run's verdicts; an empty shard exits 0 and says so; `--collect-only` lists a shard; the pytest plugin
splits a suite as the commands do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.echo_suite import echo_case, write_echo_suite

from toolproof.cli import main

pytest_plugins = ("pytester",)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Eight cases in three files: five pass, two fail, one is skipped."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    write_echo_suite(tmp_path / "suite")
    return Path("suite")


def _verdicts(report: Path) -> dict[str, str]:
    document: dict[str, Any] = json.loads(report.read_text())
    return {entry["node_id"]: entry["status"] for entry in document["results"]}


def test_shards_are_disjoint_and_together_give_the_whole_runs_verdicts(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(suite), "--json", "whole.json", "-j", "2"]) == 1
    whole = _verdicts(Path("whole.json"))
    assert sorted(whole.values()) == ["FAIL", "FAIL", "PASS", "PASS", "PASS", "PASS", "PASS", "SKIP"]
    for total in range(1, 6):
        seen: dict[str, str] = {}
        for index in range(1, total + 1):
            report = Path(f"shard-{index}-of-{total}.json")
            status = main(
                ["run", str(suite), "--shard", f"{index}/{total}", "--json", str(report), "-j", "2"]
            )
            part = _verdicts(report)
            assert not set(part) & set(seen), f"shard {index}/{total} repeats a case"
            assert status == (1 if "FAIL" in part.values() else 0)
            seen.update(part)
        assert seen == whole, f"the {total} shards differ from the whole run"
    capsys.readouterr()


def test_collect_only_lists_a_shard_and_an_empty_shard_exits_0(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed: list[str] = []
    for index in (1, 2, 3):
        assert main(["run", str(suite), "--collect-only", "--shard", f"{index}/3"]) == 0
        listed += capsys.readouterr().out.splitlines()
    assert main(["run", str(suite), "--collect-only"]) == 0
    assert sorted(listed) == sorted(capsys.readouterr().out.splitlines())
    # one case selected, two shards: one of them holds nothing, and says so without failing the job
    statuses = [main(["ci", str(suite), "-k", "'case 1'", "--shard", f"{index}/2"]) for index in (1, 2)]
    captured = capsys.readouterr()
    assert statuses == [0, 0]
    assert "shard 1/2 held no case (of 1)" in captured.err or "shard 2/2 held no case (of 1)" in captured.err
    # only the skipped case: a shard of skips passes (the merge decides), the whole run has nothing counted
    assert main(["ci", str(suite), "-k", "'case 6'"]) == 5
    assert [main(["ci", str(suite), "-k", "'case 6'", "--shard", f"{index}/2"]) for index in (1, 2)] == [0, 0]
    capsys.readouterr()


def test_a_malformed_shard_is_a_usage_error(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", str(suite), "--shard", "3/2"])
    assert stopped.value.code == 2
    assert "--shard: K must be from 1 to N" in capsys.readouterr().err


def test_check_shards_recorded_runs_the_same_way(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cases, traces = ROOT / "examples" / "agent", ROOT / "examples" / "agent" / "traces"
    whole = tmp_path / "whole.json"
    main(["check", str(cases), "--skip-judge", "--json", str(whole), "--trace", str(traces)])
    expected = _verdicts(whole)
    assert len(expected) > 3
    for total in (2, 3):
        seen: dict[str, str] = {}
        for index in range(1, total + 1):
            report = tmp_path / f"{index}.json"
            main(
                [
                    "check",
                    str(cases),
                    "--skip-judge",
                    "--shard",
                    f"{index}/{total}",
                    "--json",
                    str(report),
                    "--trace",
                    str(traces),
                ]
            )
            part = _verdicts(report)
            assert not set(part) & set(seen)
            seen.update(part)
        assert seen == expected
    capsys.readouterr()


@pytest.mark.servers
def test_the_pytest_plugin_takes_the_shard_the_commands_take(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = pytester.path / "suite"
    folder.mkdir()
    for number in range(6):
        (folder / f"c{number}.yaml").write_text(echo_case(f"case {number}", f"case {number}"))
    for index in (1, 2):
        plugin = pytester.runpytest_subprocess(
            "--toolproof", "suite", "--collect-only", "-q", f"--toolproof-shard={index}/2"
        )
        from_plugin = sorted(line for line in plugin.outlines if "::" in line)
        capsys.readouterr()  # pytester echoes the subprocess's output
        assert main(["run", "suite", "--collect-only", "--shard", f"{index}/2"]) == 0
        assert from_plugin == sorted(capsys.readouterr().out.splitlines())
    # one case: the shards that hold none of it exit 0 with a line saying so
    (folder / "c0.yaml").unlink()
    outcomes = [
        pytester.runpytest_subprocess("--toolproof", "suite/c1.yaml", f"--toolproof-shard={index}/2")
        for index in (1, 2)
    ]
    assert sorted(outcome.ret for outcome in outcomes) == [0, 0]
    assert sum(any("held no case" in line for line in outcome.outlines) for outcome in outcomes) == 1
    assert sum("1 passed" in outcome.stdout.str() for outcome in outcomes) == 1


@pytest.mark.servers
def test_eval_shards_its_cases_and_merges_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = ROOT / "examples" / "agent" / "live"
    statuses = []
    for index in (1, 2):
        args = [str(live), "--config", str(live / "toolproof.yaml"), "--shard", f"{index}/2"]
        statuses.append(main(["eval", *args, "--json", str(tmp_path / f"{index}.json"), "-q"]))
    assert statuses == [0, 0]
    assert "held no case (of 1)" in capsys.readouterr().err  # one case: one shard is empty
    assert (
        main(
            [
                "report",
                str(tmp_path / "1.json"),
                str(tmp_path / "2.json"),
                "--json",
                str(tmp_path / "all.json"),
            ]
        )
        == 0
    )
    assert list(_verdicts(tmp_path / "all.json").values()) == ["PASS"]
