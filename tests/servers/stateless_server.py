"""A stdlib-only MCP server of the 2026-07-28 era only (no initialize), that follows the protocol except for
the one rule its mode breaks.

Usage: stateless_server.py [MODE] (stdio), or stateless_server.py --port PORT (Streamable HTTP, every mode at
once: POST /MODE/mcp). MODE is `conforming` or a name in BREAKS or HOSTILE. The well-behaved base validates
Host and Origin (HTTP 403 for a foreign one), the `_meta` envelope (-32602, HTTP 400), the SEP-2243 headers
against the body (-32020, HTTP 400; Mcp-Param-Region too) and the version (-32022 with the supported list,
HTTP 400); answers server/discover, tools/list, tools/call, resources/list, resources/templates/list,
resources/read and prompts/list (none) with cache hints; -32601 (HTTP 404) for anything else. Its three tools
that ask for input (read-only, no argument) carry the names of the official suite's fixtures, so both suites
exercise them: each asks, through an input_required result with a signed requestState, for what the client
declared (elicitation or sampling), again while the answer is missing or malformed, and answers -32021 to a
client that declared neither; a fourth, `test_missing_capability`, answers -32021 (HTTP 400) to a client that
did not declare sampling. It declares two extensions: tasks (tasks/get, tasks/update and tasks/cancel,
-32021 to a client that did not declare the extension, -32602 for a task it does not have) and skills (one
skill, `skills/list` and `skills/get`, its SKILL.md read with resources/read).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

ERA = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
BREAKS = {
    "wrong-codes": "answers an unsupported version with -32602 instead of -32022",
    "no-cache-hints": "leaves ttlMs and cacheScope off tools/list",
    "session-id": "mints an Mcp-Session-Id on every answer",
    "unchecked-headers": "never compares Mcp-Method or Mcp-Name with the body",
    "empty-contents": "answers a read of an unknown resource with empty contents",
    "shuffled-tools": "lists its tools in a different order each time",
    "tampered-state": "accepts a requestState whatever was done to it",
    "undeclared-capability": "asks for elicitation from a client that did not declare it",
    "undeclared-tasks": "serves tasks without declaring the tasks extension",
    "wrong-digest": "lists a skill file whose digest does not match its content",
    "capability-status": "answers -32021 (missing client capability) with HTTP 200, not 400",
    "unchecked-params": "never compares the Mcp-Param-Region header with the region it mirrors",
    "never-completes": "asks for input again however it is answered",
    "input-on-list": "answers tools/list with an input_required result to a client that declared elicitation",
    "untagged-notifications": "sends a list change on a subscription's stream without the subscription's id",
    "unasked-notifications": "sends a prompts list change on a subscription that asked for tools only",
}
# Modes that follow every rule but answer in a way a client must cope with, or break the plain HTTP exchange.
HOSTILE = {
    "priming": "answers on an SSE stream that a priming event (an id, a retry, empty data) opens",
    "drops-sessions": "closes the connection without an answer to a request that carries Mcp-Session-Id",
    "anonymous": "names itself only in server/discover's result body, not in its _meta (a SHOULD)",
    "crowded": "lists 25 more read-only tools (filler_00 ...) before its own",
    "list-changes": "declares tools.listChanged and sends one, tagged, on each subscriptions/listen stream",
}
# mode -> the notification it sends after acknowledging a subscription, and whether it carries its id
LISTENING = {
    "list-changes": ("notifications/tools/list_changed", True),
    "untagged-notifications": ("notifications/tools/list_changed", False),
    "unasked-notifications": ("notifications/prompts/list_changed", True),
}
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
FILLERS = [
    {"name": f"filler_{n:02d}", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
    for n in range(25)
]
TASKS = "io.modelcontextprotocol/tasks"
SKILLS = "io.modelcontextprotocol/skills"
SKILL_MD = "---\nname: greeting\ndescription: Greets people.\n---\n\nSay hello.\n"
SKILL_URI = "skill://greeting/SKILL.md"
MODES = ("conforming", *BREAKS, *HOSTILE)
KEY = secrets.token_bytes(32)
HINTS = {"ttlMs": 60000, "cacheScope": "public"}
RESOURCE = {"uri": "memo://greeting", "name": "greeting", "mimeType": "text/plain"}
ASKING = (
    "test_input_required_result_elicitation",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
)
TOOLS = [
    {
        "name": "count",
        "description": "How many memos there are.",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"],
        },
        "annotations": {"readOnlyHint": True},
    },
    *(
        {
            "name": name,
            "description": "Asks the user (or the model) to confirm.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
        }
        for name in (*ASKING, "test_missing_capability")  # the last needs sampling
    ),
    {
        "name": "lookup",
        "description": "Looks a region up.",
        "inputSchema": {
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "echo",
        "description": "Says the text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
]
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


class Server:
    """One mode's answers; `listings` counts tools/list for the shuffled mode."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.listings = 0

    def answer(self, body: dict[str, Any], headers: dict[str, str] | None) -> tuple[int, dict[str, Any]]:
        """The HTTP status and the JSON-RPC answer to one request; `headers` (lowercase) over HTTP only."""
        ident = body.get("id")
        params = body.get("params") if isinstance(body.get("params"), dict) else {}
        meta = params.get("_meta")
        if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
            return 400, error(ident, -32602, "params._meta must carry the protocol version and capabilities")
        method = body.get("method")
        if headers is not None:
            if headers.get("mcp-protocol-version") != meta[VERSION_KEY]:
                return 400, error(ident, -32020, "MCP-Protocol-Version does not match _meta")
            if self.mode != "unchecked-headers":
                if headers.get("mcp-method") != method:
                    return 400, error(ident, -32020, "Mcp-Method does not match the body")
                key = NAMED.get(str(method))
                if key is not None and headers.get("mcp-name") != params.get(key):
                    return 400, error(ident, -32020, "Mcp-Name does not match the body")
            problem = param_problem(params, headers) if self.mode != "unchecked-params" else None
            if method == "tools/call" and problem:
                return 400, error(ident, -32020, problem)
        if meta[VERSION_KEY] != ERA:
            if self.mode == "wrong-codes":
                return 400, error(ident, -32602, "unsupported version")
            data = {"supported": [ERA], "requested": meta[VERSION_KEY]}
            return 400, error(ident, -32022, "Unsupported protocol version", data)
        handler = getattr(self, "do_" + str(method).replace("/", "_"), None)
        if handler is None:
            return 404, error(ident, -32601, "Method not found")
        status, answer = handler(params, meta[CAPABILITIES_KEY])
        if self.mode == "capability-status" and (answer.get("error") or {}).get("code") == -32021:
            status = 200
        return status, {"jsonrpc": "2.0", "id": ident, **answer}

    def do_server_discover(
        self, params: dict[str, Any], declared: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        extensions = {SKILLS: {}} if self.mode == "undeclared-tasks" else {TASKS: {}, SKILLS: {}}
        tools = {"listChanged": True} if self.mode in LISTENING else {}
        capabilities = {"tools": tools, "resources": {}, "prompts": {}, "extensions": extensions}
        info = {"name": "stateless", "version": "1"}
        if self.mode == "anonymous":
            return complete(
                {"supportedVersions": [ERA], "capabilities": capabilities, **HINTS, "serverInfo": info}
            )
        meta = {"io.modelcontextprotocol/serverInfo": info}
        return complete({"supportedVersions": [ERA], "capabilities": capabilities, **HINTS, "_meta": meta})

    def do_tools_list(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.listings += 1
        if self.mode == "input-on-list" and "elicitation" in declared:
            ask = {"method": "elicitation/create", "params": {"message": "Which?", "requestedSchema": SCHEMA}}
            return 200, {"result": {"resultType": "input_required", "inputRequests": {"which": ask}}}
        tools = TOOLS[::-1] if self.mode == "shuffled-tools" and self.listings % 2 == 0 else TOOLS
        tools = [*FILLERS, *tools] if self.mode == "crowded" else tools
        hints = {} if self.mode == "no-cache-hints" else HINTS
        return complete({"tools": tools, **hints})

    def do_prompts_list(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return complete({"prompts": [], **HINTS})

    def do_resources_list(
        self, params: dict[str, Any], declared: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        return complete({"resources": [RESOURCE], **HINTS})

    def do_resources_templates_list(
        self, params: dict[str, Any], declared: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        return complete({"resourceTemplates": [], **HINTS})

    def do_resources_read(
        self, params: dict[str, Any], declared: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            return 400, {"error": {"code": -32602, "message": "uri must be a string"}}
        if uri == SKILL_URI:
            return complete(
                {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": SKILL_MD}], **HINTS}
            )
        if uri == RESOURCE["uri"]:
            return complete({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello"}], **HINTS})
        if self.mode == "empty-contents":
            return complete({"contents": [], **HINTS})
        return 400, {"error": {"code": -32602, "message": f"Resource not found: {uri}", "data": {"uri": uri}}}

    def skill(self) -> dict[str, Any]:
        content = SKILL_MD.encode() + (b"!" if self.mode == "wrong-digest" else b"")
        digest = "sha256:" + hashlib.sha256(content).hexdigest()
        files = [{"uri": SKILL_URI, "digest": digest, "size": len(SKILL_MD.encode())}]
        frontmatter = {"name": "greeting", "description": "Greets people."}
        return {"uri": SKILL_URI, "frontmatter": frontmatter, "resources": files}

    def do_skills_list(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return complete({"skills": [self.skill()], **HINTS})

    def do_skills_get(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if params.get("uri") != SKILL_URI:
            return 400, {"error": {"code": -32602, "message": f"No skill at {params.get('uri')}"}}
        return complete({"skill": self.skill(), **HINTS})

    def do_tasks_get(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if TASKS not in (declared.get("extensions") or {}):
            data = {"requiredCapabilities": {"extensions": {TASKS: {}}}}
            return 400, {"error": {"code": -32021, "message": f"{TASKS} is required", "data": data}}
        return 400, {"error": {"code": -32602, "message": f"Unknown task: {params.get('taskId')}"}}

    do_tasks_update = do_tasks_cancel = do_tasks_get

    def do_tools_call(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(arguments, dict):
            return 400, {"error": {"code": -32602, "message": "arguments must be an object"}}
        if name == "count":
            return complete({"content": [{"type": "text", "text": "3"}], "structuredContent": {"count": 3}})
        if name == "lookup":
            return complete({"content": [{"type": "text", "text": f"found {arguments.get('region')}"}]})
        if name == "echo" or (self.mode == "crowded" and str(name).startswith("filler_")):
            return complete({"content": [{"type": "text", "text": str(arguments.get("text"))}]})
        if name == "test_missing_capability" and "sampling" not in declared:
            data = {"requiredCapabilities": {"sampling": {}}}
            return 400, {"error": {"code": -32021, "message": "sampling is required", "data": data}}
        if name in ASKING or name == "test_missing_capability":
            return self.confirm(params, declared)
        return 400, {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}

    def confirm(self, params: dict[str, Any], declared: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Refuse a requestState that fails its check; ask (elicitation, else sampling, else -32021) until the
        answer comes; then complete."""
        state, responses = params.get("requestState"), params.get("inputResponses")
        if state is not None and self.mode != "tampered-state" and not verified(str(state)):
            return 400, {"error": {"code": -32602, "message": "requestState failed its integrity check"}}
        elicit = self.mode == "undeclared-capability" or "elicitation" in declared
        key = "user_name" if elicit else "question"
        said = responses.get(key) if isinstance(responses, dict) else None
        if not isinstance(said, dict) or self.mode == "never-completes":  # no (or a malformed) answer: ask
            if elicit:
                ask = {
                    "method": "elicitation/create",
                    "params": {"message": "Sure?", "requestedSchema": SCHEMA},
                }
            elif "sampling" in declared:
                message = {"role": "user", "content": {"type": "text", "text": "Sure?"}}
                ask = {"method": "sampling/createMessage", "params": {"messages": [message], "maxTokens": 10}}
            else:
                data = {"requiredCapabilities": {"elicitation": {}}}
                return 400, {"error": {"code": -32021, "message": "elicitation is required", "data": data}}
            result = {"resultType": "input_required", "inputRequests": {key: ask}, "requestState": sign("1")}
            return 200, {"result": result}
        return complete({"content": [{"type": "text", "text": f"confirmed: {said.get('action')}"}]})


SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def param_problem(params: dict[str, Any], headers: dict[str, str]) -> str | None:
    """What is wrong with the Mcp-Param-Region header of a call of `lookup` (SEP-2243), if anything: it must
    carry the region, as it is or Base64-wrapped (=?base64?...?=)."""
    region = (params.get("arguments") or {}).get("region") if params.get("name") == "lookup" else None
    sent = headers.get("mcp-param-region")
    if region is None:
        return None
    if sent is None:
        return "no Mcp-Param-Region header for the region"
    if wrapped := re.fullmatch(r"=\?base64\?(.*)\?=", sent):
        try:
            sent = base64.b64decode(wrapped[1], validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return "Mcp-Param-Region is not valid Base64"
    return None if sent == region else "Mcp-Param-Region does not match the region"


def complete(result: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, {"result": {"resultType": "complete", **result}}


def error(ident: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        detail["data"] = data
    return {"jsonrpc": "2.0", "id": ident, "error": detail}


def sign(payload: str) -> str:
    return payload + "." + hmac.new(KEY, payload.encode(), hashlib.sha256).hexdigest()


def verified(state: str) -> bool:
    payload, _, signature = state.rpartition(".")
    return hmac.compare_digest(sign(payload), f"{payload}.{signature}")


SERVERS = {mode: Server(mode) for mode in MODES}


def local(host: str | None) -> bool:
    """Whether a Host (or an Origin's host and port) is this machine's, or absent."""
    name = urlsplit(f"//{host}").hostname if host else None
    return name is None or name in ("localhost", "127.0.0.1", "::1")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, answer: dict[str, Any] | None, mode: str) -> None:
        raw = json.dumps(answer).encode() if answer is not None else b""
        stream = mode == "priming" and status == 200 and answer is not None
        if stream:
            raw = b"id: 1\nretry: 500\ndata: \n\nid: 2\ndata: " + raw + b"\n\n"
        self.send_response(status)
        if answer is not None:
            self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        if mode == "session-id":
            self.send_header("Mcp-Session-Id", secrets.token_hex(8))
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        if mode not in SERVERS:
            self._send(404, None, "")
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if mode == "drops-sessions" and "Mcp-Session-Id" in self.headers:
            self.close_connection = True
            return
        if not local(self.headers.get("Host")) or not local(urlsplit(self.headers.get("Origin", "")).netloc):
            self._send(403, None, mode)  # a foreign Host or Origin: DNS rebinding
            return
        if "id" not in body:
            self._send(202, None, mode)
            return
        if mode in LISTENING and body.get("method") == "subscriptions/listen":
            self._subscription(mode, body["id"])
            return
        headers = {name.lower(): value.strip() for name, value in self.headers.items()}
        status, answer = SERVERS[mode].answer(body, headers)
        self._send(status, answer, mode)

    def _subscription(self, mode: str, ident: Any) -> None:
        """A subscription's stream: its acknowledgment, then the mode's one notification; then it ends."""
        method, tagged = LISTENING[mode]
        tag = {"_meta": {SUBSCRIPTION_ID: ident}}
        frames = [
            {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": tag},
            {"jsonrpc": "2.0", "method": method, "params": tag if tagged else {}},
        ]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"".join(b"data: " + json.dumps(frame).encode() + b"\n\n" for frame in frames))
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self._send(405, None, "")

    do_DELETE = do_GET


def serve_stdio(mode: str) -> None:
    server = Server(mode)
    for line in sys.stdin:
        body = json.loads(line)
        if "id" in body and "method" in body:
            sys.stdout.write(json.dumps(server.answer(body, None)[1]) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--port"]:
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
    else:
        serve_stdio(sys.argv[1] if len(sys.argv) > 1 else "conforming")
