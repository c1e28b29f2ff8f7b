#!/usr/bin/env python3
"""A raw JSON-RPC stdio MCP server (standard library only) whose tools misbehave in the ways probes classify.

Tools (one behaviour each, so a probe's verdict on one can be checked against its neighbours):
  ok             echoes its `text` argument
  crash          exits the process (code 3) after writing a traceback-like line to stderr
  hang           never answers
  strict         answers -32602 "invalid params" to every call, however valid
  traceback      answers isError with a Python traceback
  picky          answers isError "count must be between 1 and 10" when `count` is out of range, else ok
  boom_on_long   exits when `name` is longer than 100 characters (a crash only a long string finds)
  wipe           annotated destructive; answers ok
  bad_reply      answers with a result that is not valid MCP (content is a string)
  counter        answers a different number on every call (nondeterministic)
  big            answers 150 KB of text

`--tools N` instead lists N generated tools (`tool_0` ...) that all answer ok; `--alike N` lists N tools of
one shape (`op_0` ...: two numeric operands, as a calculator's), every one of which can feed every other;
`--failing N` lists N tools (`render_0` ...) that fail every call alike, as a server whose backend is
unreachable does (an isError traceback whose only difference is the size of the request); `--only NAME,...`
lists only those tools. `--calls FILE` appends the name of every tool called to FILE, one a line.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

TEXT = {"type": "object", "properties": {"text": {"type": "string", "description": "text to echo"}}}


def tool(name: str, description: str, schema: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": schema or {"type": "object"}, **extra}


TOOLS = [
    tool("ok", "Echoes the text it is given and returns it unchanged.", {**TEXT, "required": ["text"]}),
    tool("crash", "Returns nothing: the process exits at once, as a crashing server does.", TEXT),
    tool("hang", "Returns nothing: never answers, as a hung server does.", TEXT),
    tool("strict", "Returns an invalid-params error for every call, even a valid one.", TEXT),
    tool("traceback", "Returns an isError result holding a Python traceback.", TEXT),
    tool(
        "picky",
        "Returns ok for a count from 1 to 10 and an explained isError result otherwise.",
        {
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 10, "description": "1 to 10"}
            },
            "required": ["count"],
        },
    ),
    tool(
        "boom_on_long",
        "Returns a greeting for the name; the process exits when the name is over 100 characters.",
        {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "who to greet"}},
            "required": ["name"],
        },
    ),
    tool("wipe", "Deletes everything (not really): returns ok.", TEXT, annotations={"destructiveHint": True}),
    tool("bad_reply", "Returns a reply that is not valid MCP.", TEXT),
    tool("counter", "Returns how many times it has been called.", {"type": "object"}),
    tool("big", "Returns 150 KB of text.", {"type": "object"}),
]
CALLS = [0]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def call(name: str, arguments: Any) -> dict[str, Any] | None:
    """The result of one call (None: reply with the error already sent, or no reply at all)."""
    args = arguments if isinstance(arguments, dict) else {}
    if name == "crash":
        sys.stderr.write("fatal: tool crash pulled the plug\n")
        sys.stderr.flush()
        sys.exit(3)
    if name == "hang":
        time.sleep(3600)
    if name == "traceback":
        trace = "Traceback (most recent call last):\n  File \"server.py\", line 1, in call\nKeyError: 'x'"
        return text(trace, error=True)
    if name == "picky":
        count = args.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 10:
            return text("count must be an integer from 1 to 10", error=True)
        return text(f"count {count}")
    if name == "boom_on_long":
        who = args.get("name")
        if isinstance(who, str) and len(who) > 100:
            sys.stderr.write(f"fatal: name of {len(who)} characters overflowed\n")
            sys.stderr.flush()
            sys.exit(4)
        return text(f"hello {who}")
    if name == "bad_reply":
        return {"content": "not a list"}
    if name == "counter":
        CALLS[0] += 1
        return text(str(CALLS[0]))
    if name == "big":
        return text("x" * 150 * 1024)
    return text(str(args.get("text", "")))


OPERANDS = {
    "type": "object",
    "properties": {
        "first_operand": {"type": "number", "description": "the first operand"},
        "second_operand": {"type": "number", "description": "the second operand"},
    },
    "required": ["first_operand", "second_operand"],
}


CHART = {
    "type": "object",
    "properties": {
        "data": {"type": "array", "items": {"type": "object"}, "description": "the rows to plot"},
        "title": {"type": "string", "description": "the chart's title"},
        "width": {"type": "integer", "minimum": 100, "maximum": 2000, "description": "width in pixels"},
    },
    "required": ["data"],
}


def unreachable(arguments: Any) -> dict[str, Any]:
    size = len(json.dumps(arguments))
    trace = (
        'Traceback (most recent call last):\n  File "render.py", line 12, in render\n'
        f"ConnectionError: cannot reach https://render.invalid: request of {size} bytes refused"
    )
    return text(trace, error=True)


def option(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def listed() -> list[dict[str, Any]]:
    if "--failing" in sys.argv:
        count = int(sys.argv[sys.argv.index("--failing") + 1])
        return [
            tool(f"render_{i}", f"Returns chart {i} rendered by the render service.", CHART)
            for i in range(count)
        ]
    if "--alike" in sys.argv:
        count = int(sys.argv[sys.argv.index("--alike") + 1])
        return [
            tool(f"op_{i}", f"Returns operation {i} of the two operands.", OPERANDS) for i in range(count)
        ]
    if "--tools" in sys.argv:
        count = int(sys.argv[sys.argv.index("--tools") + 1])
        return [tool(f"tool_{i}", f"Returns the text given to tool {i}.", TEXT) for i in range(count)]
    if "--only" in sys.argv:
        names = sys.argv[sys.argv.index("--only") + 1].split(",")
        return [item for item in TOOLS if item["name"] in names]
    return TOOLS


def main() -> None:
    tools = listed()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            result: Any = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "probe-target", "version": "1.0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            log = option("--calls")
            if log is not None:
                with open(log, "a", encoding="utf-8") as calls:
                    calls.write(f"{params.get('name')}\n")
            if str(params.get("name")).startswith("render_"):
                send({"jsonrpc": "2.0", "id": ident, "result": unreachable(params.get("arguments"))})
                continue
            if params.get("name") == "strict":
                send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": "invalid params"}})
                continue
            result = call(str(params.get("name")), params.get("arguments"))
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
