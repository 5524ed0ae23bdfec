"""The seam finder in C (_c/seams.c) against its definition in Python (the regular expression the
chunker used before), and the read-ahead thread that decompresses a parallel run's input."""
from __future__ import annotations

import gzip
import io
import re
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from pgntools import _core
from pgntools.errors import InputError
from pgntools.inputs.read_ahead import ReadAhead
from pgntools.inputs.streams import Input

_BLANK_THEN_TAG = re.compile(rb"\n[ \t]*\r?\n\[")


def reference_seam(buf: bytes, pos: int) -> int:
    """The definition: a '[' that starts a line after a blank line, where the last non-blank line
    before it (within buf) starts with neither '[' nor '%'."""
    while True:
        m = _BLANK_THEN_TAG.search(buf, pos)
        if m is None:
            return -1
        seam = m.end() - 1
        end = m.start()
        while end > 0:
            begin = buf.rfind(b"\n", 0, end) + 1
            text = buf[begin:end].strip(b" \t\r\n\xef\xbb\xbf")
            if text:
                if not text.startswith((b"[", b"%")):
                    return seam
                break
            if begin == 0:
                break
            end = begin - 1
        pos = seam + 1


PIECES = [b"\n", b"\r\n", b"\r", b" ", b"\t", b"[", b'[Event "x"]', b"%", b"1-0", b"e4", b"{c}", b"\xef\xbb\xbf", b"*"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.integers(0, 60))
def test_find_seam_is_its_definition(parts, pos):
    buf = b"".join(parts)
    assert _core.find_seam(buf, pos) == reference_seam(buf, pos)


def test_every_seam_of_a_real_stream(tmp_path):
    game = b'[Event "a"]\n[Site "b"]\n\n1. e4 { [%clk 0:01:00] } e5 1-0\n\n'
    buf = (game + b'% escape\n\n' + game + b'[Event "c"]\n\n\n[Site "d"]\n\n*\n\n') * 50
    found, pos = [], 0
    while (seam := _core.find_seam(buf, pos)) >= 0:
        found.append(seam)
        pos = seam + 1
    expected, pos = [], 0
    while (seam := reference_seam(buf, pos)) >= 0:
        expected.append(seam)
        pos = seam + 1
    assert found == expected and len(found) == 99  # (two a repetition: none after the escape line, nor inside a tag section)


def test_read_ahead_hands_out_every_byte_in_order_then_the_error(tmp_path):
    data = b"".join(b"%08d\n" % i for i in range(300_000))  # 2.7 MB: several blocks
    path = tmp_path / "x.pgn.gz"
    path.write_bytes(gzip.compress(data)[:-30])  # truncated: the bytes before the break, then the error
    with Input(str(path)) as inp:
        stream = ReadAhead(inp.stream, block=1 << 16, depth=2)
        got, error = bytearray(), None
        buf = bytearray(10_000)
        try:
            while n := stream.readinto(buf):
                got += buf[:n]
        except InputError as exc:
            error = exc
        stream.close()
    assert error is not None and "truncated gzip" in str(error)
    assert len(got) > 2_000_000 and data.startswith(bytes(got))


def test_read_ahead_is_bounded_and_stops_when_closed():
    reads = []

    class Endless(io.RawIOBase):
        def readinto(self, b):
            reads.append(len(b))
            b[:] = b"x" * len(b)
            return len(b)

    stream = ReadAhead(Endless(), block=1000, depth=3)
    assert stream.read(10) == b"x" * 10
    threading.Event().wait(0.2)
    assert len(reads) <= 3 + 2  # the blocks queued, the one handed out, the one waiting for room
    stream.close()
    assert not stream.thread.is_alive()
