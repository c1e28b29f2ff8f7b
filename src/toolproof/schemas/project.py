"""The project file (`toolproof.yaml`), from `ProjectConfig`, the model `load.project_file` validates it with.

`servers:` and `target:` are read apart from that model (by `read_servers` and `read_target`), so they take
the shapes of those readers: a mapping of names to `ServerConfig`, and the target of a scenario case.
"""

from __future__ import annotations

from toolproof.load.project_file import ProjectConfig
from toolproof.model.server_config import ServerConfig, Transport
from toolproof.schemas.shapes import DURATION, Schema, any_case, document, model_schemas
from toolproof.schemas.targets import SERVER_NAME, target


def schema() -> Schema:
    refs, defs = model_schemas([ProjectConfig, ServerConfig])
    body = dict(defs.pop("ProjectConfig"))
    properties = dict(body["properties"])
    properties["servers"] = {
        "type": "object",
        "propertyNames": SERVER_NAME,
        "additionalProperties": refs["ServerConfig"],
    }
    properties["target"] = target()
    properties["timeout"] = {**DURATION, "description": "bounds each trial"}
    body["properties"] = properties
    for name in ("ProviderSettings", "AgentSettingsFile"):
        settings = defs[name]["properties"]
        defs[name]["properties"] = {**settings, "request_timeout": {**DURATION, "description": "one request"}}
    properties["request_timeout"] = {**DURATION, "description": "one request"}
    body.pop("title", None)
    defs["Transport"] = any_case(Transport)
    return document(
        "toolproof project file (toolproof.yaml)",
        "Settings of `toolproof eval`: the agent's provider and model, the judge, servers, an HTTP target, "
        "agents by name, trials and limits. A case's own settings win over these; flags win over both.",
        body,
        defs,
    )
