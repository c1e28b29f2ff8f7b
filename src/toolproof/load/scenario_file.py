"""toolproof's own agent scenario format (the checks under `expect:` are read by `scenario_checks`).

One YAML document is one case:

```yaml
name: refund flow                 # default: the file name
id: refund                        # matches recorded runs that name their scenario
context: {ORDER: ORD-9921}        # variables for expressions
prompt: I was charged twice       # one user turn; or `turns: [{user: ..., expect: [...]}, ...]`
judge_context: {prompt: true, tool_sequence: true, tool_inputs: true, tool_outputs: true, tool_catalog: true}
servers:                          # `toolproof eval`: MCP servers by name, each like mcp-assert's `server:`
  notes: {command: python, args: [examples/servers/notes_server.py]}
agent: {provider: openai, model: gpt-4o-mini, system: "...", max_steps: 30}   # for `toolproof eval`
target: {url: "http://127.0.0.1:8000/chat", auth: {bearer_env: AGENT_TOKEN}}    # or an agent over HTTP
expect:                           # checks on the whole conversation; each item is one check
  - called: lookup_order          # or {tool, args, index, strict, forbidden_args, forbidden_values, error}
  - not_called: [delete_account]
  - count: {tool: send_email, exactly: 3}     # or min / max
  - sequence: [lookup, verify, refund]        # or {exact | adjacent | unordered | subset | superset: [...]},
                                              #    {any_of: [[...], [...]]}
  - not_sequence: [read_secret, send_email]
  - node: {name: AI Agent, calls: [{called: search, index: 0}]}
  - tool_input: {tool: search, contains: item-123}          # or regex: / jsonpath: (+ equals:)
  - reply: {contains: refund, case_sensitive: false}         # not_contains, starts_with, ends_with, equals
  - regex: {pattern: "Order #\\d+", flavor: re2}             # re2 (default), js or python; match: false
  - jsonpath: {path: $.status, equals: ok}                   # or exists: true/false
  - field: {path: data.status, matches: confirmed}           # a matcher; not: true negates
  - schema: {schema: {type: object}, field: data}
  - http_status: 200
  - latency: {max_ms: 3000}
  - tokens: {max_total: 4000}
  - guardrail: {name: banned_words, triggered: true}
  - judge: {criteria: "...", threshold: 0.8, not: ["..."], grounding: true, node: ..., key: ...}
```
`called`, `not_called` and `count` read tool calls (those made inside workflow nodes too); `node` reads the
nodes. Every check also takes `id`, `depends_on` (an id or a list), `label`, `when` (it applies only if
`{tool_called, tool_called_pattern, any_tool_called, min_tool_calls}` hold in its scope; else it is skipped)
and `pass_threshold` (the share of trials it must pass). Expressions (`expr`, `date`) are checked when the
file loads: syntax, known functions, and names that are built-ins or `context` variables. An argument value
is a literal (exact match) or a matcher: `{contains: ...}`, `{regex: ...}`, `{date: EXPR or ISO date,
tolerance_minutes}`, `{one_of: [...]}`, `{any: true}`, `{schema: {...}}`, `{text: ...}`, `{expr: EXPR}`,
`{exact: ...}`, each with `optional: true` if the argument may be absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolproof.load import shapes
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader, default_name, kind_of, source_ref
from toolproof.load.scenario_checks import CheckReader
from toolproof.load.yaml_source import KeyPath, as_document
from toolproof.model.scenario import (
    AgentCase,
    AgentTurn,
    JudgeContext,
)

detect = shapes.scenario_file
"""The shape test of this dialect (`load/shapes.py`)."""

# --- toolproof's own format ------------------------------------------------------------------------------

CASE_KEYS = frozenset(
    {"name", "id", "prompt", "turns", "expect", "context", "judge_context", "system", "body", "skip", "tags"}
    | {"servers", "agent"}
    | {"target"}
)

TURN_KEYS = frozenset({"user", "expect"})


def load(document: object, source: Path) -> list[AgentCase | LoadError]:
    """The case of one document, or its load errors."""
    doc = as_document(document, source)
    return _Own(Reader(doc)).case()


class _Own(CheckReader):
    def case(self) -> list[AgentCase | LoadError]:
        r = self.r
        data = r.document.data
        r.keys(data, (), CASE_KEYS)
        name = r.text(data["name"], ("name",)) if "name" in data else default_name(r.document)
        context = self.context = r.mapping(data.get("context", {}), ("context",)) or {}
        for key in context:
            if not isinstance(key, str):
                r.fail(("context", key), f"a variable's name must be a string, got {kind_of(key)}")
        turns: list[AgentTurn] = []
        if "prompt" in data and "turns" in data:
            r.fail(("turns",), "give either prompt or turns, not both")
        if "prompt" in data:
            prompt = r.text(data["prompt"], ("prompt",))
            turns.append(AgentTurn.model_construct(user=prompt or "", line=r.where(("prompt",))[0]))
        elif "turns" in data:
            turns.extend(self.turns(data["turns"]))
        checks = self.checks(data.get("expect", []), ("expect",))
        judge = self.judge_context(data.get("judge_context", {}))
        skip = r.boolean(data["skip"], ("skip",)) if "skip" in data else False
        tags = r.texts(data["tags"], ("tags",)) if "tags" in data else []
        metadata: dict[str, Any] = {"tags": tags} if tags else {}
        servers = agent = target = None
        if "servers" in data or "agent" in data:  # where a case runs: its readers load only when it says
            from toolproof.load.agent_setup import read_agent, read_servers

            if "servers" in data:
                servers, errors = read_servers(r.document, data["servers"], ("servers",))
                r.errors.extend(errors)
            if "agent" in data:
                agent, errors = read_agent(r.document, data["agent"], ("agent",))
                r.errors.extend(errors)
        if "target" in data:
            from toolproof.load.target import read_target

            target = read_target(r, data["target"], ("target",))
        system = (
            r.text(data["system"], ("system",), scalars=False) if data.get("system") is not None else None
        )
        if r.errors or name is None:
            return list(r.errors)
        # every part is checked above (the checks built by their own models): assembled without the case's
        # validator, which would build every kind of check, target and server the format knows
        case = AgentCase.model_construct(
            name=name,
            id=r.text(data["id"], ("id",)) if "id" in data else None,
            source=source_ref(r.document),
            dialect="toolproof",
            turns=tuple(turns),
            assertions=tuple(checks),
            context=context,
            judge_context=judge,
            system=system,
            custom_body=data.get("body"),
            skip=bool(skip),
            target=target,
            servers=servers,
            agent=agent,
            metadata=metadata,
        )
        return r.finish(case, self.placed)

    def turns(self, value: Any) -> list[AgentTurn]:
        if not isinstance(value, list):
            self.r.fail(("turns",), f"must be a list of turns, got {kind_of(value)}")
            return []
        found = []
        for index, item in enumerate(value):
            path: KeyPath = ("turns", index)
            data = self.r.mapping(item, path)
            if data is None:
                continue
            self.r.keys(data, path, TURN_KEYS)
            user = self.r.text(data.get("user", ""), (*path, "user")) or ""
            checks = self.checks(data.get("expect", []), (*path, "expect"))
            line = self.r.where(path)[0]
            found.append(AgentTurn.model_construct(user=user, assertions=tuple(checks), line=line))
        return found

    def judge_context(self, value: Any) -> JudgeContext:
        data = self.r.mapping(value, ("judge_context",)) or {}
        names = ("prompt", "tool_sequence", "tool_inputs", "tool_outputs", "tool_catalog")
        self.r.keys(data, ("judge_context",), names)
        flags = {key: self.r.boolean(data[key], ("judge_context", key)) for key in data}
        return JudgeContext(**{f"include_{key}": bool(flags.get(key)) for key in names})
