"""Output written atomically (a temporary file renamed into place) goes *into* a device or a pipe that is already
there: renaming over ``/dev/null`` would replace it with a regular file for every program on the machine (a run as
root did exactly that with ``--csv /dev/null``)."""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from linguagym.atomic import atomic_open, atomic_write_text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="named pipes are a POSIX thing")


def _read_pipe(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as pipe:
            into.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def test_a_named_pipe_is_written_into_and_stays_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "out.csv"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = _read_pipe(pipe, got)
    atomic_write_text(pipe, "a,b\n1,2\n")
    reader.join(timeout=10)
    assert got == [b"a,b\n1,2\n"]
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary file left beside it


def test_binary_output_into_a_pipe_and_a_regular_file_is_still_replaced_whole(tmp_path: Path) -> None:
    pipe = tmp_path / "out.bin"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = _read_pipe(pipe, got)
    with atomic_open(pipe, "wb") as handle:
        handle.write(b"\x00\x01")
    reader.join(timeout=10)
    assert got == [b"\x00\x01"] and stat.S_ISFIFO(pipe.stat().st_mode)
    regular = tmp_path / "plain.txt"
    regular.write_text("old")
    inode = regular.stat().st_ino
    atomic_write_text(regular, "new")
    assert regular.read_text() == "new" and regular.stat().st_ino != inode  # renamed into place, as before
