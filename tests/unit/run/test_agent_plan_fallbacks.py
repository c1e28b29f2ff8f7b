"""What `toolproof eval` plans for cases that configure little: the fallback HTTP target (a case's own target
or servers win), what a replayed cassette recorded (configuration wins), and the provider's limits."""

from __future__ import annotations

import textwrap
from pathlib import Path

from toolproof.load.agent_cases import load_agent_cases
from toolproof.load.project_file import ProjectConfig
from toolproof.model.scenario import AgentCase
from toolproof.model.server_config import ServerConfig
from toolproof.model.target import HttpTarget
from toolproof.run.agent_plan import HTTP_AGENT, Plan, plan_cases

FALLBACK = HttpTarget(url="http://127.0.0.1:9/fallback")

FILES = {
    "mibo.json": '{"scenario": "s", "input_utterance": "hi", "assertions": {"procedural": []}}',
    "bare.yaml": "name: bare\nprompt: hi\nexpect: []\n",
    "own_target.yaml": "name: own target\nprompt: hi\ntarget: {url: 'http://127.0.0.1:9/own'}\nexpect: []\n",
    "own_servers.yaml": "name: own servers\nprompt: hi\nservers: {notes: {command: python}}\nexpect: []\n",
    "lab.yaml": """\
        agents: [{id: a1, provider: openai, model: m1}]
        servers: [{id: notes, command: python}]
        scenarios:
          - {id: with servers, prompt: hi, servers: [notes]}
          - {id: without, prompt: hi}
        """,
}


def cases(tmp_path: Path) -> dict[str, AgentCase]:
    paths = []
    for name, text in FILES.items():
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        paths.append(path)
    found, errors = load_agent_cases(paths)
    assert errors == []
    return {case.name: case for case in found}


def test_cases_naming_no_servers_and_no_target_get_the_fallback_target(tmp_path: Path) -> None:
    project = ProjectConfig(provider="scripted", servers={"notes": ServerConfig(command="python")})
    plans = {
        plan.case.name: plan
        for plan in plan_cases(list(cases(tmp_path).values()), project, {}, {}, target=FALLBACK)
    }
    sent = {name for name, plan in plans.items() if isinstance(plan, Plan) and plan.agent == HTTP_AGENT}
    assert sent == {"s", "bare", "own target", "without"}
    targets = {name: getattr(plans[name].case.target, "url", None) for name in sent}
    assert targets == {
        "s": FALLBACK.url,
        "bare": FALLBACK.url,
        "own target": "http://127.0.0.1:9/own",  # the case's own target wins
        "without": FALLBACK.url,
    }
    own = plans["own servers"]
    assert isinstance(own, Plan) and own.agent.provider == "scripted" and set(own.servers) == {"notes"}


def test_without_a_fallback_target_cases_naming_none_get_the_fallback_servers(tmp_path: Path) -> None:
    project = ProjectConfig(provider="scripted", servers={"notes": ServerConfig(command="python")})
    bare = plan_cases([cases(tmp_path)["bare"]], project, {}, {})[0]
    assert isinstance(bare, Plan) and bare.agent != HTTP_AGENT and set(bare.servers) == {"notes"}


def test_recorded_settings_are_the_lowest_layer(tmp_path: Path) -> None:
    bare = cases(tmp_path)["bare"]
    asked: list[str] = []

    def recorded(case: AgentCase) -> dict[str, object]:
        asked.append(case.name)
        return {
            "provider": "replay",
            "model": "recorded-model",
            "system": "recorded prompt",
            "max_tokens": 99,
        }

    (plan,) = plan_cases([bare], ProjectConfig(), {}, {}, recorded=recorded)
    assert isinstance(plan, Plan)
    agent = plan.agent
    assert (agent.provider, agent.model, agent.system, agent.max_tokens) == (
        "replay",
        "recorded-model",
        "recorded prompt",
        99,
    )
    project = ProjectConfig(provider="openai", model="configured", system="configured prompt")
    (plan,) = plan_cases([bare], project, {}, {}, recorded=recorded)
    assert isinstance(plan, Plan)
    assert (plan.agent.provider, plan.agent.model, plan.agent.system) == (
        "openai",
        "configured",
        "configured prompt",
    )
    assert asked == ["bare", "bare"]


def test_provider_limits_come_from_the_project_file(tmp_path: Path) -> None:
    project = ProjectConfig(
        provider="openai", model="m", max_concurrency=2, max_retries=0, request_timeout=9.0
    )
    (plan,) = plan_cases([cases(tmp_path)["bare"]], project, {}, {})
    assert isinstance(plan, Plan)
    assert (plan.agent.max_concurrency, plan.agent.max_retries, plan.agent.request_timeout) == (2, 0, 9.0)
