"""The sources a Python caller has, as the raw binary streams an Input reads: a path, '-' or URL
(opened by Input itself), PGN ``bytes``/``bytearray``/``memoryview``, a binary or text file object
(``io.BytesIO``, ``io.StringIO``, ``open(...)``, an HTTP response), an iterable of byte chunks, and
a Parquet file or Arrow table in the Lichess layout (pgntools.inputs.arrow_games). Compression is
found by magic bytes, whatever the kind.

A ``str`` is always a path or URL, never PGN text: a string that looks like PGN gets a TypeError
saying how to pass text. A list or tuple is a list of sources; any other iterable is the chunks
of one source.
"""
from __future__ import annotations

import io
import os
from typing import List

from pgntools.errors import InputError

KINDS = ("a path, os.PathLike or URL (str)", "'-' for stdin", "bytes, bytearray or memoryview holding PGN",
         "a binary or text file object (open(...), io.BytesIO, io.StringIO, an HTTP response)",
         "an iterable of byte chunks", "a pyarrow Table or RecordBatchReader with a movetext column",
         "a list of these")


def as_source_list(source) -> List:
    """``source`` as a list of single sources (a list or tuple is one already), each checked to
    be of a kind this module reads (a TypeError names the kinds accepted)."""
    sources = list(source) if isinstance(source, (list, tuple)) else [source]
    for one in sources:
        source_kind(one)
    return sources


def source_kind(source) -> str:
    """"path", "bytes", "file", "chunks" or "arrow"; a TypeError for anything else."""
    if isinstance(source, str):
        if _looks_like_pgn(source):
            raise TypeError("a str source is a path or URL, never PGN text, and this one looks like PGN "
                            f"({source[:40]!r}...): pass the text as bytes (text.encode()) or io.StringIO(text)")
        return "path"
    if isinstance(source, os.PathLike):
        return "path"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "bytes"
    if hasattr(source, "read"):
        return "file"
    if _is_arrow(source):
        return "arrow"
    if hasattr(source, "__iter__") and not isinstance(source, (dict, set, frozenset)):
        return "chunks"
    raise TypeError(f"cannot read games from a {type(source).__name__}: a source is " + "; ".join(KINDS))


def _looks_like_pgn(text: str) -> bool:
    head = text.lstrip("\ufeff \t\r\n")[:200]
    return "\n" in text or head.startswith("[") and '"' in head or head.startswith("1.")


def _is_arrow(source) -> bool:
    module = type(source).__module__ or ""
    return module.startswith("pyarrow") and hasattr(source, "schema")


def open_object(source, kind: str):
    """(raw binary stream, name, size) of a source that is not a path: what Input wraps."""
    if kind == "bytes":
        data = source if isinstance(source, bytes) else bytes(source)
        return io.BytesIO(data), "<bytes>", len(data)
    if kind == "file":
        return _open_file_object(source)
    return ChunkStream(iter(source)), "<chunks>", None


def _open_file_object(f):
    name = getattr(f, "name", None)
    name = name if isinstance(name, str) and name else f"<{type(f).__name__}>"
    if getattr(f, "closed", False):
        raise InputError(f"{name}: the file object is closed")
    text = isinstance(f, io.TextIOBase)
    if not text:
        try:
            text = isinstance(f.read(0), str)
        except (OSError, ValueError) as exc:
            raise InputError(f"{name}: cannot read the file object: {exc}") from None
    _check_not_exhausted(f, name)
    return (TextEncoder(f) if text else FileStream(f)), name, None


def _check_not_exhausted(f, name: str) -> None:
    """A seekable file object already read to its end: an error (it would give no game), not
    an empty input."""
    try:
        if not f.seekable():
            return
        here = f.tell()
        end = f.seek(0, io.SEEK_END)
        f.seek(here)
    except (AttributeError, OSError, ValueError):
        return
    if here and here >= end:
        raise InputError(f"{name}: the file object is already read to its end (at byte {here}): "
                         "seek(0) or open it again")


class FileStream(io.RawIOBase):
    """A binary file object as a raw stream (readinto when it has one, else read)."""

    def __init__(self, f):
        self.f = f
        self._readinto = getattr(f, "readinto", None)

    def readable(self):
        return True

    def readinto(self, b):
        if self._readinto is not None:
            return self._readinto(b) or 0
        data = self.f.read(len(b))
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InputError(f"the file object gave a {type(data).__name__}, not bytes")
        b[:len(data)] = data
        return len(data)


class TextEncoder(io.RawIOBase):
    """A text file object's characters as UTF-8 bytes."""

    def __init__(self, f):
        self.f = f
        self.pending = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self.pending:
            text = self.f.read(max(len(b) // 4, 1))
            if not text:
                return 0
            self.pending = text.encode("utf-8", "surrogatepass")
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


class ChunkStream(io.RawIOBase):
    """An iterator of byte chunks as a raw stream."""

    def __init__(self, chunks):
        self.chunks = chunks
        self.pending = memoryview(b"")
        self.count = 0  # chunks taken (for the error naming a chunk that is not bytes)

    def readable(self):
        return True

    def readinto(self, b):
        """Fills ``b`` from as many chunks as it takes (small chunks would otherwise hide the
        magic bytes of a compressed stream from the one peek that looks for them)."""
        view, n = memoryview(b).cast("B"), 0
        while n < len(view):
            if not self.pending:
                chunk = next(self.chunks, None)
                if chunk is None:
                    break
                self.count += 1
                if not isinstance(chunk, (bytes, bytearray, memoryview)):
                    raise InputError(f"<chunks>: chunk {self.count} is a {type(chunk).__name__}, not bytes")
                self.pending = memoryview(chunk).cast("B")
            k = min(len(view) - n, len(self.pending))
            view[n:n + k] = self.pending[:k]
            self.pending = self.pending[k:]
            n += k
        return n
