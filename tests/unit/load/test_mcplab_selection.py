"""MCPLab agent selection: `run_defaults.selected_agents` and the scenarios' legacy `agent:` pins choose the
agents every scenario of the config runs with (reference/formats.md section 2.1: a pin is migrated into
`selected_agents`, the union of both); naming an agent the config does not define is a load error."""

from __future__ import annotations

import pytest
from tests.unit.load.conftest import Write

from toolproof.load.agent_cases import load_agent_cases
from toolproof.load.errors import LoadError
from toolproof.load.project_file import ProjectConfig
from toolproof.model.scenario import AgentCase
from toolproof.run.agent_plan import Plan, plan_cases

AGENTS = """
agents:
  - {id: a1, provider: openai, model: m1}
  - {id: a2, provider: anthropic, model: m2}
  - {id: a3, provider: openai, model: m3}
"""
SELECT = "run_defaults: {{selected_agents: [{}]}}\n"


def config(selection: str, pins: tuple[str | None, str | None] = (None, None)) -> str:
    """An eval config: the agents, `selection` (a run_defaults block), two scenarios (each maybe pinned)."""
    scenarios = "scenarios:\n"
    for number, pin in enumerate(pins, 1):
        scenarios += f"  - id: s{number}\n    prompt: hi\n" + (f"    agent: {pin}\n" if pin else "")
    return AGENTS + selection + scenarios


def runs(write: Write, text: str) -> list[str]:
    """The names of the runs `toolproof eval` plans for the config."""
    cases, errors = load_agent_cases([write(text, "eval.yaml")])
    assert errors == []
    names = []
    for plan in plan_cases(cases, ProjectConfig(), {}, {}):
        assert isinstance(plan, Plan), plan
        names.append(f"{plan.case.name} {plan.agent.model}")
    return names


@pytest.mark.parametrize(
    ("selection", "pins", "expected"),
    [
        (
            "",
            (None, None),
            ["s1 [a1] m1", "s1 [a2] m2", "s1 [a3] m3", "s2 [a1] m1", "s2 [a2] m2", "s2 [a3] m3"],
        ),
        (SELECT.format("a3, a1"), (None, None), ["s1 [a3] m3", "s1 [a1] m1", "s2 [a3] m3", "s2 [a1] m1"]),
        (SELECT.format("a1"), (None, None), ["s1 m1", "s2 m1"]),
        ("", ("a2", None), ["s1 m2", "s2 m2"]),  # a pin selects for the whole config, as MCPLab migrates it
        (SELECT.format("a1"), (None, "a2"), ["s1 [a1] m1", "s1 [a2] m2", "s2 [a1] m1", "s2 [a2] m2"]),
        (SELECT.format("a2"), ("a2", "a2"), ["s1 m2", "s2 m2"]),
    ],
)
def test_selected_agents_and_pins_choose_the_runs(
    write: Write, selection: str, pins: tuple[str | None, str | None], expected: list[str]
) -> None:
    assert runs(write, config(selection, pins)) == expected


def test_a_library_agent_is_selected_by_its_ref(write: Write) -> None:
    text = "agents: [{ref: lib}, {id: a1, provider: openai, model: m1}]\n" + SELECT.format("lib")
    text += "scenarios: [{id: s1, prompt: hi}]\n"
    cases, errors = load_agent_cases([write(text, "eval.yaml")])
    assert errors == []
    (case,) = cases
    assert isinstance(case, AgentCase)
    assert case.metadata["agents"] == ["lib"]
    assert case.metadata["agent_configs"] == [{"ref": "lib"}]


@pytest.mark.parametrize(
    ("selection", "pins", "line", "field", "message"),
    [
        (SELECT.format("a1, a9"), (None, None), 5, "run_defaults.selected_agents[1]", "'a9' is not"),
        ("", (None, "a9"), 10, "scenarios[1].agent", "'a9' is not one of the config's agents"),
        (SELECT.format(""), (None, None), 5, "run_defaults.selected_agents", "at least one"),
        (
            "run_defaults: {selected_agent: [a1]}\n",
            (None, None),
            5,
            "run_defaults.selected_agent",
            "unknown key",
        ),
        ("run_defaults: [a1]\n", (None, None), 5, "run_defaults", "must be a mapping"),
    ],
)
def test_a_selection_that_names_no_agent_is_a_load_error(
    write: Write, selection: str, pins: tuple[str | None, str | None], line: int, field: str, message: str
) -> None:
    path = write(config(selection, pins), "eval.yaml")
    cases, errors = load_agent_cases([path])
    assert cases == []  # no scenario runs with agents nobody chose
    (error,) = errors
    assert isinstance(error, LoadError)
    assert (error.file, error.line, error.field) == (path, line, field), str(error)
    assert message in error.message
