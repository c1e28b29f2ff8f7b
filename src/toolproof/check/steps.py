"""The view every tool-call check reads: the calls of one scope (a turn, the whole conversation, or the calls
inside a node), built once per scope with the calls indexed by name, so a check costs time in proportion to
what it lists, not to the length of the run; and the wording its failures share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from toolproof.model.transcript import Node, ToolCall

MAX_SHOWN = 30
SKIPPED = "skipped"  # the status of a workflow node that did not run (n8n)


@dataclass(frozen=True)
class Invocation:
    """A tool call or an executed node, seen the same way by `CallCheck`."""

    name: str
    arguments: Any
    is_error: bool
    index: int  # position among the steps of its level and scope
    node: Node | None = None


@dataclass
class Steps:
    """The steps of one level and scope, in order, indexed by name; `nodes` says they are workflow nodes
    (which run), not tool calls (which are called); `skipped` names the nodes the workflow skipped (which did
    not run, so are no steps)."""

    steps: Sequence[Invocation]
    nodes: bool = False
    skipped: tuple[str, ...] = ()
    names: tuple[str, ...] = field(init=False)
    where: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        self.names = tuple(step.name for step in self.steps)
        self.where = {}
        for index, name in enumerate(self.names):
            self.where.setdefault(name, []).append(index)

    @classmethod
    def of_calls(cls, calls: Iterable[ToolCall]) -> Steps:
        return cls(
            [Invocation(call.tool, call.arguments, call.is_error, index) for index, call in enumerate(calls)]
        )

    @classmethod
    def of_nodes(cls, nodes: Iterable[Node]) -> Steps:
        """The nodes that ran (a node with status `skipped`, as n8n reports one, did not)."""
        listed = list(nodes)
        ran = [node for node in listed if node.status != SKIPPED]
        return cls(
            [
                Invocation(
                    node.name, node.arguments, node.status == "error" or node.error is not None, index, node
                )
                for index, node in enumerate(ran)
            ],
            nodes=True,
            skipped=tuple(node.name for node in listed if node.status == SKIPPED),
        )

    @cached_property
    def counts(self) -> Counter[str]:
        return Counter(self.names)

    def called(self) -> list[str]:
        """The distinct names, in the order of their first call."""
        return list(self.where)

    def seen(self, names: Sequence[str] | None = None) -> str:
        """What ran (`names`, else the distinct names), for messages: `called: a, b`, or for nodes
        `nodes run: a, b` and `skipped: c` when some were skipped."""
        ran = f"{'nodes run' if self.nodes else 'called'}: {shown(self.called() if names is None else names)}"
        return f"{ran}; skipped: {shown(self.skipped)}" if self.skipped else ran

    def ran(self, count: int) -> str:
        """`was called 3 times`, or for nodes `ran 3 times`."""
        return f"{'ran' if self.nodes else 'was called'} {times(count)}"

    @property
    def unit(self) -> str:
        """What one step is, for messages: `call` or `node`."""
        return "node" if self.nodes else "call"


@dataclass
class CallScope:
    """What a call check looks at: the tool calls and the nodes of its scope."""

    calls: Steps
    nodes: Steps
    has_nodes: bool  # the run has workflow nodes at all (in any scope)


def shown(names: Sequence[str]) -> str:
    """Names joined with `, `, cut after MAX_SHOWN with a count of the rest; `none` when empty."""
    if not names:
        return "none"
    more = f", … (+{len(names) - MAX_SHOWN} more)" if len(names) > MAX_SHOWN else ""
    return ", ".join(names[:MAX_SHOWN]) + more


def arrow(names: Sequence[str]) -> str:
    if not names:
        return "(no calls)"
    more = f" -> … (+{len(names) - MAX_SHOWN} more)" if len(names) > MAX_SHOWN else ""
    return " -> ".join(names[:MAX_SHOWN]) + more


def indexes_shown(indexes: Sequence[int]) -> str:
    return shown([str(index) for index in indexes])


def times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
