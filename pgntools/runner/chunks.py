"""Game-aligned chunks of the inputs, for parallel runs (pgntools.runner.parallel, pgntools.dask).

A chunk is bytes [offset, offset + size) of one input's (decompressed) stream, cut where a game
starts a line; the chunks of an input tile it exactly. A worker reads b"\\n" + chunk with the
stream offset (and, when known, line and game number) of the chunk's first byte, so its scanner
starts in the state the in-process scanner has at that byte, and offsets, lines and game ids are
those of the whole input. Chunks are cut in one of two ways:

- ``iter_chunks`` (numbered chunks): the parent runs the compiled scanner over the input in
  scan-only mode and cuts before a game it reports. Seams are exact by construction (the scanner
  that decides where games begin cuts the chunks, even when a comment holds a line that looks
  like a tag), and each chunk knows its first game's number and line. Needed whenever an output
  names games (report lines, EPD ids, CSV/JSONL/Parquet game columns, export game_id); costs a
  scan pass (~1/3 of a validation) in the parent.
- ``iter_seam_chunks`` (unnumbered chunks): the parent only searches bytes for a likely seam,
  a line starting with '[' after a blank line that follows movetext, and the worker checks it:
  after replaying its chunk it scans from its last game's start into the next chunk's first
  bytes (``lookahead``) and confirms that the next game starts exactly at the seam (``seam_ok``).
  A seam that fails the check is dropped: the parent merges the two chunks and runs them again.
  For runs whose outputs do not name games (validate without --report, to-fen --format fen).
"""
from __future__ import annotations

import io
import os
from bisect import bisect_left
from typing import Iterator, NamedTuple, Optional, Sequence

from pgntools import _core
from pgntools.errors import InputError
from pgntools.inputs.read_ahead import ReadAhead
from pgntools.inputs.streams import Input, open_inputs
from pgntools.options import MAX_GAME_SIZE, ReaderOptions
from pgntools.reader import GameBatch

SCAN_BATCH_GAMES = 8192
LOOKAHEAD = 64 << 10      # bytes past a seam a worker scans to check it
READ_BLOCK = 1 << 20


class Chunk(NamedTuple):
    """Whole games: bytes [offset, offset + size) of an input's (decompressed) stream."""

    index: int              # 0-based over the run, in input order
    source: str             # the input's name as the outputs give it ('<stdin>' for stdin)
    offset: int             # stream offset of the chunk's first byte
    line: Optional[int]     # line number of that byte (None: unnumbered chunk)
    first_game: Optional[int]  # game id of its first game (None: unnumbered chunk)
    n_games: Optional[int]  # games the scan found in it (None: unnumbered chunk)
    size: int
    data: Optional[bytes] = None   # (data and lookahead are left out of the repr)
    path: Optional[str] = None     # a plain file a worker may read the bytes from itself
    file_size: Optional[int] = None
    last: bool = True       # the chunk ends its input (an unnumbered chunk's end is checked otherwise)
    lookahead: Optional[bytes] = None  # the next bytes (unnumbered, not path)
    cut: bool = False       # the input broke (corrupt compression) right after the chunk's bytes:
    #                         the game the break cut off is not read, as in a single-process run

    @property
    def numbered(self) -> bool:
        return self.first_game is not None

    def __repr__(self):
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self)
                          if name not in ("data", "lookahead"))
        return f"Chunk({shown})"

    def without_data(self) -> "Chunk":
        return self._replace(data=None, lookahead=None)

    def merged(self, following: "Chunk") -> "Chunk":
        """This chunk and the next one of the same input as one chunk."""
        data = self.data[:self.size] + following.data if self.data is not None else None
        return self._replace(size=self.size + following.size, data=data, last=following.last,
                             lookahead=following.lookahead, cut=following.cut)

    def read(self) -> bytes:
        """The chunk's bytes (with the lookahead for an unnumbered chunk's check)."""
        if self.data is not None:  # (may hold the next bytes too: see _stream_seam_chunks)
            return self.data + self.lookahead if self.lookahead else self.data
        extra = 0 if self.last or self.numbered else LOOKAHEAD
        with self._open() as f:
            try:
                data = f.read(self.size + extra)
            except OSError as exc:
                raise Unreadable(f"{self.path}: {exc}") from None
        if len(data) < self.size:
            raise Unreadable(f"{self.path}: shorter than expected")
        return data

    def body(self):
        """What a worker reads: for a numbered chunk of a plain file, a stream of its bytes, so
        that the worker holds one read block, not the whole chunk, and memory does not grow with
        the chunk size; otherwise ``read()``'s bytes."""
        if self.data is None and self.numbered:
            return _FileRange(self._open(), self.path, self.size)
        return self.read()

    def _open(self):
        """The chunk's file, at the chunk's first byte."""
        try:
            f = open(self.path, "rb")
        except OSError as exc:
            raise Unreadable(f"{self.path}: {exc}") from None
        try:
            if os.fstat(f.fileno()).st_size != self.file_size:
                raise Unreadable(f"{self.path}: not the file the parent read")
            f.seek(self.offset)
        except BaseException:
            f.close()
            raise
        return f


class _FileRange(io.RawIOBase):
    """``size`` bytes of an open file from where it stands, read as they are asked for."""

    def __init__(self, f, path: str, size: int):
        self.file, self.path, self.left = f, path, size

    def readable(self):
        return True

    def readinto(self, b):
        want = min(len(b), self.left)
        if not want:
            return 0
        n = self.file.readinto(memoryview(b).cast("B")[:want])
        if not n:  # the file shrank during the run
            raise InputError(f"{self.path}: shorter than when the run started; was it changed during the run?")
        self.left -= n
        return n

    def close(self):
        self.file.close()
        super().close()


class Unreadable(Exception):
    """A worker cannot read a chunk's file itself (the parent then sends the bytes)."""


def _plain_path(source: str, inp: Input, with_paths: bool) -> Optional[str]:
    plain = isinstance(source, (str, os.PathLike)) and source != "-" and inp.compression is None \
        and inp.encoding is None and os.path.isfile(source)  # (not a zip archive's member)
    return os.path.abspath(source) if with_paths and plain else None


# ---------------------------------------------------------------- numbered chunks: the scanner cuts

class _Tee(io.RawIOBase):
    """Hands a stream's bytes to the scanner and keeps them, from ``base`` on, for the chunks.
    With ``path`` (a plain file the workers read themselves) it keeps nothing and looks up the
    few bytes it needs in the file."""

    def __init__(self, stream, path: Optional[str] = None):
        self.stream = stream
        self.file = open(path, "rb") if path else None
        self.kept = bytearray()
        self.base = 0  # stream offset of kept[0]
        self.n_read = 0  # bytes read so far

    def readable(self):
        return True

    def readinto(self, b):
        n = self.stream.readinto(b)
        if n:
            self.n_read += n
            if self.file is None:
                self.kept += memoryview(b)[:n]
        return n

    def starts_line(self, offset: int) -> bool:
        """Whether the byte before ``offset`` ends a line."""
        if offset <= self.base:
            return False
        if self.file is not None:
            return os.pread(self.file.fileno(), 1, offset - 1) in (b"\r", b"\n")
        return self.kept[offset - 1 - self.base] in b"\r\n"

    def take(self, end: int) -> Optional[bytes]:
        """The kept bytes up to stream offset ``end``, which are then dropped (None when the
        workers read the file)."""
        cut = end - self.base
        self.base = end
        if self.file is None:
            data = bytes(self.kept[:cut])
            del self.kept[:cut]
            return data
        return None

    def close(self):
        if self.file is not None:
            self.file.close()
        if isinstance(self.stream, ReadAhead):
            self.stream.close()
        super().close()


def iter_chunks(sources: Sequence[str], target: int, max_game_size: int = MAX_GAME_SIZE, on_input=None,
                with_paths: bool = True, on_error=None, start: Optional[dict] = None) -> Iterator[Chunk]:
    """Numbered chunks of about ``target`` bytes, in input order. ``with_paths``: chunks of
    plain files name the file instead of holding the bytes, and a worker reads them itself.
    An input that breaks while read ends with a ``cut`` chunk (the games before the break);
    its InputError is then raised, or passed to ``on_error`` and the next inputs are read."""
    index = next_game = 0
    begin = None  # export --resume: (offset, line) of the game the first input read starts at
    if start is not None:
        sources, next_game = list(sources)[start["index"]:], start["first_game"]
        begin = (start["offset"], start["line"])
    for inp in open_inputs(sources):  # (a zip archive: each PGN member in turn)
        with inp:
            if on_input:
                on_input(inp)
            path = _plain_path(inp.source, inp, with_paths)
            raw = inp.stream if path else ReadAhead(inp.stream)  # (decompressed on a thread)
            start, line = 0, 1
            if begin is not None:
                start, line = begin
                try:
                    skip_to(raw, start, inp.name)
                except BaseException:
                    if isinstance(raw, ReadAhead):
                        raw.close()
                    raise
            tee = _Tee(raw, path)
            try:
                scan = dict(replay=False, batch_games=SCAN_BATCH_GAMES, max_game_size=max_game_size,
                            first_game=next_game)
                stream = tee
                if begin is not None:  # a line end first: the scanner starts a line at the resumed game
                    tee.n_read = tee.base = start
                    stream = _View(b"\n", tee)
                    scan.update(base_offset=start - 1, base_line=line - 1)
                    begin = None
                scanner = _core.BatchReader(stream, ReaderOptions()._replace(**scan))
                first, games = next_game, next_game

                def cut(end: int, n_games: int, last: bool, broken: bool = False) -> Chunk:
                    return Chunk(index, inp.name, start, line, first, n_games, end - start, tee.take(end), path,
                                 inp.size if path else None, last, cut=broken)

                broken: list = []
                for raw in _until_broken(scanner, broken):
                    batch = GameBatch(raw, inp.name, raw["first_game"])
                    offsets = batch.column("offset").tolist()
                    lines = batch.column("line").tolist()
                    i = 0
                    while True:
                        i = bisect_left(offsets, start + target, i)
                        while i < len(offsets) and not tee.starts_line(offsets[i]):
                            i += 1
                        if i >= len(offsets):
                            break
                        game = batch.first_game + i
                        if game > first:
                            yield cut(offsets[i], game - first, False)
                            index += 1
                            start, line, first = offsets[i], lines[i], game
                        i += 1
                    games = batch.first_game + batch.n_games
                if games > first:
                    yield cut(tee.n_read, games - first, True, bool(broken))
                    index += 1
            finally:
                tee.close()
            next_game = games
            _broken_input(broken, on_error)


def skip_to(stream, offset: int, name: str):
    """The stream advanced to ``offset`` (a seek when it can, else read and dropped)."""
    try:
        if stream.seekable():
            stream.seek(offset)
            return
    except (AttributeError, OSError, ValueError):
        pass
    left = offset
    while left:
        block = stream.read(min(left, READ_BLOCK))
        if not block:
            raise InputError(f"{name}: shorter than when the export began (resumed at byte {offset:,})")
        left -= len(block)


def _until_broken(batch_reader, broken: list):
    """A BatchReader's batches; an input that breaks (InputError) ends them, the error kept in
    ``broken`` (the batches of the games before the break come first)."""
    try:
        yield from batch_reader
    except InputError as exc:
        broken.append(exc)


def _broken_input(broken: list, on_error):
    """After the last chunk of an input that broke: its error, raised or passed to on_error."""
    for exc in broken:
        if on_error is None:
            raise exc
        on_error(exc)


# ---------------------------------------------------------------- unnumbered chunks: a byte search, checked

def find_seam(buf, pos: int) -> int:
    """The offset in ``buf`` of the first likely game start at or after ``pos``: a '[' that
    starts a line after a blank line, where the last non-blank line before it is not a tag line
    (nor an escape line). -1 when there is none. (In C, _c/seams.c: ~2 GB/s, faster than the
    decompression it follows.)"""
    return _core.find_seam(buf, pos)


def iter_seam_chunks(sources: Sequence[str], target: int, on_input=None,
                     with_paths: bool = True, on_error=None) -> Iterator[Chunk]:
    """Unnumbered chunks of about ``target`` bytes, in input order (checked by the workers). An
    input that breaks while read ends with a ``cut`` chunk, as in iter_chunks."""
    index = 0
    for inp in open_inputs(sources):  # (a zip archive: each PGN member in turn)
        with inp:
            if on_input:
                on_input(inp)
            path = _plain_path(inp.source, inp, with_paths)
            if path:
                size = inp.size
                start = 0
                with open(path, "rb") as f:
                    while start < size:
                        end = _seam_in_file(f, start + target, size)
                        yield Chunk(index, inp.name, start, None, None, None, end - start, None, path, size,
                                    last=end >= size)
                        index += 1
                        start = end
                        inp.counter.count = end  # progress and summary: bytes handed to the workers
                continue
            stream = ReadAhead(inp.stream)  # decompressed on a thread of its own
            broken: list = []
            try:
                for chunk in _stream_seam_chunks(stream, inp.name, target, index, broken):
                    yield chunk
                    index += 1
            finally:
                stream.close()
            _broken_input(broken, on_error)


def _stream_seam_chunks(stream, name: str, target: int, index: int, broken: list) -> Iterator[Chunk]:
    """iter_seam_chunks of a stream the parent reads. Each chunk's bytes are a buffer of their own
    that holds the next LOOKAHEAD bytes after them too (no copy to join them in the worker)."""
    buf = bytearray(target + LOOKAHEAD + READ_BLOCK)
    n, base, eof = 0, 0, False
    while True:
        seam, searched = -1, target
        while True:  # enough bytes for a seam after the target and its lookahead, or the end
            if n > searched:
                seam = find_seam(memoryview(buf)[:n], searched)
                if seam >= 0 and (eof or n >= seam + LOOKAHEAD):
                    break
                if seam < 0:
                    searched = max(target, n - 8)  # a match may straddle the next block
            if eof:
                break
            if n == len(buf):  # a long game: room for more
                buf.extend(bytes(len(buf)))
            with memoryview(buf) as view, view[n:] as free:  # (released now: buf is resized later)
                k = _read_into(stream, free, broken)
            eof = not k
            n += k
        if seam < 0:
            if n:
                del buf[n:]
                yield Chunk(index, name, base, None, None, None, n, buf, last=True, cut=bool(broken))
            return
        following = bytearray(max(len(buf), target + LOOKAHEAD + READ_BLOCK))
        following[:n - seam] = memoryview(buf)[seam:n]
        del buf[min(n, seam + LOOKAHEAD):]
        yield Chunk(index, name, base, None, None, None, seam, buf, last=False)
        index += 1
        buf, n, base = following, n - seam, base + seam


def _read_into(stream, block, broken: list) -> int:
    """Bytes read into block; 0 at the end of the input or where it breaks (the error is kept
    in ``broken``)."""
    try:
        return stream.readinto(block) or 0
    except InputError as exc:
        broken.append(exc)
        return 0


def _seam_in_file(f, at: int, size: int) -> int:
    """A likely seam at or after byte ``at`` of a plain file, or its size."""
    window = 1 << 16
    while at < size:
        lookback = min(at, 4096)  # room to see the lines before the seam
        f.seek(at - lookback)
        buf = f.read(lookback + window)
        seam = find_seam(buf, lookback)
        if seam >= 0 and at - lookback + seam < size:
            return at - lookback + seam
        at += window - 4  # the next window overlaps a little: a match may straddle
    return size


# ---------------------------------------------------------------- reading a chunk

class _View(io.RawIOBase):
    """A stream over ``prefix`` then ``body`` (a memoryview, read without copying it first, or
    a stream). With ``cut``, its end raises _Cut, as the input broke there."""

    def __init__(self, prefix: bytes, body, cut: bool = False):
        self.parts = [memoryview(prefix), body]
        self.cut = cut

    def readable(self):
        return True

    def readinto(self, b):
        while self.parts:
            part = self.parts[0]
            if not isinstance(part, memoryview):
                n = part.readinto(b)
                if n:
                    return n
            elif len(part):
                n = min(len(b), len(part))
                memoryview(b).cast("B")[:n] = part[:n]
                self.parts[0] = part[n:]
                return n
            self.parts.pop(0)
        if self.cut:
            raise _Cut()
        return 0


class _Cut(Exception):
    """The end of a chunk whose input broke there (the BatchReader hands out the games that
    ended before it, then raises it)."""


def _reader(chunk: Chunk, data, options: ReaderOptions, start: int = 0, cut: bool = False):
    """A BatchReader over data[start:] (``data`` may also be a stream of the chunk, start 0),
    located as in the whole input."""
    offset = chunk.offset + start
    line = chunk.line if chunk.line is not None else 1
    body = memoryview(data)[start:] if isinstance(data, (bytes, bytearray, memoryview)) else data
    if offset and (start == 0 or data[start - 1:start] in (b"\n", b"\r")):
        # a line end first: the scanner starts a line at the chunk's first byte
        stream, base_offset, base_line = _View(b"\n", body, cut), offset - 1, line - 1
    else:
        stream, base_offset, base_line = _View(b"", body, cut), offset, line
    located = options._replace(base_offset=base_offset, base_line=base_line, first_game=chunk.first_game or 0)
    return _core.BatchReader(stream, located)


def chunk_batches(chunk: Chunk, data, options: ReaderOptions) -> Iterator[GameBatch]:
    """The batches of one chunk's games, numbered and located as in the whole input. ``data``
    is ``chunk.body()``: bytes that may run past the chunk (an unnumbered chunk's lookahead;
    only the chunk is read), or a stream of the chunk."""
    body = memoryview(data)[:chunk.size] if isinstance(data, (bytes, bytearray, memoryview)) else data
    try:
        for raw in _reader(chunk, body, options, cut=chunk.cut):
            yield GameBatch(raw, chunk.source, raw["first_game"])
    except _Cut:  # the game the input's break cut off: not read (the parent reports the break)
        pass


def seam_holds(chunk: Chunk, data: bytes, last_game_offset: Optional[int], max_game_size: int) -> bool:
    """Whether, reading on past the end of this chunk (its lookahead), the next game starts
    exactly where the next chunk does, with none between the chunk's last game and it."""
    if chunk.last:
        return True
    start = 0 if last_game_offset is None else last_game_offset - chunk.offset
    if start and data[start - 1:start] not in (b"\n", b"\r"):
        start = 0  # a game that does not start a line: check from the chunk's start
    offsets = []
    scan = ReaderOptions(replay=False, batch_games=SCAN_BATCH_GAMES, max_game_size=max_game_size)
    for raw in _reader(chunk, data, scan, start):
        offsets += memoryview(raw["offset"]).cast("q").tolist()
        if offsets and offsets[-1] >= chunk.offset + chunk.size:
            break
    end = chunk.offset + chunk.size
    before = [o for o in offsets if o < end]
    if before[-1:] != ([last_game_offset] if last_game_offset is not None else []):
        return False
    return end in offsets
