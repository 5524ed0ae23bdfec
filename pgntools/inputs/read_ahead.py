"""An input's stream read ahead on a thread of its own, so that decompressing it (zstandard, zlib,
bz2 and lzma release the GIL while they work) overlaps with cutting it into chunks on the main
thread: a parallel run's one compressed input then keeps more than one core busy.

At most ``depth`` blocks of ``block`` bytes are read ahead (back-pressure: memory stays bounded
whatever the input's size). What the stream raises (a corrupt or truncated compressed stream) is
raised by ``readinto`` after the bytes read before it were handed out, as the stream itself does.
"""
from __future__ import annotations

import io
import threading
from collections import deque

BLOCK = 1 << 20
DEPTH = 4


class ReadAhead(io.RawIOBase):
    """``stream``'s bytes, read on a daemon thread up to ``depth`` blocks ahead of the reader."""

    def __init__(self, stream, block: int = BLOCK, depth: int = DEPTH):
        self.stream, self.block, self.depth = stream, block, depth
        self.blocks: deque = deque()  # memoryviews of the bytes read, then at the end None or the exception the stream raised
        self.ready = threading.Condition()
        self.stopped = False
        self.current = memoryview(b"")
        self.thread = threading.Thread(target=self._read, name="pgntools-read-ahead", daemon=True)
        self.thread.start()

    def readable(self):
        return True

    def _read(self):
        end = None
        try:
            while True:
                buf = bytearray(self.block)
                n = self.stream.readinto(buf)
                if not n:
                    break
                block = memoryview(buf)[:n]  # (not resized: a stream's error may still hold a view of it)
                with self.ready:
                    while len(self.blocks) >= self.depth and not self.stopped:
                        self.ready.wait()
                    if self.stopped:
                        return
                    self.blocks.append(block)
                    self.ready.notify_all()
        except BaseException as exc:  # handed to the reader after the blocks before it
            end = exc
        with self.ready:
            self.blocks.append(end)
            self.ready.notify_all()

    def readinto(self, b):
        while not self.current:
            with self.ready:
                while not self.blocks:
                    self.ready.wait()
                item = self.blocks[0]
                if item is None:
                    return 0
                self.blocks.popleft()
                if isinstance(item, BaseException):
                    self.blocks.append(None)  # (raised once; then the end)
                    raise item  # (before any view of b exists: a traceback keeps none, b may be resized)
                self.ready.notify_all()
            self.current = item
        with memoryview(b) as whole, whole.cast("B") as view:
            n = min(len(view), len(self.current))
            view[:n] = self.current[:n]
        self.current = self.current[n:]
        return n

    def close(self):
        """Stops the thread (after the block it is reading); the stream itself is the caller's."""
        with self.ready:
            self.stopped = True
            self.blocks.clear()
            self.ready.notify_all()
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(timeout=5)  # (a read from a pipe may never end: the thread is a daemon)
        super().close()
