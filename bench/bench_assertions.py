"""Benchmark: 10,000 checks of every kind over one recorded run of 10,000 tool calls (target: under 1 s).

Run with `python bench/bench_assertions.py`. Prints the time to evaluate the checks, and, apart, the time to
read the same run from an MCPLab trace.jsonl file.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from toolproof.check.scenario import evaluate
from toolproof.core.expressions import Clock
from toolproof.model.envelope import SourceRef
from toolproof.model.scenario import (
    AgentCase,
    Assertion,
    CallCheck,
    ContainsMatcher,
    ExactMatcher,
    FieldCheck,
    JsonPathCheck,
    RegexCheck,
    RegexMatcher,
    SequenceCheck,
    TextCheck,
    TokenLimitCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)
from toolproof.model.transcript import ToolCall, Transcript, Turn, Usage
from toolproof.sources.traces import read_traces

CALLS = 10_000
CHECKS = 10_000
TOOLS = [f"tool_{index:03d}" for index in range(200)]
TARGET_S = 1.0


def observed(rng: random.Random) -> Transcript:
    calls = tuple(
        ToolCall(
            tool=rng.choice(TOOLS),
            arguments={"id": index, "query": f"item-{index % 97}", "tags": ["a", "b"]},
            result={"ok": True},
            position=index,
        )
        for index in range(CALLS)
    )
    body = {"status": "ok", "data": {"items": [{"id": index} for index in range(50)]}}
    turn = Turn(
        user="go",
        reply="Done: 10000 calls, status ok.",
        calls=calls,
        body=body,
        usage=Usage(input_tokens=5000, output_tokens=700),
    )
    return Transcript(turns=(turn,))


def checks(rng: random.Random, run: Transcript) -> list[Assertion]:
    names = [call.tool for call in run.turns[0].calls]
    makers = [
        lambda: ToolsCalled(tools=(rng.choice(TOOLS),)),
        lambda: ToolsNotCalled(tools=(rng.choice(TOOLS), "never_called")),
        lambda: CallCheck(name=rng.choice(TOOLS), arguments={"query": ContainsMatcher(value="item-")}),
        lambda: CallCheck(
            name=rng.choice(TOOLS),
            arguments={
                "id": ExactMatcher(value=rng.randrange(CALLS)),
                "tags": ExactMatcher(value=["b", "a"]),
            },
        ),
        lambda: CallCheck(name=rng.choice(TOOLS), arguments={"query": RegexMatcher(pattern=r"^item-\d+$")}),
        lambda: CallCheck(name=rng.choice(TOOLS), condition="count", min_count=10, max_count=90),
        lambda: CallCheck(name=names[(start := rng.randrange(CALLS))], index=start),
        lambda: SequenceCheck(sequences=(tuple(names[i] for i in sorted(rng.sample(range(CALLS), 5))),)),
        lambda: SequenceCheck(
            mode="adjacent", sequences=(tuple(names[(s := rng.randrange(CALLS - 3)) : s + 3]),)
        ),
        lambda: SequenceCheck(mode="exact", sequences=(tuple(rng.sample(TOOLS, 4)),)),
        lambda: SequenceCheck(mode="superset", sequences=(tuple(rng.sample(TOOLS, 6)),)),
        lambda: SequenceCheck(sequences=(("never_called", "tool_000"),), forbidden=True),
        lambda: ToolInputCheck(tool=rng.choice(TOOLS), op="contains", value="ITEM-1"),
        lambda: TextCheck(op="contains", values=("done", "status ok")),
        lambda: RegexCheck(pattern=r"\d+ calls", flavor=rng.choice(["re2", "js", "python"])),
        lambda: JsonPathCheck(path="$.data.items[?@.id > 40].id", mode="equals", equals=45),
        lambda: FieldCheck(field="data.items.3.id", expected=ExactMatcher(value=3)),
        lambda: TokenLimitCheck(max_total=10_000),
    ]
    return [makers[index % len(makers)]() for index in range(CHECKS)]


def main() -> int:
    rng = random.Random(7)
    run = observed(rng)
    case = AgentCase(
        name="bench",
        source=SourceRef(file=Path("bench.yaml")),
        dialect="toolproof",
        assertions=tuple(checks(rng, run)),
    )
    zone = ZoneInfo("UTC")
    clock = Clock(datetime(2026, 3, 10, tzinfo=zone), zone)
    evaluate(
        case.model_copy(update={"assertions": case.assertions[:50]}), run, clock=clock
    )  # warm the caches
    started = time.perf_counter()
    evaluation = evaluate(case, run, clock=clock)
    results = evaluation.assertion_results()
    elapsed = time.perf_counter() - started
    passed = sum(result.passed for result in results)
    print(
        f"{CHECKS:,} checks over a run of {CALLS:,} tool calls: {elapsed:.3f} s "
        f"({elapsed / CHECKS * 1e6:.0f} µs per check; {passed:,} passed, {CHECKS - passed:,} did not)"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        path.write_text(json.dumps(_mcplab_record(run)) + "\n")
        read_started = time.perf_counter()
        (read,) = read_traces(path)
        read_elapsed = time.perf_counter() - read_started
    print(
        f"reading the same run from an MCPLab trace.jsonl: {read_elapsed:.3f} s "
        f"({sum(1 for _ in read.turns[0].all_calls()):,} calls)"
    )
    verdict = "within" if elapsed < TARGET_S else "OVER"
    print(f"target {TARGET_S:g} s: {verdict}")
    return 0 if elapsed < TARGET_S else 1


def _mcplab_record(run: Transcript) -> dict[str, object]:
    calls = run.turns[0].calls
    return {
        "type": "scenario_run",
        "trace_version": 3,
        "scenario_id": "bench",
        "run_index": 0,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{call.position}",
                        "name": call.tool,
                        "input": call.arguments,
                    }
                    for call in calls
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"t{call.position}",
                        "is_error": False,
                        "duration_ms": 1,
                        "content": [{"type": "text", "text": "ok"}],
                    }
                    for call in calls
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": run.turns[0].reply}]},
        ],
    }


if __name__ == "__main__":
    sys.exit(main())
