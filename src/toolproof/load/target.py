"""The `target:` of an agent case: an existing agent reached over HTTP (see `model.target.HttpTarget`).

Written in toolproof's scenario files, or for Mibo test cases (whose target is configured apart from the
cases, as a Mibo platform is) in a file of its own, the same keys at the top level or under `target:`:

```yaml
url: https://agent.example.com/chat          # ${VAR} expands from the environment
method: POST                                   # POST (default), PUT or PATCH
headers: {X-Team: "${TEAM}"}
auth: {bearer_env: AGENT_TOKEN}                # or {header: X-API-Key, env: AGENT_KEY}, or none
body: {input: "{user_message}", session: "{session_id}", user: "{USER_ID}"}   # alias: message_template
response_path: data.choices.0.message.content
trace_path: trace                              # where the inline trace is (default: the whole body)
platform: auto                                 # how the trace is read: auto, custom, n8n or flowise
timeout: 30s
request_id_header: x-request-id
```
A `message_template` may also be JSON text, as Mibo's dashboard holds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolproof.core.durations import parse_duration
from toolproof.load.errors import LoadError
from toolproof.load.reader import Reader
from toolproof.load.yaml_source import KeyPath, read_yaml
from toolproof.model.target import HttpTarget, TargetAuth

TARGET_KEYS = (
    "url",
    "method",
    "headers",
    "auth",
    "body",
    "message_template",
    "response_path",
    "trace_path",
    "platform",
    "timeout",
    "request_id_header",
)
METHODS = ("POST", "PUT", "PATCH")
PLATFORMS = ("auto", "custom", "n8n", "flowise")


def read_target(r: Reader, value: Any, path: KeyPath) -> HttpTarget | None:
    """The target written at `path`, or None with the reader's errors (file, line, field) filled in."""
    data = r.mapping(value, path)
    if data is None:
        return None
    r.keys(data, path, TARGET_KEYS, required=("url",))
    if "url" not in data:
        return None
    fields: dict[str, Any] = {}
    url = r.text(data["url"], (*path, "url"), scalars=False)
    if url is not None and not url.startswith(("http://", "https://", "$")):
        r.fail((*path, "url"), f"must be an http:// or https:// URL, got {url!r}")
    fields["url"] = url
    if "method" in data:
        method = (r.text(data["method"], (*path, "method")) or "").upper()
        if method not in METHODS:
            r.fail((*path, "method"), f"must be one of {', '.join(METHODS)}, got {data['method']!r}")
        fields["method"] = method
    if "headers" in data:
        headers = r.mapping(data["headers"], (*path, "headers")) or {}
        fields["headers"] = {
            str(name): r.text(item, (*path, "headers", name)) or "" for name, item in headers.items()
        }
    if "auth" in data:
        fields["auth"] = _auth(r, data["auth"], (*path, "auth"))
    if "body" in data and "message_template" in data:
        r.fail((*path, "message_template"), "give either body or message_template, not both")
    if "body" in data:
        fields["body"] = data["body"]
    if "message_template" in data:
        fields["body"] = _template(r, data["message_template"], (*path, "message_template"))
    for key in ("response_path", "trace_path", "request_id_header"):
        if key in data:
            fields[key] = r.text(data[key], (*path, key))
    if "platform" in data:
        platform = r.text(data["platform"], (*path, "platform"))
        if platform not in PLATFORMS:
            r.fail((*path, "platform"), f"must be one of {', '.join(PLATFORMS)}, got {data['platform']!r}")
        fields["platform"] = platform
    if "timeout" in data:
        fields["timeout_s"] = _timeout(r, data["timeout"], (*path, "timeout"))
    if r.errors:
        return None
    return HttpTarget(**fields)


def _auth(r: Reader, value: Any, path: KeyPath) -> TargetAuth | None:
    if value in ("none", None):
        return None
    data = r.mapping(value, path, "a mapping ({bearer_env: VAR} or {header: NAME, env: VAR}) or none")
    if data is None:
        return None
    if "bearer_env" in data:
        if not r.keys(data, path, ("bearer_env",)):
            return None
        env = r.text(data["bearer_env"], (*path, "bearer_env"), scalars=False)
        return None if env is None else TargetAuth(env=env)
    if not r.keys(data, path, ("header", "env", "scheme"), required=("header", "env")):
        return None
    header = r.text(data["header"], (*path, "header"), scalars=False)
    env = r.text(data["env"], (*path, "env"), scalars=False)
    scheme = r.text(data["scheme"], (*path, "scheme"), scalars=False) if "scheme" in data else None
    return None if header is None or env is None else TargetAuth(env=env, header=header, scheme=scheme)


def _template(r: Reader, value: Any, path: KeyPath) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError as error:
        r.fail(path, f"a template given as text must be JSON ({error})")
        return None


def _timeout(r: Reader, value: Any, path: KeyPath) -> float | None:
    text = r.text(value, path)
    if text is None:
        return None
    try:
        seconds = parse_duration(text)
    except ValueError as error:
        r.fail(path, str(error))
        return None
    if seconds <= 0:
        r.fail(path, f"must be positive, got {text!r}")
        return None
    return seconds


def load_target_file(path: Path) -> HttpTarget | list[LoadError]:
    """The target configured in a YAML or JSON file (its keys at the top level, or under `target:`)."""
    read = read_yaml(path)
    if read.errors:
        return list(read.errors)
    if len(read.documents) != 1:
        return [LoadError(path, 1, 1, "", f"a target file holds one document, found {len(read.documents)}")]
    document = read.documents[0]
    r = Reader(document)
    at: KeyPath = ("target",) if set(document.data) == {"target"} else ()
    target = read_target(r, document.data["target"] if at else document.data, at)
    return target if target is not None and not r.errors else list(r.errors)
