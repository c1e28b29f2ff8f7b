"""An agent behind HTTP that is toolproof's own agent loop: for each request it runs one user turn with the
scripted model of `--script` against a fresh examples/servers/notes_server.py (as `toolproof eval` does), and
answers in Mibo's Custom API shape, so an HTTP target sees the same run the loop saw.

    POST /chat  {"input": "<user message>", "scenario": "<script scenario>"}
      -> {"reply", "tool_calls": [{name, arguments, output, status}], "usage": {input/output/total_tokens}}
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.server_config import Transport
from toolproof.run.providers import load_scripted
from toolproof.sources.agent.loop import AgentSettings, run_conversation
from toolproof.sources.agent.mcp_tools import open_tool_host

NOTES = Path(__file__).resolve().parents[3] / "examples" / "servers" / "notes_server.py"


async def answer(script: Path, scenario: str, message: str) -> dict[str, Any]:
    """One turn of the agent loop, as the agent's HTTP answer."""
    notes = ConnectSpec(
        transport=Transport.STDIO, command=sys.executable, args=(str(NOTES),), env=dict(os.environ)
    )
    async with open_tool_host({"notes": notes}) as host:
        run = await run_conversation(
            scenario, [message], load_scripted(script), host, AgentSettings(model="scripted")
        )
    turn = run.final
    calls = [
        {
            "name": call.tool,
            "arguments": call.arguments,
            "output": call.result,
            "status": "error" if call.is_error else "success",
        }
        for call in turn.calls
    ]
    usage = turn.usage.model_dump() if turn.usage else None
    return {"reply": turn.reply, "tool_calls": calls, "usage": usage}


def handler(portal: BlockingPortal, script: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
            reply = portal.call(answer, script, str(body["scenario"]), str(body["input"]))
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--script", type=Path, required=True)
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with start_blocking_portal() as portal:
        server = ThreadingHTTPServer(("127.0.0.1", options.port), handler(portal, options.script))
        server.daemon_threads = True
        try:
            server.serve_forever()
        finally:
            server.server_close()


if __name__ == "__main__":
    main()
