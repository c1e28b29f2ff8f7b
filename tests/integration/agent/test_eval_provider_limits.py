"""Provider limits set in toolproof.yaml (`max_concurrency`, `max_retries`, `request_timeout`, at the top
level and under `judge:`), with the real OpenAI adapter against the local wire-format model server. One
provider serves every case (and the judge) with the same provider configuration, so cases that differ only in
their system prompt share one concurrency limit."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.llm_wire import OPENAI_PATH, LlmWire, llm_wire

from toolproof.cli import main

__all__ = ["llm_wire"]  # the fixture

KEY_ENV = "WIRE_LIMITS_PASS"
JUDGED = '{"results": [{"id": "agent-check-1", "pass": true, "reason": "fine"}]}'  # the agent's reply too


def case(name: str, system: str, *, judged: bool = False) -> str:
    checks = "  - reply: {contains: results}\n" + ("  - judge: {criteria: Answers}\n" if judged else "")
    return f"name: {name}\nid: {name}\nsystem: {system}\nprompt: hi\nexpect:\n{checks}"


def setup(
    tmp_path: Path,
    wire: LlmWire,
    limits: dict[str, Any],
    judge: dict[str, Any] | None = None,
    *,
    both: bool = True,
) -> tuple[Path, Path]:
    """Cases that differ only in their system prompt (one unless `both`), judged when `judge` is given, and a
    project file: the agent on the wire server with `limits`, the judge on that provider with `judge`."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for name, system in [("brief", "Be brief."), ("chatty", "Be chatty.")][: 2 if both else 1]:
        (cases / f"{name}.yaml").write_text(case(name, system, judged=judge is not None))
    provider = {
        "provider": "openai",
        "model": "wire-model",
        "base_url": wire.openai_base_url,
        "api_key_env": KEY_ENV,
    }
    project = {**provider, **limits, **({"judge": {**provider, **judge}} if judge is not None else {})}
    config = tmp_path / "toolproof.yaml"
    config.write_text(json.dumps(project))  # JSON is YAML
    return cases, config


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, list[dict[str, Any]]]:
    report = tmp_path / "report.json"
    status = main(["eval", *map(str, argv), "--json", str(report), "-q", "-j", "4"])
    return status, json.loads(report.read_text())["results"]


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wire-limits")


@pytest.mark.parametrize("limit", [1, 2])
def test_cases_differing_in_system_prompt_share_one_limit(
    tmp_path: Path, llm_wire: LlmWire, limit: int
) -> None:
    cases, config = setup(tmp_path, llm_wire, {"max_concurrency": limit})
    for _ in range(2):
        llm_wire.reply(JUDGED, delay=0.4)
    status, results = toolproof_eval(tmp_path, cases, "--config", config)
    assert status == 0, results
    assert sorted(body["messages"][0]["content"] for body in llm_wire.bodies(OPENAI_PATH)) == [
        "Be brief.",
        "Be chatty.",
    ]
    assert llm_wire.max_in_flight == limit


def test_the_judge_on_the_same_provider_shares_its_limit(tmp_path: Path, llm_wire: LlmWire) -> None:
    cases, config = setup(tmp_path, llm_wire, {"max_concurrency": 1}, {"max_concurrency": 1})
    for _ in range(4):  # two agent replies and two judge answers, in whatever order they are asked
        llm_wire.reply(JUDGED, delay=0.3)
    status, results = toolproof_eval(tmp_path, cases, "--config", config)
    assert status == 0, results
    assert len(llm_wire.requests) == 4
    assert llm_wire.max_in_flight == 1


@pytest.mark.parametrize(("retries", "status", "asked"), [(0, 1, 1), (1, 0, 2)])
def test_max_retries(tmp_path: Path, llm_wire: LlmWire, retries: int, status: int, asked: int) -> None:
    cases, config = setup(tmp_path, llm_wire, {"max_retries": retries}, both=False)
    llm_wire.fail(500, message="busy")
    llm_wire.reply(JUDGED)
    code, results = toolproof_eval(tmp_path, cases, "--config", config)
    assert code == status, results
    assert len(llm_wire.requests) == asked
    if status:
        assert results[0]["failure"]["kind"] == "transport"
        assert "busy" in results[0]["failure"]["message"]


def test_the_judge_has_its_own_retries(tmp_path: Path, llm_wire: LlmWire) -> None:
    cases, config = setup(tmp_path, llm_wire, {}, {"max_retries": 0}, both=False)
    llm_wire.reply(JUDGED)  # the agent
    llm_wire.fail(500, message="judge busy")  # the judge: no retry
    code, results = toolproof_eval(tmp_path, cases, "--config", config)
    assert (code, results[0]["status"]) == (2, "ERROR")
    assert "judge busy" in results[0]["failure"]["message"]
    assert len(llm_wire.requests) == 2


def test_request_timeout(tmp_path: Path, llm_wire: LlmWire) -> None:
    cases, config = setup(tmp_path, llm_wire, {"request_timeout": "300ms", "max_retries": 0}, both=False)
    llm_wire.reply(JUDGED, delay=3)
    started = time.monotonic()
    code, results = toolproof_eval(tmp_path, cases, "--config", config)
    assert time.monotonic() - started < 2.5
    assert (code, results[0]["failure"]["kind"]) == (1, "transport")
