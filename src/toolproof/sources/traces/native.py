"""toolproof's own transcript JSON: a `Transcript` as its model dumps it, or `{"runs": [...]}` of them.

A run saved before the model's fields were typed keeps them under `metadata`; its `stop`, `no_reply`,
`tools`, `duration_ms`, `provider`, `model`, `request_ids`, `platform` and `error` are read into the typed
fields (a stop of an unknown kind as a `transport` failure) and its other keys left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from toolproof.core.sanitize import mask
from toolproof.model.result import FailureKind
from toolproof.model.transcript import Transcript
from toolproof.sources.traces.errors import TraceError

_LEGACY_KEYS = ("no_reply", "tools", "duration_ms", "provider", "model", "request_ids", "platform", "error")


def read(document: Mapping[str, Any], source: str) -> list[Transcript]:
    runs = document["runs"] if isinstance(document.get("runs"), list) else [document]
    found = []
    for index, raw in enumerate(runs):
        try:
            run = Transcript.model_validate(_typed(raw))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise TraceError(f"run {index + 1}: {where}: {first['msg']}") from None
        found.append(run if run.source else run.model_copy(update={"source": f"{source} (run {index + 1})"}))
    return found


def _typed(raw: Any) -> Any:
    """`raw` with the keys of a legacy `metadata` moved to the typed fields."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("metadata"), Mapping):
        return raw
    metadata = raw["metadata"]
    typed = {key: value for key, value in raw.items() if key != "metadata"}
    typed.update({key: metadata[key] for key in _LEGACY_KEYS if key in metadata})
    if typed.get("error") is not None:
        typed["error"] = str(typed["error"])
    if "request_id" in metadata and "request_ids" not in metadata:
        typed["request_ids"] = [metadata["request_id"]]
    stop = metadata.get("stop")
    if isinstance(stop, Mapping):
        kind = stop.get("kind")
        known = kind in {member.value for member in FailureKind}
        typed["stop"] = {
            **{key: stop[key] for key in ("reason", "turn", "step") if stop.get(key) is not None},
            "kind": kind if known else FailureKind.TRANSPORT.value,
            **({"message": str(stop["message"])} if stop.get("message") else {}),
        }
    return typed


def dump(run: Transcript, secrets: Iterable[str] = ()) -> str:
    """`run` as the JSON text `read` takes back, with every secret masked."""
    return json.dumps(mask(run.model_dump(mode="json"), secrets), indent=2, ensure_ascii=False) + "\n"
