"""The findings as a SARIF 2.1.0 log that GitHub code scanning accepts (pure): every rule with its help
text and level, every finding with a logical location (server/tool/field) and a physical one (the tool's
entry in the lock file when there is one, else a path naming the server), and a stable fingerprint."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolproof.probe.lint_rules.findings import Severity
from toolproof.probe.scan.findings import SERVER, Rule, ScanFinding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SECURITY_SEVERITY = {Severity.ERROR: "8.0", Severity.WARNING: "5.0"}


def sarif_log(
    findings: Sequence[ScanFinding],
    rules: Sequence[Rule],
    *,
    version: str,
    artifact: str | None,
    lines: Mapping[tuple[str, str], int] | None = None,
) -> dict[str, Any]:
    """The SARIF log of one scan; `artifact` is the file each finding points at (None: one per server), and
    `lines` the line of each (server, tool) in it (else the server's line, else 1)."""
    index = {rule.id: position for position, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolproof",
                        "semanticVersion": version,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "results": [
                    _result(finding, index[finding.rule], artifact, _line(finding, lines or {}))
                    for finding in findings
                ],
            }
        ],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.name.replace("-", " ")},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": ["security"], "security-severity": _SECURITY_SEVERITY[rule.severity]},
    }


def _line(finding: ScanFinding, lines: Mapping[tuple[str, str], int]) -> int:
    return lines.get((finding.server, finding.tool)) or lines.get((finding.server, SERVER)) or 1


def _result(finding: ScanFinding, rule_index: int, artifact: str | None, line: int) -> dict[str, Any]:
    text = f"{finding.location}: {finding.message}" + (f": {finding.span}" if finding.span else "")
    uri = artifact or f"mcp-servers/{_slug(finding.server)}"
    key = "\0".join((finding.rule, finding.server, finding.tool, finding.field, finding.message))
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.severity.value,
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}},
                "logicalLocations": [
                    {"fullyQualifiedName": finding.location, "name": finding.field, "kind": "member"}
                ],
            }
        ],
        "partialFingerprints": {"toolproofFinding/v1": hashlib.sha256(key.encode()).hexdigest()},
    }


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "server"
