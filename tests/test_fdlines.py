"""The terminal chat's line reader for a pipe or a file (``tic_cli.chatconsole.FdLines``)."""

from __future__ import annotations

import os

import pytest

from tic_cli.chatconsole import FdLines


def test_lines_from_a_pipe_are_read_without_holding_stdins_lock():
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, "hello\r\nwörld\nlast".encode())
        os.close(write_end)
        lines = FdLines(read_end)
        assert [lines(""), lines(""), lines("")] == ["hello", "wörld", "last"]
        with pytest.raises(EOFError):
            lines("")
    finally:
        os.close(read_end)
