"""The small file (`--inputs FILE`) that names what the conformance probe may call with which arguments.

    tools:            # tools that are safe to call with these arguments (you vouch for them)
      get_weather: {city: Paris}
    prompts:          # arguments for prompts/get
      greet: {name: Ada}
    templates:        # values for the variables of resource templates
      "notes://note/{note_id}": {note_id: "1"}

Without it the probe calls only tools that say they are read-only and need no argument.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolproof.load.yaml_source import read_yaml

SECTIONS = ("tools", "prompts", "templates")


class InputsError(ValueError):
    """An inputs file that cannot be used; the message names file, line and field."""


@dataclass(frozen=True)
class ProbeInputs:
    """Arguments by tool name, by prompt name, and variable values by URI template."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    prompts: dict[str, dict[str, Any]] = field(default_factory=dict)
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)


def read_inputs(path: Path) -> ProbeInputs:
    """The inputs in `path`. Raises InputsError naming file, line and field."""
    read = read_yaml(path)
    if read.errors:
        raise InputsError(str(read.errors[0]))
    if len(read.documents) != 1:
        raise InputsError(f"{path}:1: expected one document with {', '.join(SECTIONS)}")
    (document,) = read.documents
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for key, value in document.data.items():
        if key not in SECTIONS:
            raise InputsError(str(document.error((key,), f"unknown section: use {', '.join(SECTIONS)}")))
        if not isinstance(value, dict):
            raise InputsError(str(document.error((key,), "expected a mapping of names to arguments")))
        for name, arguments in value.items():
            if not isinstance(arguments, dict):
                raise InputsError(str(document.error((key, name), "expected a mapping of arguments")))
        found[key] = value
    return ProbeInputs(**found)
