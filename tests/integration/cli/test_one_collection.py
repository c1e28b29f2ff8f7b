"""One collection step: the same selection flags pick the same cases for `run`, `eval`, `check` and the pytest
plugin; `check` runs through the scheduler, its events streamed and its --maxfail a real stop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolproof
import toolproof.run.trace_suite as trace_suite
from toolproof.check.scenario import evaluate
from toolproof.cli import main
from toolproof.load import Selection, Shard, collect
from toolproof.model.events import CaseFinished, CaseStarted, Event, RunStarted
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript

pytest_plugins = ("pytester",)

NAMES = ["alpha refund", "beta refund", "gamma booking", "delta refund", "epsilon booking", "zeta refund"]
FLAGS = [
    ["-k", "refund and not beta"],
    ["--shard", "1/2"],
    ["--shard", "2/2"],
    ["--lf"],
    ["--ff"],
    ["-k", "refund", "--lf", "--shard", "1/2"],
]
LAST_FAILED = ["2.yaml::gamma booking › response contains: yes", "3.yaml::delta refund", "4.yaml::nowhere"]


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)

    def started(self) -> list[str]:
        return [event.name for event in self.events if isinstance(event, CaseStarted)]


def _project(root: Path) -> None:
    """`server/` and `agent/` hold cases of the same names in files of the same names, so that a case's node
    id (`file::name`, relative to where a command runs) is the same in both; `.toolproof/` in each says what
    failed last time."""
    for kind in ("server", "agent"):
        (root / kind / ".toolproof").mkdir(parents=True)
        (root / kind / ".toolproof" / "lastfailed.json").write_text(json.dumps({"failed": LAST_FAILED}))
    for number, name in enumerate(NAMES):
        server = f"name: {name}\nserver: {{command: python, args: [srv.py]}}\nassert: {{tool: t}}\n"
        (root / "server" / f"{number}.yaml").write_text(server)
        agent = f"name: {name}\nprompt: hi\nexpect:\n  - reply: {{contains: yes}}\n"
        (root / "agent" / f"{number}.yaml").write_text(agent)
    runs = [{"scenario": name, "turns": [{"user": "hi", "reply": "yes"}]} for name in NAMES]
    (root / "runs.json").write_text(json.dumps({"runs": runs}))
    script = "".join(f"  {name}:\n    - steps:\n        - reply: yes\n" for name in NAMES)
    (root / "script.yaml").write_text(f"scenarios:\n{script}")


def _options(flags: list[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for flag, value in zip(flags, [*flags[1:], ""], strict=True):
        if flag == "-k":
            options["select"] = value
        elif flag == "--shard":
            options["shard"] = value
        elif flag == "--lf":
            options["last_failed"] = True
        elif flag == "--ff":
            options["failed_first"] = True
    return options


def _run(flags: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    main(["run", ".", "--collect-only", *flags])
    return [line.partition("::")[2] for line in capsys.readouterr().out.splitlines() if "::" in line]


def _check(flags: list[str], root: Path) -> list[str]:
    recorder = Recorder()
    toolproof.check_traces(["."], [root / "runs.json"], sink=recorder, **_options(flags))  # type: ignore[arg-type]
    return recorder.started()


def _eval(flags: list[str], root: Path) -> list[str]:
    recorder = Recorder()
    script = root / "script.yaml"
    options = _options(flags)
    toolproof.evaluate(["."], provider="scripted", script=script, jobs=1, sink=recorder, **options)  # type: ignore[arg-type]
    return recorder.started()


def test_the_same_flags_select_the_same_cases_in_run_eval_and_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path)
    chosen: dict[str, list[str]] = {}
    for flags in FLAGS:
        monkeypatch.chdir(tmp_path / "server")
        run = _run(flags, capsys)
        monkeypatch.chdir(tmp_path / "agent")
        assert _check(flags, tmp_path) == _eval(flags, tmp_path) == run, flags
        chosen[" ".join(flags)] = run
    assert chosen["-k refund and not beta"] == ["alpha refund", "delta refund", "zeta refund"]
    assert sorted(chosen["--shard 1/2"] + chosen["--shard 2/2"]) == sorted(NAMES)
    assert chosen["--shard 1/2"] and chosen["--shard 2/2"]
    assert chosen["--lf"] == ["gamma booking", "delta refund"]  # a failed check counts as its case failing
    assert chosen["--ff"][:2] == ["gamma booking", "delta refund"] and len(chosen["--ff"]) == len(NAMES)
    assert set(chosen["-k refund --lf --shard 1/2"]) <= {"delta refund"}


def test_the_plugin_collects_what_the_commands_collect(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(pytester.path)  # pytester runs in its path: node ids are `server/N.yaml::name`, `agent/...`
    everything = []
    for shard in ("1/2", "2/2"):
        flags = ["--collect-only", "-q", "-k", "refund", "--toolproof-shard", shard]
        listed = pytester.runpytest_subprocess("--toolproof", "server", "agent", *flags)
        capsys.readouterr()
        main(["run", "server", "--collect-only", "-k", "refund", "--shard", shard])
        server = [line for line in capsys.readouterr().out.splitlines() if "::" in line]
        selection = Selection(pattern="refund", shard=Shard.parse(shard))
        agent = [case.node_id for case in collect([Path("agent")], selection, kind="agent").cases]
        assert [line for line in listed.outlines if "::" in line] == server + agent, shard
        everything += server + agent
    assert len(everything) == 8  # 4 cases of each kind match -k refund, each in one shard


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the cases `check` evaluates a run of, as it does."""
    evaluated: list[str] = []

    def counting(case: AgentCase, run: Transcript, **kwargs: object) -> object:
        evaluated.append(case.name)
        return evaluate(case, run, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trace_suite, "evaluate", counting)
    return evaluated


def test_check_streams_each_case_as_it_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path / "agent")
    evaluated = _counting(monkeypatch)
    seen: list[tuple[str, int]] = []

    class Watcher(Recorder):
        def handle(self, event: Event) -> None:
            if isinstance(event, (RunStarted, CaseFinished)):
                seen.append((type(event).__name__, len(evaluated)))

    toolproof.check_traces(["."], [tmp_path / "runs.json"], sink=Watcher(), select="alpha or beta")
    assert seen == [("RunStarted", 0), ("CaseFinished", 1), ("CaseFinished", 2)]  # not replayed afterwards


def test_check_maxfail_leaves_the_cases_after_it_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path)
    runs = [{"scenario": name, "turns": [{"user": "hi", "reply": "no"}]} for name in NAMES]
    (tmp_path / "runs.json").write_text(json.dumps({"runs": runs}))  # every case fails
    monkeypatch.chdir(tmp_path / "agent")
    evaluated = _counting(monkeypatch)
    every = Recorder()
    whole = toolproof.check_traces(["."], [tmp_path / "runs.json"], sink=every)
    assert (len(every.started()), len(evaluated), whole.failed) == (6, 6, 6)
    evaluated.clear()
    stopped = Recorder()
    result = toolproof.check_traces(["."], [tmp_path / "runs.json"], sink=stopped, maxfail=2)
    assert (stopped.started(), evaluated) == (NAMES[:2], NAMES[:2])
    assert result.failed == 2 and result.exit_code == 1


def test_check_takes_k(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path / "agent")
    capsys.readouterr()
    runs = str(tmp_path / "runs.json")
    assert main(["check", ".", "--trace", runs, "-k", "gamma", "--json", "-", "-q"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [result["name"] for result in results] == ["gamma booking › response contains: yes"]
    assert main(["check", ".", "--trace", runs, "-k", "omega", "-q"]) == 2
    assert "-k 'omega' selects none of the 6 cases found" in capsys.readouterr().err



def test_check_pairs_runs_among_every_case_found_whatever_is_selected(tmp_path: Path) -> None:
    for name in ("a", "b"):
        case = f"name: {name}\nprompt: hi {name}\nexpect: [{{reply: {{contains: y}}}}]\n"
        (tmp_path / f"{name}.yaml").write_text(case)
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps({"runs": [{"turns": [{"user": "hi a", "reply": "yes"}]}]}))  # a's: its message
    both = toolproof.check_traces([tmp_path / "a.yaml", tmp_path / "b.yaml"], [runs])
    assert [(result.name, result.status) for result in both.results] == [
        ("a › response contains: y", "PASS"),
        ("b", "SKIP"),
    ]
    only_b = toolproof.check_traces([tmp_path / "a.yaml", tmp_path / "b.yaml"], [runs], select="b")
    assert [(result.name, result.status) for result in only_b.results] == [("b", "SKIP")]  # not a's run
