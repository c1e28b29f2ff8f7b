"""`toolproof check --trace` on every trace format: one passing and one failing case per recorded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.agent.test_cli_check import toolproof_check

TRACES = Path(__file__).parent / "data" / "traces"

# trace file -> (case id or None, expectations that hold, expectations that do not)
FORMATS: dict[str, tuple[str | None, str, str]] = {
    "audit.jsonl": (None, "- sequence: [prepare_rename, rename_symbol]", "- not_called: apply_edit"),
    "mcplab_trace.jsonl": ("refund-order", "- called: process_refund", "- not_called: process_refund"),
    "mibo_canonical.json": (
        None,
        "- called: create_event\n- http_status: 200",
        "- reply: {contains: cancelled}",
    ),
    "mibo_custom.json": (
        None,
        "- sequence: [search_hotels, book_hotel]",
        "- sequence: [book_hotel, search_hotels]",
    ),
    "mibo_flowise.json": (
        None,
        "- called: get_weather\n- reply: {contains: 21°C}",
        "- not_called: get_weather",
    ),
    "mibo_n8n_execution.json": (
        None,
        "- node: {name: AI Agent, calls: [{called: {tool: Search Hotels, args: {city: Madrid}}}]}\n"
        "- tokens: {max_total: 1000}\n- http_status: 200",
        "- tokens: {max_total: 500}",
    ),
    "mibo_n8n_flat.json": (None, "- called: calculate_rsi", "- count: {tool: get_quote, exactly: 2}"),
    "mibo_n8n_nodes.json": (None, "- reply: {equals: Hi there!}", "- reply: {contains: bye}"),
    "native.json": ("refund", "- called: lookup_order", "- called: cancel_order"),
    "otel_events.json": (
        None,
        "- called: {tool: lookup_order, args: {order_id: ORD-9921}}\n- reply: {contains: shipped}\n"
        "- tokens: {max_total: 400}",
        "- tokens: {max_total: 300}",
    ),
    "otel_genai.json": (None, "- called: search_hotels", "- count: {tool: search_hotels, exactly: 2}"),
    "otel_inference_details.json": (
        None,
        "- called: {tool: book_table, args: {party: 2}}",
        "- called: {tool: book_table, args: {party: 3}}",
    ),
}


def test_every_trace_fixture_has_a_format_case() -> None:
    assert {path.name for path in TRACES.iterdir()} == set(FORMATS)


@pytest.mark.parametrize("trace", sorted(FORMATS))
def test_check_passes_and_fails_on_each_format(trace: str, tmp_path: Path) -> None:
    case_id, holds, breaks = FORMATS[trace]
    head = f"name: {trace}\n" + (f"id: {case_id}\n" if case_id else "")
    for expectations, status in ((holds, 0), (breaks, 1)):
        case = tmp_path / "case.yaml"
        case.write_text(
            f"{head}expect:\n" + "\n".join(f"  {line}" for line in expectations.splitlines()) + "\n"
        )
        out = tmp_path / "report.json"
        assert toolproof_check("--trace", TRACES / trace, case, "--json", out, "-q") == status, expectations
        results = json.loads(out.read_text())["results"]
        assert results and all(r["status"] in ("PASS", "FAIL") for r in results)
        assert any(r["status"] == ("PASS" if status == 0 else "FAIL") for r in results)
