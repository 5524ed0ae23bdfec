"""Opening inputs: paths, '-' for stdin, and .gz/.bz2/.xz/.zst streams (by suffix or magic bytes).

Progress counts the bytes read from the file itself, so compressed input shows progress in
compressed bytes against the file's size.

A stream that breaks while it is read (corrupt or truncated compressed data, a read error)
raises InputError saying where: the offset in the decompressed stream (the offsets games are
located by) up to which every byte was handed out, and about how far into the file. The bytes
before the break are handed out first, so the games before it are still read.
"""
from __future__ import annotations

import bz2
import io
import lzma
import os
import sys
import zlib
from typing import BinaryIO, Optional

from pgntools.errors import InputError
from pgntools.storage import is_url, url_filesystem

MAGIC = [
    (b"\x1f\x8b", "gz"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zst"),
]
SUFFIXES = {".gz": "gz", ".gzip": "gz", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz", ".zst": "zst", ".zstd": "zst"}
# What reading a decompressing stream raises on corrupt or truncated data (lzma's error is not
# an OSError, unlike gzip's and bz2's); Input's stream turns these into InputError.
STREAM_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)
# Decompressed bytes asked for at a time (see StreamReader).
PIECE = 1 << 16


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
    stream reader, reports a stream that ends inside a frame as truncated (EOFError, as gzip,
    bz2 and lzma do) and corrupt data as OSError."""

    def __init__(self, raw):
        import zstandard

        self.zstd = zstandard
        self.raw = raw
        self.frame = zstandard.ZstdDecompressor().decompressobj()
        self.fed = False  # the current frame has received input
        self.pending = memoryview(b"")

    def readable(self):
        return True

    def readinto(self, b):
        while not self.pending:
            chunk = self.raw.read(1 << 14)  # small: a corrupt frame loses little decoded output
            if not chunk:
                if self.fed and not self.frame.eof:
                    raise EOFError("compressed file ended inside a zstd frame")
                return 0
            self.pending = memoryview(self._decompress(chunk))
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]  # a view: no copy of the rest
        return n

    def _decompress(self, data: bytes) -> bytes:
        out = []
        while data:
            try:
                out.append(self.frame.decompress(data))
            except self.zstd.ZstdError as exc:
                raise OSError(f"corrupt zstd data: {exc}") from None
            self.fed = True
            data = b""
            if self.frame.eof:  # the rest belongs to the next frame
                data = self.frame.unused_data
                self.frame = self.zstd.ZstdDecompressor().decompressobj()
                self.fed = False
        return b"".join(out)


class StreamReader(io.RawIOBase):
    """An input's decompressed (or plain) bytes, counted. A read that breaks (corrupt or truncated
    data) hands out the bytes before the break, and the next read raises an InputError that
    locates it.

    Compressed input is decompressed in pieces of a fixed size, whatever the callers ask for, each
    piece with one call of the decompressor (read1): a call that fails drops what it decoded, so
    one decoding step per call loses nothing before the damage, and fixed pieces make the break
    fall at the same byte for every reader (the single-process run and the parent of a parallel
    one)."""

    def __init__(self, stream, inp: "Input"):
        self.stream, self.inp = stream, inp
        self.decoded = 0  # bytes read from the stream (all are handed out before an error is raised)
        self.error: Optional[InputError] = None
        self.piece = memoryview(bytearray(PIECE)) if inp.compression else None
        self.start = self.end = 0  # what is left of the last piece
        # gzip, bz2, lzma: read1 is one decoding step (ZstdReader's readinto is one already)
        self.read1 = getattr(stream, "read1", None) if inp.compression else None

    def readable(self):
        return True

    def readinto(self, b):
        view = memoryview(b).cast("B")
        if self.piece is None:  # plain input: straight through
            n = self._read(view)
        else:
            n = 0
            while n < len(view) and (self.start < self.end or self._next_piece()):
                k = min(len(view) - n, self.end - self.start)
                view[n:n + k] = self.piece[self.start:self.start + k]
                n, self.start = n + k, self.start + k
        if not n and self.error is not None:
            raise self.error
        return n

    def _next_piece(self) -> bool:
        self.start, self.end = 0, self._read(self.piece)
        return self.end > 0

    def _read(self, view) -> int:
        """One read from the stream; 0 at its end or after it broke (kept in self.error)."""
        if self.error is not None:
            return 0
        try:
            if self.read1 is not None:
                data = self.read1(len(view))
                n = len(data)
                view[:n] = data
            else:
                n = self.stream.readinto(view) or 0
        except STREAM_ERRORS as exc:
            self.error = self.inp.stream_error(exc, self.decoded)
            self.error.__cause__ = exc
            return 0
        self.decoded += n
        return n


class Input:
    """One opened input: ``stream`` (binary, decompressed), ``name``, ``size`` (bytes on disk or
    None) and ``bytes_read()`` (bytes consumed from the file, compressed ones for compressed input)."""

    def __init__(self, source):
        self.name = "<stdin>" if source in ("-", None) else os.fspath(source)
        self._owned = []
        if source in ("-", None):
            raw = sys.stdin.buffer
            self.size = None
        elif is_url(source):
            raw, self.size = _open_url(source)
            self._owned.append(raw)
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
        self.stream = StreamReader(self._decompressor(buffered), self)

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
            import gzip  # here: the only compression module not loaded anyway (tempfile loads bz2 and lzma)

            return gzip.GzipFile(fileobj=buffered, mode="rb")
        if self.compression == "bz2":
            return bz2.BZ2File(buffered)
        if self.compression == "xz":
            return lzma.LZMAFile(buffered)
        if self.compression == "zst":
            return ZstdReader(buffered)
        return buffered

    def stream_error(self, exc: BaseException, offset: int) -> InputError:
        """An InputError for a stream that broke after ``offset`` decompressed bytes."""
        detail = str(exc) or type(exc).__name__
        if self.compression is None:
            return InputError(f"{self.name}: read error after byte {offset}: {detail}")
        kind = {"gz": "gzip", "zst": "zstd"}.get(self.compression, self.compression)
        if isinstance(exc, EOFError):
            what = f"truncated {kind} stream: it ends inside compressed data"
        else:
            what = f"corrupt {kind} stream ({detail})"
        return InputError(f"{self.name}: {what} at decompressed byte {offset} (compressed byte "
                          f"~{self.bytes_read()}); the games before it were read")

    def bytes_read(self) -> int:
        return self.counter.count

    def close(self):
        for f in self._owned:
            f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_url(url: str):
    """An fsspec URL opened for reading, and its size (None when the filesystem does not say)."""
    fs, path = url_filesystem(url, InputError)
    try:
        raw = fs.open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{url}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{url}: is a directory, not a PGN file") from None
    except OSError as exc:
        raise InputError(f"{url}: cannot open: {exc.strerror or exc}") from None
    return raw, getattr(raw, "size", None)


def check_inputs(sources) -> None:
    """Fails early, before any work, on inputs that cannot be read."""
    for source in sources:
        if source == "-":
            continue
        if is_url(source):
            fs, path = url_filesystem(source, InputError)
            if not fs.exists(path):
                raise InputError(f"{source}: no such file")
            if fs.isdir(path):
                raise InputError(f"{source}: is a directory, not a PGN file")
            continue
        if os.path.isdir(source):
            raise InputError(f"{source}: is a directory, not a PGN file")
        if not os.path.exists(source):
            raise InputError(f"{source}: no such file")
        if not os.access(source, os.R_OK):
            raise InputError(f"{source}: permission denied")
