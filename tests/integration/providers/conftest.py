"""The local model server fixture (see tests/support/llm_wire.py)."""

from tests.support.llm_wire import llm_wire

__all__ = ["llm_wire"]
