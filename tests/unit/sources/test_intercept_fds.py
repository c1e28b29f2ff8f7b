"""The descriptor streams `toolproof intercept` reads its stdin and writes its stdout with (real pipes)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from toolproof.sources.intercept.fds import FdReader, FdWriter


def test_a_pipe_carries_more_than_its_buffer_to_a_slow_reader_and_gets_its_mode_back() -> None:
    data = bytes(range(256)) * 8192  # 2 MiB: far more than a pipe holds
    read_end, write_end = os.pipe()
    writer, reader = FdWriter(write_end), FdReader(read_end)
    assert not os.get_blocking(write_end)
    received = bytearray()
    restored: list[bool] = []

    async def main() -> None:
        async def drain() -> None:
            while chunk := await reader.receive():
                received.extend(chunk)
                await anyio.sleep(0)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(drain)
            await writer.send(data)
            writer.restore()
            restored.append(os.get_blocking(write_end))
            os.close(write_end)

    try:
        anyio.run(main)
    finally:
        os.close(read_end)
    assert bytes(received) == data
    assert restored == [True]


def test_writing_to_a_pipe_nobody_reads_raises_broken_pipe() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    writer = FdWriter(write_end)
    try:
        anyio.run(writer.send, b"x")
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("no BrokenPipeError")
    finally:
        writer.restore()
        assert os.get_blocking(write_end)
        os.close(write_end)


def test_regular_files_are_read_and_written_directly(tmp_path: Path) -> None:
    source, target = tmp_path / "in", tmp_path / "out"
    source.write_bytes(b"line one\nline two")
    with source.open("rb") as given, target.open("wb") as taken:
        reader, writer = FdReader(given.fileno()), FdWriter(taken.fileno())

        async def copy() -> None:
            while chunk := await reader.receive():
                await writer.send(chunk)

        anyio.run(copy)
        writer.restore()
    assert target.read_bytes() == b"line one\nline two"
