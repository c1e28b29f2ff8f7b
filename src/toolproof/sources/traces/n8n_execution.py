"""n8n execution data as n8n's API returns it (`GET /executions/{id}?includeData=true`): the third n8n body
Mibo's n8n parser recognises (API polling), beside the Mibo node's flat map and node list.

`data.resultData.runData` maps each node name to its runs (`startTime`, `executionTime`, `executionStatus`,
`source`, `data`, `error`); `workflowData.nodes` gives each node's type and parameters. A run with `main`
output is a node; a run with `ai_tool` output is a tool call (arguments from its `inputOverride`, result from
its output) of the node its `source` names; other AI sub-node runs (language models, memory) are neither,
their token usage stays in the body. An agent whose output keeps `intermediateSteps` (n8n's "Return
Intermediate Steps") has its calls read from there instead, under the names the model used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolproof.model.transcript import Node, ToolCall
from toolproof.sources.traces.values import arguments, mapping, maybe_json


def looks_like(data: Any) -> bool:
    return isinstance(data, Mapping) and isinstance(_run_data(data), Mapping)


def _run_data(data: Mapping[str, Any]) -> Any:
    inner = mapping(data.get("data")) if "resultData" not in data else data
    return mapping(inner.get("resultData")).get("runData")


def _first_item(data: Mapping[str, Any], kind: str) -> Any:
    """The json of the first item of the first output of `kind` (`main`, `ai_tool`)."""
    try:
        item = data[kind][0][0]
    except (KeyError, IndexError, TypeError):
        return None
    return item.get("json", item) if isinstance(item, Mapping) else item


def _items(data: Mapping[str, Any]) -> Any:
    """The json of the items of the first `main` output: one item unwrapped, several as a list."""
    try:
        items = data["main"][0]
    except (KeyError, IndexError, TypeError):
        return None
    found = [item.get("json", item) if isinstance(item, Mapping) else item for item in items or []]
    return found[0] if len(found) == 1 else found


def _tool_arguments(value: Any) -> Any:
    """Tool input as the agent passed it; a lone `query` holding JSON text is that JSON."""
    if isinstance(value, Mapping) and set(value) == {"query"}:
        decoded = maybe_json(value["query"])
        if isinstance(decoded, Mapping):
            return dict(decoded)
    return arguments(value)


def _steps(output: Any, node: str) -> list[ToolCall]:
    steps = output.get("intermediateSteps") if isinstance(output, Mapping) else None
    calls = []
    for step in steps if isinstance(steps, list) else []:
        action = mapping(mapping(step).get("action"))
        if "tool" in action:
            calls.append(
                ToolCall(
                    tool=str(action["tool"]),
                    arguments=_tool_arguments(action.get("toolInput")),
                    result=maybe_json(mapping(step).get("observation")),
                    node=node,
                    id=str(action["toolCallId"]) if action.get("toolCallId") else None,
                )
            )
    return calls


def read(data: Mapping[str, Any]) -> list[Node]:
    """The executed nodes with their tool calls, in the order they started; call positions run across them."""
    declared = {
        str(node.get("name")): node
        for node in mapping(data.get("workflowData")).get("nodes") or []
        if isinstance(node, Mapping)
    }
    runs: list[tuple[float, str, Mapping[str, Any]]] = []
    for name, listed in mapping(_run_data(data)).items():
        for run in listed if isinstance(listed, list) else []:
            if isinstance(run, Mapping):
                start = run.get("startTime")
                runs.append((float(start) if isinstance(start, int | float) else 0.0, str(name), run))
    runs.sort(key=lambda item: item[0])
    tools: dict[str, list[tuple[float, ToolCall]]] = {}
    nodes: list[tuple[float, str, Mapping[str, Any]]] = []
    for start, name, run in runs:
        output = mapping(run.get("data"))
        if "ai_tool" in output:
            parent = next(
                (str(s.get("previousNode")) for s in run.get("source") or [] if isinstance(s, Mapping)), ""
            )
            call = ToolCall(
                tool=name,
                arguments=_tool_arguments(_first_item(mapping(run.get("inputOverride")), "ai_tool")),
                result=maybe_json(mapping(_first_item(output, "ai_tool")).get("response")),
                is_error=run.get("executionStatus") == "error" or bool(run.get("error")),
                duration_ms=_number(run.get("executionTime")),
                node=parent,
            )
            tools.setdefault(parent, []).append((start, call))
        elif "main" in output or not any(key.startswith("ai_") for key in output):
            nodes.append((start, name, run))
    found: list[Node] = []
    position = 0
    for index, (_, name, run) in enumerate(nodes):
        output = _items(mapping(run.get("data")))
        calls = _steps(output, name) or [call for _, call in tools.get(name, [])]
        calls = [call.model_copy(update={"position": position + n}) for n, call in enumerate(calls)]
        position += len(calls)
        node = mapping(declared.get(name))
        error = mapping(run.get("error")).get("message") if run.get("error") else None
        found.append(
            Node(
                name=name,
                type=str(node["type"]) if "type" in node else None,
                status=str(run["executionStatus"]) if "executionStatus" in run else None,
                arguments=dict(mapping(node.get("parameters"))),
                output=output,
                error=str(error) if error else None,
                calls=tuple(calls),
                position=index,
                duration_ms=_number(run.get("executionTime")),
            )
        )
    return found


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
