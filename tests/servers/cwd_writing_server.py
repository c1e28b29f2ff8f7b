"""A stdlib-only stdio MCP server that writes into its working directory, as some real servers do.

At start it writes `started-here` into its working directory; its one tool, `save`, writes a file named
by its `name` argument there (fuzzing it sends names like `' OR 1=1 --`). A probe must run it somewhere
other than the caller's directory.
"""

from __future__ import annotations

import os
from typing import Any

from plain_stdio import serve

TOOLS = [
    {
        "name": "save",
        "description": "Save a note under a file name.",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    }
]


def save(arguments: dict[str, Any]) -> dict[str, Any]:
    name = str(arguments.get("name") or "unnamed")
    try:
        with open(os.path.join(os.getcwd(), name.replace("/", "_")), "w") as handle:
            handle.write("note")
    except OSError as error:
        return {"content": [{"type": "text", "text": str(error)}], "isError": True}
    return {"content": [{"type": "text", "text": "saved"}]}


with open("started-here", "w") as marker:
    marker.write(str(os.getpid()))
serve("cwd-writing", TOOLS, lambda name, arguments: save(arguments))
