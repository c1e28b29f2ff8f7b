"""Every key of the mcp-assert format loads onto the model, and the upstream examples load."""

from __future__ import annotations

from pathlib import Path

from tests.unit.load.conftest import DATA

from toolproof.load import load_file, load_suite
from toolproof.model.scenario import CallCheck, SequenceCheck, TextMatcher, ToolsCalled, ToolsNotCalled
from toolproof.model.server_case import (
    AssertBlock,
    Block,
    Case,
    CompletionArgument,
    CompletionBlock,
    CompletionRef,
    Expect,
    ListParams,
    LoggingBlock,
    LoggingExpect,
    NotificationExpect,
    NotificationsBlock,
    PromptGet,
    PromptsBlock,
    ResourcesBlock,
    SamplingBlock,
    SetupStep,
    SourceRef,
    TraceEntry,
    TrajectoryBlock,
)
from toolproof.model.server_config import (
    ClientCapabilities,
    ElicitationMock,
    SamplingMock,
    ServerConfig,
    Transport,
)

EVERY_KEY = DATA / "every_key.yaml"


def _cases(path: Path) -> list[Case]:
    items = load_file(path)
    assert all(isinstance(item, Case) for item in items), items
    return [item for item in items if isinstance(item, Case)]


def test_every_server_setup_and_assert_key() -> None:
    case = _cases(EVERY_KEY)[0]
    assert case == Case(
        name="every server key",
        source=SourceRef(
            file=EVERY_KEY,
            line=2,
            column=1,
            document=0,
            expect_lines={  # where each expectation is written, for failures to point at
                "not_error": 38, "is_error": 39, "not_empty": 40, "equals": 41, "contains": 42,
                "contains_any": 43, "not_contains": 44, "matches_regex": 45, "json_path": 46,
                "min_results": 49, "max_results": 50, "net_delta": 51, "file_contains": 52,
                "file_not_contains": 54, "file_not_exists": 56, "file_unchanged": 57, "in_order": 58,
                "min_progress": 59,
            },
        ),
        server=ServerConfig(
            command="my-server",
            args=["--root", "{{fixture}}", "8080"],
            env={"TOKEN": "${TOKEN}", "RETRIES": "3"},
            cwd="/srv",
            transport=Transport.HTTP,
            url="http://localhost:9/mcp",
            headers={"Authorization": "Bearer ${TOKEN}"},
            docker="alpine:3",
            client_capabilities=ClientCapabilities(
                roots=["{{fixture}}", "/tmp"],
                sampling=SamplingMock(text="sampled", model="m1", stop_reason="maxTokens"),
                elicitation=ElicitationMock(action="accept", content={"answer": 42}),
            ),
        ),
        setup=[
            SetupStep(tool="create", args={"name": "a"}, capture={"id": "$.id"}),
            SetupStep(tool="touch"),
        ],
        block=AssertBlock(
            tool="read",
            args={"id": "{{id}}", "nested": {"list": [1, "two", None]}},
            capture_progress=True,
            expect=Expect(
                not_error=True,
                is_error=False,
                not_empty=True,
                equals="exact",
                contains=["a", "b"],
                contains_any=["c"],
                not_contains=["d"],
                matches_regex=["^a.*$"],
                json_path={"$.id": 7, "$.name": "seven"},
                min_results=1,
                max_results=9,
                net_delta=-1,
                file_contains={"{{fixture}}/out.txt": "hello"},
                file_not_contains={"{{fixture}}/out.txt": "bye"},
                file_not_exists=["{{fixture}}/gone.txt"],
                file_unchanged=["{{fixture}}/keep.txt"],
                in_order=["first", "second"],
                min_progress=2,
            ),
        ),
        timeout=90.0,
        skip=True,
        skip_unless_env="TOKEN",
    )
    assert isinstance(case.block, AssertBlock)
    toolproof_only = {
        "structured", "structured_schema", "task", "ttl_ms", "cache_scope", "error_code", "error_data"
    }
    assert set(case.block.expect.model_fields_set) == set(Expect.model_fields) - toolproof_only


def _unplaced(block: Block) -> Block:
    """A trajectory block with its checks' positions dropped (they are the file's lines)."""
    if not isinstance(block, TrajectoryBlock):
        return block
    checks = tuple(check.model_copy(update={"line": 0, "column": 0}) for check in block.checks)
    return block.model_copy(update={"checks": checks})


def test_every_other_block_key() -> None:
    blocks = [_unplaced(case.block) for case in _cases(EVERY_KEY)[1:]]
    assert blocks == [
        ResourcesBlock(
            list=ListParams(cursor="next-page"),
            read="test://static/1",
            subscribe="test://static/1",
            unsubscribe="test://static/1",
            expect_notification=True,
            expect=Expect(not_empty=True),
        ),
        PromptsBlock(
            list=ListParams(),
            get=PromptGet(name="review", arguments={"language": "go", "level": "2"}),
            expect=Expect(contains=["review"]),
        ),
        CompletionBlock(
            ref=CompletionRef(type="ref/resource", name="files", uri="file:///{path}"),
            argument=CompletionArgument(name="path", value="sr"),
            context={"root": "/srv"},
            expect=Expect(contains=["src"]),
        ),
        SamplingBlock(
            tool="ask", args={"q": "capital"}, mock_text="Paris", mock_model="gpt-mock",
            stop_reason="endTurn", expect=Expect(contains=["Paris"]),
        ),
        LoggingBlock(
            set_level="debug", tool="echo", args={"message": "hi"},
            expect=LoggingExpect(min_messages=1, contains_level=["debug"], contains_data=["hi"]),
        ),
        NotificationsBlock(
            tool="work", args={"steps": 3},
            expect=NotificationExpect(
                min_count=1, max_count=5, methods=["notifications/progress"],
                not_methods=["notifications/message"], contains_data=["step"], not_contains_data=["failed"],
            ),
        ),
        TrajectoryBlock(
            checks=(
                SequenceCheck(mode="ordered", sequences=(("search", "open"),), label="order"),
                ToolsCalled(tools=("search",), label="presence"),
                ToolsNotCalled(tools=("delete",), label="absence"),
                CallCheck(
                    name="search", arguments={"query": TextMatcher(value="cats")}, label="args_contain"
                ),
            ),
            trace=[TraceEntry(tool="search", args={"query": "cats"}), TraceEntry(tool="open")],
            audit_log="{{fixture}}/audit.jsonl",
        ),
    ]


def test_later_documents_are_named_after_the_file_with_their_ordinal() -> None:
    cases = _cases(EVERY_KEY)
    assert [case.name for case in cases[1:3]] == ["every_key.yaml [2]", "every_key.yaml [3]"]
    assert [case.source.document for case in cases] == list(range(8))
    assert cases[7].source == SourceRef(file=EVERY_KEY, line=126, column=1, document=7)


def test_multi_document_file_numbering_skips_empty_documents() -> None:
    path = DATA / "multi.yaml"
    assert [(case.name, case.source.line) for case in _cases(path)] == [
        ("multi.yaml", 1),
        ("named second", 6),
        ("multi.yaml [3]", 10),
    ]


def test_seed_003_examples() -> None:
    suite = load_suite([DATA / "seed003"])
    assert suite.errors == []
    by_name = {case.name: case for case in suite.cases}
    assert [case.name for case in suite.cases] == [
        "create then get",
        "style completion",
        "debug logs",
        "progress notifications",
        "read with progress",
        "code review prompt",
        "read_file returns file contents",
        "static resource",
        "capital via sampling",
        "rename flow",
    ]
    running = by_name["read_file returns file contents"]
    assert running.server == ServerConfig(
        command="npx", args=["@modelcontextprotocol/server-filesystem", "{{fixture}}"]
    )
    assert running.block == AssertBlock(
        tool="read_file",
        args={"path": "{{fixture}}/hello.txt"},
        expect=Expect(not_error=True, contains=["Hello, world!"]),
    )
    assert running.source.line == 2
    assert by_name["read with progress"].block == AssertBlock(
        tool="read_file", args={"path": "{{fixture}}/example.txt"}, capture_progress=True,
        expect=Expect(not_error=True, contains=["hello world"], min_progress=1),
    )
    capture = by_name["create then get"]
    assert capture.setup[0].capture == {"item_id": "$.id"}
    assert capture.setup[1].args == {"id": "{{item_id}}"}
    assert capture.server.env == {"API_KEY": "${API_KEY}", "DB_URL": "${DATABASE_URL:-sqlite:///tmp/test.db}"}
    assert capture.skip_unless_env == "API_KEY"
    assert by_name["code review prompt"].block == PromptsBlock(
        get=PromptGet(name="code_review", arguments={"language": "go"}), expect=Expect(contains=["review"])
    )
    assert by_name["static resource"].block == ResourcesBlock(
        read="test://static/resource", expect=Expect(not_empty=True)
    )
    assert by_name["style completion"].block == CompletionBlock(
        ref=CompletionRef(type="ref/prompt", name="complex_prompt"),
        argument=CompletionArgument(name="style", value=""),
        expect=Expect(contains=["formal"]),
    )
    assert by_name["capital via sampling"].block == SamplingBlock(
        tool="ask_llm", args={"question": "What is the capital of France?"},
        mock_text="The capital of France is Paris.", mock_model="mock-gpt",
        expect=Expect(not_error=True, contains=["Paris"]),
    )
    assert by_name["debug logs"].block == LoggingBlock(
        set_level="debug", tool="echo", args={"message": "test"},
        expect=LoggingExpect(min_messages=1, contains_level=["debug"], contains_data=["test"]),
    )
    assert by_name["progress notifications"].block == NotificationsBlock(
        tool="long_running_task", args={"input": "test data"},
        expect=NotificationExpect(
            min_count=3, methods=["notifications/progress"], contains_data=["processing"]
        ),
    )
    assert _unplaced(by_name["rename flow"].block) == TrajectoryBlock(
        checks=(
            SequenceCheck(mode="ordered", sequences=(("prepare_rename", "rename_symbol"),), label="order"),
            ToolsNotCalled(tools=("apply_edit",), label="absence"),
        ),
        trace=[
            TraceEntry(tool="prepare_rename", args={"file_path": "main.go", "line": 6, "column": 6}),
            TraceEntry(tool="rename_symbol", args={"file_path": "main.go", "new_name": "Entity"}),
        ],
    )
