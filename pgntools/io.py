"""Opening inputs: paths, '-' for stdin, and .gz/.bz2/.xz/.zst streams (by suffix or magic bytes).

Progress counts the bytes read from the file itself, so compressed input shows progress in
compressed bytes against the file's size.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from typing import BinaryIO, Optional

from pgntools.errors import InputError

MAGIC = [
    (b"\x1f\x8b", "gz"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zst"),
]
SUFFIXES = {".gz": "gz", ".gzip": "gz", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz", ".zst": "zst", ".zstd": "zst"}


class CountingReader(io.RawIOBase):
    """A raw stream that counts the bytes read through it."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.count = 0

    def readable(self):
        return True

    def readinto(self, b):
        n = self.raw.readinto(b)
        self.count += n or 0
        return n


class ZstdReader(io.RawIOBase):
    """Decompresses concatenated zstd frames (as the Lichess dumps are) and, unlike the library's
    stream reader, reports a stream that ends inside a frame as truncated."""

    def __init__(self, raw, name: str):
        import zstandard

        self.zstd = zstandard
        self.raw, self.name = raw, name
        self.frame = zstandard.ZstdDecompressor().decompressobj()
        self.fed = False  # the current frame has received input
        self.pending = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self.pending:
            chunk = self.raw.read(1 << 16)
            if not chunk:
                if self.fed and not self.frame.eof:
                    raise InputError(f"{self.name}: truncated zstd stream (it ends inside a frame)")
                return 0
            self.pending = self._decompress(chunk)
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def _decompress(self, data: bytes) -> bytes:
        out = []
        while data:
            try:
                out.append(self.frame.decompress(data))
            except self.zstd.ZstdError as exc:
                raise InputError(f"{self.name}: corrupt zstd stream: {exc}") from None
            self.fed = True
            data = b""
            if self.frame.eof:  # the rest belongs to the next frame
                data = self.frame.unused_data
                self.frame = self.zstd.ZstdDecompressor().decompressobj()
                self.fed = False
        return b"".join(out)


class Input:
    """One opened input: ``stream`` (binary, decompressed), ``name``, ``size`` (bytes on disk or
    None) and ``bytes_read()`` (bytes consumed from the file, compressed ones for compressed input)."""

    def __init__(self, source):
        self.name = "<stdin>" if source in ("-", None) else os.fspath(source)
        self._owned = []
        if source in ("-", None):
            raw = sys.stdin.buffer
            self.size = None
        else:
            try:
                raw = open(source, "rb")
            except IsADirectoryError:
                raise InputError(f"{self.name}: is a directory, not a PGN file") from None
            except OSError as exc:
                raise InputError(f"{self.name}: cannot open: {exc.strerror}") from None
            self._owned.append(raw)
            self.size = os.fstat(raw.fileno()).st_size
        self.counter = CountingReader(raw)
        buffered = io.BufferedReader(self.counter, buffer_size=1 << 16)
        self.compression = self._detect(buffered)
        self.stream = self._decompressor(buffered)

    def _detect(self, buffered) -> Optional[str]:
        head = buffered.peek(8)[:8]
        for magic, kind in MAGIC:
            if head.startswith(magic):
                return kind
        suffix = os.path.splitext(self.name)[1].lower()
        if suffix in SUFFIXES and head:
            raise InputError(f"{self.name}: named {suffix} but its content is not {SUFFIXES[suffix]}-compressed")
        return None

    def _decompressor(self, buffered):
        if self.compression == "gz":
            return gzip.GzipFile(fileobj=buffered, mode="rb")
        if self.compression == "bz2":
            return bz2.BZ2File(buffered)
        if self.compression == "xz":
            return lzma.LZMAFile(buffered)
        if self.compression == "zst":
            return io.BufferedReader(ZstdReader(buffered, self.name), buffer_size=1 << 20)
        return buffered

    def bytes_read(self) -> int:
        return self.counter.count

    def close(self):
        for f in self._owned:
            f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def check_inputs(sources) -> None:
    """Fails early, before any work, on inputs that cannot be read."""
    for source in sources:
        if source == "-":
            continue
        if os.path.isdir(source):
            raise InputError(f"{source}: is a directory, not a PGN file")
        if not os.path.exists(source):
            raise InputError(f"{source}: no such file")
        if not os.access(source, os.R_OK):
            raise InputError(f"{source}: permission denied")
