"""The scripted model's script file, from `ScriptFile`, the model the scripted provider validates it with."""

from __future__ import annotations

from toolproof.model.script import ScriptFile
from toolproof.schemas.shapes import Schema, document, model_schemas


def schema() -> Schema:
    _, defs = model_schemas([ScriptFile])
    body = dict(defs.pop("ScriptFile"))
    body.pop("title", None)
    return document(
        "toolproof scripted model",
        "What a scripted provider answers instead of a model: per scenario (`*`: any other), per user turn, "
        "the steps in order, each tool calls and/or a reply.",
        body,
        defs,
    )
