"""MCPLab scenario files: the `eval:` block of each scenario.

A document is either an eval config (`scenarios:` list, usually with `agents:`) or one library test case
(`test-cases/*.yaml`: `id`, `prompt`, `eval`). A `- ref: <id>` scenario is the library test case whose `id` it
names (as MCPLab's readScenarioLibrary keys them, whatever the file's name), in the library next to the
config or in a parent directory: its `test-cases/`, else the legacy `scenarios/`. The library's other files
hold no cases and are recognised and skipped: `agents.yaml` and `servers.yaml` (entries by id), and a run's
`results.json`.
Every scenario of a config runs with each selected agent: those of `run_defaults.selected_agents` and of the
scenarios' legacy `agent:` pins together (MCPLab migrates a pin into that list), or every agent when neither
names one; naming an agent the config does not define is a load error.

Mapping: `required_tools` and `forbidden_tools` give one check per tool; `tool_sequence` as a list is an
ordered subsequence and `{allow: [...]}` is "the whole sequence equals one of these" (an empty list is no
check); `tool_input_assertions`, `response_assertions` (literal checks lower-cased and untrimmed, `regex` as
JavaScript with the `i` flag after dropping a leading inline-flag group, JSONPath on the answer) and
`agent_assertions` (binary judge checks sharing `agent_context`) map onto the vocabulary one for one.
`extract` rules (a JavaScript regex over the final reply) become the case's `extract`: values for the report,
not checks. `snapshot_eval` is kept in the metadata: it compares the servers' tool schemas with a baseline
snapshot stored by MCPLab's app, which a case file does not carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolproof.core.jsregex import JSRegexError, compile_js
from toolproof.load import shapes
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader, source_ref
from toolproof.load.shapes import MCPLAB_LIBRARY_FILES
from toolproof.load.shapes import mcplab_not_cases as _not_cases
from toolproof.load.validation import suggest
from toolproof.load.yaml_source import Document, KeyPath, as_document, read_yaml
from toolproof.model.scenario import (
    AgentCase,
    AgentTurn,
    Assertion,
    Extraction,
    JsonPathCheck,
    JudgeCheck,
    JudgeContext,
    RegexCheck,
    SequenceCheck,
    TextCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)

detect = shapes.mcplab
"""The shape test of this dialect (`load/shapes.py`)."""

CONFIG_KEYS = frozenset({"name", "agents", "scenarios", "run_defaults", "servers"})
RUN_DEFAULTS_KEYS = frozenset({"selected_agents"})
SCENARIO_KEYS = frozenset(
    {
        "id",
        "name",
        "agent",
        "servers",
        "mcp_servers",
        "prompt",
        "attachments",
        "snapshot_eval",
        "eval",
        "extract",
        "description",
        "tags",
    }
)
REF_KEYS = frozenset({"ref", "mcp_servers"})
EVAL_KEYS = frozenset(
    {
        "tool_constraints",
        "tool_sequence",
        "tool_input_assertions",
        "response_assertions",
        "agent_context",
        "agent_assertions",
    }
)

TEXT_TYPES = ("contains", "not_contains", "starts_with", "ends_with", "equals")
JSONPATH_TYPES = ("jsonpath", "jsonpath_exists", "jsonpath_not_exists")
LIBRARY_DIRS = ("test-cases", "scenarios")  # MCPLab reads the first that exists
LIBRARY_FILES = MCPLAB_LIBRARY_FILES
LIBRARY_DEPTH = 4  # directories searched for a library: the config's and its nearest parents
Libraries = dict[Path, dict[str, Document]]  # the test cases of each library read so far, by id


def _data(document: object) -> Any:
    return document.data if isinstance(document, Document) else document


def load(document: object, source: Path) -> list[AgentCase | LoadError]:
    """Every scenario of the document as a case, and the load errors of those that cannot be read."""
    if _not_cases(document):
        return []
    doc = as_document(document, source)
    data = doc.data
    if not isinstance(data.get("scenarios"), list):
        return _Scenario(Reader(doc), (), {}).case()
    reader = Reader(doc)
    reader.keys(data, (), CONFIG_KEYS)
    found: list[AgentCase | LoadError] = list(reader.errors)
    selection = Reader(doc)
    agents = _selected_agents(selection, data)
    if selection.errors:  # the scenarios would run with agents nobody chose
        return [*found, *selection.errors]
    shared: dict[str, Any] = {  # what `toolproof eval` needs to run the scenarios: agents, server pool
        "agents": [_agent_id(agent) for agent in agents],
        "agent_configs": agents,
        "server_pool": data.get("servers"),
    }
    libraries: Libraries = {}
    for index, item in enumerate(data["scenarios"]):
        path: KeyPath = ("scenarios", index)
        scenario_reader = Reader(doc)
        entry = scenario_reader.mapping(item, path)
        if entry is None:
            found.extend(scenario_reader.errors)
        elif "ref" in entry:
            found.extend(_from_library(scenario_reader, entry, path, shared, libraries))
        else:
            found.extend(_Scenario(scenario_reader, path, shared).case())
    return found


def _agent_id(agent: Mapping[str, Any]) -> str:
    """How scenarios and `selected_agents` name an agent entry: its `id`, library `ref` or legacy `name`."""
    return str(agent.get("id") or agent.get("ref") or agent.get("name") or "")


def _selected_agents(reader: Reader, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent entries that run, in selection order (`run_defaults.selected_agents`, then the pins), or
    every entry when nothing selects; a name that is no agent of the config is one of the reader's errors."""
    entries = [agent for agent in data.get("agents") or [] if isinstance(agent, dict)]
    known = {_agent_id(agent): agent for agent in entries}
    chosen: dict[str, dict[str, Any]] = {}
    for name, path in _selections(reader, data):
        if name in known:
            chosen.setdefault(name, known[name])
        else:
            hint = f"agents: {', '.join(known)}" if known else "the config defines no agents"
            reader.fail(path, f"agent {name!r} is not one of the config's agents", hint)
    return list(chosen.values()) or entries


def _selections(reader: Reader, data: dict[str, Any]) -> list[tuple[str, KeyPath]]:
    """Each agent name that selects, with where it is written: `run_defaults.selected_agents`, then each
    inline scenario's legacy `agent:` pin."""
    found = _default_selection(reader, data["run_defaults"]) if "run_defaults" in data else []
    for index, item in enumerate(data["scenarios"]):
        if isinstance(item, dict) and "agent" in item and "ref" not in item:
            pin = reader.text(item["agent"], ("scenarios", index, "agent"), scalars=False)
            if pin is not None:
                found.append((pin, ("scenarios", index, "agent")))
    return found


def _default_selection(reader: Reader, value: Any) -> list[tuple[str, KeyPath]]:
    """`run_defaults: {selected_agents: [ids]}`: each id with where it is written (an empty list is an
    error, as in MCPLab)."""
    defaults = reader.mapping(value, ("run_defaults",))
    if defaults is None or not reader.keys(defaults, ("run_defaults",), RUN_DEFAULTS_KEYS):
        return []
    if "selected_agents" not in defaults:  # run_defaults: {} selects nothing
        return []
    path: KeyPath = ("run_defaults", "selected_agents")
    names = reader.texts(defaults["selected_agents"], path, one_or_many=False)
    if names == []:
        reader.fail(path, "must name at least one agent")
    return [(name, (*path, index)) for index, name in enumerate(names or [])]


def _library_dir(directory: Path) -> Path | None:
    """The test-case library in a directory, as MCPLab picks it: `test-cases/`, else legacy `scenarios/`."""
    return next((directory / name for name in LIBRARY_DIRS if (directory / name).is_dir()), None)


def _test_cases(library: Path) -> dict[str, Document]:
    """The library's test cases by `id`, as MCPLab's readScenarioLibrary keys them: the first document of each
    `.yaml`/`.yml` file that has an `id` (a later file wins a shared id); files that cannot be read are left
    out."""
    found: dict[str, Document] = {}
    for path in sorted(library.iterdir()):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        documents = read_yaml(path).documents
        ident = documents[0].data.get("id") if documents else None
        if isinstance(ident, str | int) and not isinstance(ident, bool) and str(ident):
            found[str(ident)] = documents[0]
    return found


def _from_library(
    reader: Reader, entry: dict[str, Any], path: KeyPath, shared: dict[str, Any], libraries: Libraries
) -> list[AgentCase | LoadError]:
    """The library test case a `- ref: <id>` names, from the nearest library that has it (`libraries` keeps
    the libraries already read)."""
    reader.keys(entry, path, REF_KEYS)
    written = reader.text(entry["ref"], (*path, "ref"))
    if reader.errors or written is None:
        return list(reader.errors)
    ref = written.strip()
    here = reader.document.file.parent
    searched = [here, *here.parents][:LIBRARY_DEPTH]
    found = [library for library in map(_library_dir, searched) if library is not None]
    for library in found:
        if library not in libraries:
            libraries[library] = _test_cases(library)
        if ref in libraries[library]:
            overrides = {"mcp_servers": entry["mcp_servers"]} if "mcp_servers" in entry else {}
            return _library_case(libraries[library][ref], shared, overrides)
    ids = [ident for library in found for ident in libraries[library]]
    if found:
        listed = ", ".join(str(library) for library in found)
        hint = suggest(ref, ids) or f"no test case there has that id (looked in {listed})"
    else:
        hint = f"no test-cases/ or scenarios/ library in {here} or its parents"
    reader.fail((*path, "ref"), f"library test case {ref!r} not found", hint)
    return list(reader.errors)


def _library_case(
    document: Document, shared: dict[str, Any], overrides: dict[str, Any]
) -> list[AgentCase | LoadError]:
    """The library test case as a case; `overrides` (the ref's `mcp_servers`) replace its own."""
    found: list[AgentCase | LoadError] = []
    for item in _Scenario(Reader(document), (), shared).case():
        if isinstance(item, AgentCase) and overrides:
            item = item.model_copy(update={"metadata": {**item.metadata, **overrides}})
        found.append(item)
    return found


class _Scenario:
    """One scenario mapping at `path` of the reader's document."""

    def __init__(self, reader: Reader, path: KeyPath, metadata: dict[str, Any]) -> None:
        self.r = reader
        self.path = path
        self.metadata = metadata
        self.placed: dict[int, KeyPath] = {}
        self.checks: list[Assertion] = []

    def at(self, *parts: str | int) -> KeyPath:
        return (*self.path, *parts)

    def case(self) -> list[AgentCase | LoadError]:
        r = self.r
        data: Any = r.document.data
        for part in self.path:
            data = data[part]
        r.keys(data, self.path, SCENARIO_KEYS)
        prompt = r.text(data.get("prompt", ""), self.at("prompt")) or ""
        scenario_id = r.text(data["id"], self.at("id")) if "id" in data else None
        name = r.text(data["name"], self.at("name")) if "name" in data else None
        context = JudgeContext()
        block = data.get("eval")
        if block is not None:
            evaluation = r.mapping(block, self.at("eval"))
            if evaluation is not None:
                r.keys(evaluation, self.at("eval"), EVAL_KEYS)
                context = self.read_eval(evaluation)
        extract = self.extract(data["extract"], self.at("extract")) if "extract" in data else ()
        if r.errors:
            return list(r.errors)
        metadata = dict(self.metadata)
        for key in ("servers", "mcp_servers", "snapshot_eval"):  # an `agent:` pin selects in `load`
            if key in data:
                metadata[key] = data[key]
        case = AgentCase(
            name=name or scenario_id or r.document.file.stem,
            id=scenario_id,
            source=source_ref(r.document, self.path),
            dialect="mcplab",
            turns=(AgentTurn(user=prompt, line=r.where(self.at("prompt"))[0]),),
            assertions=tuple(self.checks),
            judge_context=context,
            strip_server_prefix=True,
            extract=extract,
            metadata=metadata,
        )
        return r.finish(case, self.placed)

    def extract(self, value: Any, path: KeyPath) -> tuple[Extraction, ...]:
        """`extract: [{name, from: final_text, regex}]`; the pattern must be valid JavaScript."""
        r = self.r
        if not isinstance(value, list):
            r.fail(path, "must be a list of {name, from, regex}")
            return ()
        found = []
        for index, item in enumerate(value):
            at = (*path, index)
            data = r.mapping(item, at)
            if data is None or not r.keys(data, at, ("name", "from", "regex"), required=("name", "regex")):
                continue
            name = r.text(data["name"], (*at, "name"))
            pattern = r.text(data["regex"], (*at, "regex"), scalars=False)
            if data.get("from", "final_text") != "final_text":
                r.fail(
                    (*at, "from"), f"{data['from']!r} is not a source MCPLab extracts from", "use final_text"
                )
            elif name is not None and pattern is not None:
                try:
                    compile_js(pattern)
                except JSRegexError as error:
                    r.fail((*at, "regex"), str(error))
                    continue
                found.append(Extraction(name=name, regex=pattern))
        return tuple(found)

    def add(self, at: KeyPath, factory: Any, /, **fields: Any) -> None:
        check = self.r.build(at, factory, **fields)
        if check is not None:
            self.placed[id(check)] = at
            self.checks.append(check)

    def read_eval(self, block: dict[str, Any]) -> JudgeContext:
        here = self.at("eval")
        if "tool_constraints" in block:
            self.constraints(block["tool_constraints"], (*here, "tool_constraints"))
        if "tool_sequence" in block:
            self.sequence(block["tool_sequence"], (*here, "tool_sequence"))
        for index, item in enumerate(self.items(block, "tool_input_assertions")):
            self.tool_input(item, (*here, "tool_input_assertions", index))
        for index, item in enumerate(self.items(block, "response_assertions")):
            self.response(item, (*here, "response_assertions", index))
        for index, item in enumerate(self.items(block, "agent_assertions")):
            self.agent(item, (*here, "agent_assertions", index))
        return self.agent_context(block.get("agent_context"), (*here, "agent_context"))

    def items(self, block: dict[str, Any], key: str) -> list[Any]:
        value = block.get(key) or []
        if not isinstance(value, list):
            self.r.fail((*self.at("eval"), key), "must be a list")
            return []
        return value

    def constraints(self, value: Any, path: KeyPath) -> None:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ("required_tools", "forbidden_tools")):
            return
        for key, factory in (("required_tools", ToolsCalled), ("forbidden_tools", ToolsNotCalled)):
            names = self.r.texts(data.get(key) or [], (*path, key), one_or_many=False) or []
            for index, name in enumerate(names):
                self.add((*path, key, index), factory, tools=(name,))

    def sequence(self, value: Any, path: KeyPath) -> None:
        if isinstance(value, list):
            names = self.r.texts(value, path, one_or_many=False)
            if names:
                self.add(path, SequenceCheck, sequences=(tuple(names),))
            return
        data = self.r.mapping(value, path, "a list of tool names or {allow: [[...], ...]}")
        if data is None or not self.r.keys(data, path, ("allow",), required=("allow",)):
            return
        allowed = data["allow"]
        if not isinstance(allowed, list):
            self.r.fail((*path, "allow"), "must be a list of tool-name lists")
            return
        lists = [
            self.r.texts(item, (*path, "allow", index), one_or_many=False)
            for index, item in enumerate(allowed)
        ]
        if allowed and all(each is not None for each in lists):
            self.add(path, SequenceCheck, mode="exact", sequences=tuple(tuple(each or ()) for each in lists))

    def typed(
        self, value: Any, path: KeyPath, types: tuple[str, ...], keys: tuple[str, ...]
    ) -> dict[str, Any] | None:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ("type", *keys), required=("type",)):
            return None
        if data["type"] not in types:
            self.r.fail((*path, "type"), f"{data['type']!r} is not one of {', '.join(types)}")
            return None
        return data

    def need(self, data: dict[str, Any], path: KeyPath, key: str) -> str | None:
        if key not in data:
            self.r.fail(path, f"required key {key!r} missing for type {data['type']}")
            return None
        return self.r.text(data[key], (*path, key))

    def tool_input(self, value: Any, path: KeyPath) -> None:
        data = self.typed(
            value, path, ("contains", "regex", "jsonpath"), ("tool", "value", "pattern", "path", "equals")
        )
        if data is None:
            return
        tool = self.need(data, path, "tool")
        key = {"contains": "value", "regex": "pattern", "jsonpath": "path"}[data["type"]]
        text = self.need(data, path, key)
        if tool is None or text is None:
            return
        self.add(
            path,
            ToolInputCheck,
            tool=tool,
            op=data["type"],
            value=text,
            has_equals="equals" in data,
            equals=data.get("equals"),
        )

    def response(self, value: Any, path: KeyPath) -> None:
        types = (*TEXT_TYPES, "regex", *JSONPATH_TYPES)
        data = self.typed(value, path, types, ("value", "pattern", "path", "equals"))
        if data is None:
            return
        kind = data["type"]
        if kind in TEXT_TYPES:
            text = self.need(data, path, "value")
            if text is not None:
                self.add(path, TextCheck, op=kind, values=(text,), ignore_case=True, trim=False)
        elif kind == "regex":
            pattern = self.need(data, path, "pattern")
            if pattern is not None:
                self.add(
                    path, RegexCheck, pattern=pattern, flavor="js", ignore_case=True, strip_inline_flags=True
                )
        else:
            where = self.need(data, path, "path")
            if where is None:
                return
            if kind == "jsonpath_not_exists":
                self.add(path, JsonPathCheck, path=where, mode="not_exists")
            elif kind == "jsonpath" and "equals" in data:
                self.add(path, JsonPathCheck, path=where, mode="equals", equals=data["equals"])
            else:
                self.add(path, JsonPathCheck, path=where, mode="exists")

    def agent(self, value: Any, path: KeyPath) -> None:
        data = self.r.mapping(value, path)
        if data is None or not self.r.keys(data, path, ("label", "prompt"), required=("prompt",)):
            return
        prompt = self.r.text(data["prompt"], (*path, "prompt"))
        label = self.r.text(data.get("label", f"agent-check-{path[-1]}"), (*path, "label"))
        if prompt is not None:
            self.add(path, JudgeCheck, criteria=prompt, label=label)

    def agent_context(self, value: Any, path: KeyPath) -> JudgeContext:
        if value is None:
            return JudgeContext()
        data = self.r.mapping(value, path) or {}
        flags = ("include_prompt", "include_tool_sequence", "include_tool_inputs")
        self.r.keys(data, path, flags)
        return JudgeContext(
            **{key: bool(self.r.boolean(data[key], (*path, key))) for key in flags if key in data}
        )
