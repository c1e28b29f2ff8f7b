"""Which agent and which servers each case runs with: layers of settings, MCPLab agents and server refs."""

from __future__ import annotations

import textwrap
from pathlib import Path

from toolproof.load.agent_cases import load_agent_cases
from toolproof.load.project_file import AgentSettingsFile, ProjectConfig, load_project
from toolproof.model.scenario import AgentCase
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.run.agent_plan import Plan, Unplannable, plan_cases


def cases(tmp_path: Path, name: str, text: str) -> list[AgentCase]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    found, errors = load_agent_cases([path])
    assert not errors, errors
    return found


OWN = """\
name: own
system: be brief
servers:
  notes: {command: python, args: [notes.py]}
agent: {provider: openai, model: gpt-case, max_steps: 4}
prompt: hi
expect: []
"""


def test_the_command_line_wins_over_the_case_which_wins_over_the_project(tmp_path: Path) -> None:
    project = ProjectConfig(provider="anthropic", model="claude", system="project prompt", temperature=0.5)
    (plan,) = plan_cases(cases(tmp_path, "own.yaml", OWN), project, {"model": "gpt-flag"}, {})
    assert isinstance(plan, Plan)
    agent = plan.agent
    assert (agent.provider, agent.model, agent.max_steps, agent.temperature) == ("openai", "gpt-flag", 4, 0.5)
    assert agent.system == "be brief"
    assert plan.servers["notes"].args == ["notes.py"]


def test_cases_without_servers_or_provider(tmp_path: Path) -> None:
    found = cases(tmp_path, "bare.yaml", "name: bare\nprompt: hi\nexpect: []\n")
    extra = {"server": ServerConfig(command="srv")}
    project = ProjectConfig(servers={"notes": ServerConfig(command="python")})
    (unplanned,) = plan_cases(found, project, {}, extra)
    assert isinstance(unplanned, Unplannable)
    assert "no provider configured" in unplanned.message
    (plan,) = plan_cases(found, project, {"provider": "scripted"}, extra)
    assert isinstance(plan, Plan)
    assert set(plan.servers) == {"notes", "server"}
    assert plan.agent.model == "scripted"


MCPLAB = """\
agents:
  - {id: fast, provider: openai, model: gpt-4o-mini, max_turns: 7, system: be quick}
  - ref: careful
servers:
  - {id: kpi, url: "http://localhost:9/mcp", auth: {type: bearer, env: KPI_TOKEN}}
scenarios:
  - id: kpis
    prompt: How are we doing?
    mcp_servers: [{ref: kpi}, {ref: notes}, {id: inline, transport: sse, url: "http://localhost:8/sse"}]
    eval: {tool_constraints: {required_tools: [get_kpis]}}
  - id: missing
    prompt: hi
    mcp_servers: [{ref: nowhere}]
"""


def test_mcplab_runs_each_scenario_once_per_agent(tmp_path: Path) -> None:
    project = ProjectConfig(
        agents={"careful": AgentSettingsFile(provider="anthropic", model="claude-opus")},
        servers={"notes": ServerConfig(command="python")},
    )
    first, second, missing = plan_cases(cases(tmp_path, "eval.yaml", MCPLAB), project, {}, {})
    assert isinstance(first, Plan) and isinstance(second, Plan)
    assert (first.case.name, first.agent.model, first.agent.max_steps) == ("kpis [fast]", "gpt-4o-mini", 7)
    assert first.agent.system == "be quick"
    assert (second.case.name, second.agent.provider) == ("kpis [careful]", "anthropic")
    kpi = first.servers["kpi"]
    assert kpi.transport is Transport.HTTP
    assert kpi.headers == {"Authorization": "Bearer ${KPI_TOKEN}"}
    assert first.servers["notes"].command == "python"
    assert first.servers["inline"].transport is Transport.SSE
    assert isinstance(missing, Unplannable)
    assert "server 'nowhere' is not defined" in missing.message


def test_project_file(tmp_path: Path) -> None:
    path = tmp_path / "toolproof.yaml"
    path.write_text(
        "provider: scripted\nscript: s.yaml\ntimeout: 1m30s\njudge: {provider: scripted, script: j.yaml}\n"
        "servers:\n  notes: {command: python, args: [notes.py]}\n"
    )
    config, errors = load_project(path)
    assert not errors
    assert config.script == tmp_path / "s.yaml"
    assert config.judge is not None and config.judge.script == tmp_path / "j.yaml"
    assert config.timeout == 90
    assert config.servers["notes"].cwd == str(tmp_path)
    path.write_text("provider: scripted\nservers:\n  notes: {command: python, arg: [x]}\npass_threshold: 2\n")
    _, errors = load_project(path)
    assert {(error.line, error.field) for error in errors} == {
        (3, "servers.notes.arg"),
        (4, "pass_threshold"),
    }
