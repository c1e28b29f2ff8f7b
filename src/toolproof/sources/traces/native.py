"""toolproof's own transcript JSON: a `Transcript` as its model dumps it, or `{"runs": [...]}` of them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from toolproof.core.sanitize import mask
from toolproof.model.transcript import Transcript
from toolproof.sources.traces.errors import TraceError


def read(document: Mapping[str, Any], source: str) -> list[Transcript]:
    runs = document["runs"] if isinstance(document.get("runs"), list) else [document]
    found = []
    for index, raw in enumerate(runs):
        try:
            run = Transcript.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise TraceError(f"run {index + 1}: {where}: {first['msg']}") from None
        found.append(run if run.source else run.model_copy(update={"source": f"{source} (run {index + 1})"}))
    return found


def dump(run: Transcript, secrets: Iterable[str] = ()) -> str:
    """`run` as the JSON text `read` takes back, with every secret masked."""
    return json.dumps(mask(run.model_dump(mode="json"), secrets), indent=2, ensure_ascii=False) + "\n"
