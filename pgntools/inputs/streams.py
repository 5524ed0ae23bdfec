"""Opening inputs: paths, '-' for stdin, .gz/.bz2/.xz/.zst streams (by suffix or magic bytes),
and .zip archives, read member by member (``open_inputs``: each member is an Input of its own,
named ``archive.zip:member.pgn``).

Progress counts the bytes read from the file itself, so compressed input (and a zip archive)
shows progress in compressed bytes against the file's size; the summary's ``bytes`` counts the
same (``Input.bytes_read``).

An input in which no game is found says what it looks like instead (``not_pgn``): a PNG image,
a Parquet file, CSV text, binary data.

A stream that breaks while it is read (corrupt or truncated compressed data, a read error)
raises InputError saying where: the offset in the decompressed stream (the offsets games are
located by) up to which every byte was handed out, and about how far into the file. The bytes
before the break are handed out first, so the games before it are still read.
"""
from __future__ import annotations

import io
import os
import sys
from typing import BinaryIO, Iterator, NamedTuple, Optional, Sequence

from pgntools.errors import InputError
from pgntools.inputs.arrow_games import check_table, is_table_path
from pgntools.inputs.sources import open_object, source_kind
from pgntools.inputs.text_encoding import SNIFF, Utf16Decoder, utf16_encoding
from pgntools.storage import is_url, url_filesystem

MAGIC = [
    (b"\x1f\x8b", "gz"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zst"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty archive
]
SUFFIXES = {".gz": "gz", ".gzip": "gz", ".bz2": "bz2", ".xz": "xz", ".lzma": "xz", ".zst": "zst", ".zstd": "zst",
            ".zip": "zip"}
# Members of a zip archive that are read: PGN files, plain or compressed (others are left out).
PGN_MEMBER_SUFFIXES = (".pgn",) + tuple(".pgn" + suffix for suffix in SUFFIXES if suffix != ".zip")
# Bytes of each input's (decompressed) stream kept to say what a non-PGN input looks like.
HEAD = 4096
# What reading a stream raises on corrupt or truncated data; Input's stream turns these into
# InputError. A decompressing stream adds compression_errors() (lzma's error is not an OSError,
# unlike gzip's and bz2's): the compression modules load only for compressed input (start-up).
STREAM_ERRORS = (OSError, EOFError, ValueError)


def compression_errors() -> tuple:
    import lzma
    import zlib

    return (zlib.error, lzma.LZMAError)
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


class DamagedFrame(OSError):
    """A zstd frame that cannot be decoded; ``offset``: the compressed byte it starts at."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


class ZstdReader(io.RawIOBase):
    """Decompresses concatenated zstd frames (as the Lichess dumps are) and, unlike the library's
    stream reader, reports a stream that ends inside a frame as truncated (EOFError, as gzip,
    bz2 and lzma do) and corrupt data as OSError (DamagedFrame: where the frame starts).

    A damaged frame after good ones: every byte of the frames before it is handed out first (the
    games in them are read), then the error is raised."""

    def __init__(self, raw):
        import zstandard

        self.zstd = zstandard
        self.raw = raw
        self.frame = zstandard.ZstdDecompressor().decompressobj()
        self.fed = False  # the current frame has received input
        self.pending = memoryview(b"")
        self.taken = 0        # compressed bytes read from raw
        self.frame_start = 0  # compressed offset of the current frame
        self.error: Optional[OSError] = None  # raised once the bytes decoded before it are handed out

    def readable(self):
        return True

    def readinto(self, b):
        """Fills ``b`` (as far as the stream goes: few calls for a large buffer); an error is
        raised by the call after the one that handed out the bytes decoded before it."""
        view = memoryview(b).cast("B")
        n = 0
        while n < len(view):
            if not self.pending:
                if self.error is not None:
                    if n:
                        break
                    raise self.error
                chunk = self.raw.read(1 << 14)  # small: a corrupt frame loses little decoded output
                if not chunk:
                    if self.fed and not self.frame.eof and not n:
                        raise EOFError("compressed file ended inside a zstd frame")
                    break
                self.taken += len(chunk)
                try:
                    self.pending = memoryview(self._decompress(chunk))
                except OSError:  # (self.error: raised by the next call, after the bytes before it)
                    if n:
                        break
                    raise
                continue
            k = min(len(view) - n, len(self.pending))
            view[n:n + k] = self.pending[:k]
            self.pending = self.pending[k:]  # a view: no copy of the rest
            n += k
        return n

    def _decompress(self, data: bytes) -> bytes:
        out = []
        while data:
            try:
                out.append(self.frame.decompress(data))
            except self.zstd.ZstdError as exc:
                self.error = DamagedFrame(f"corrupt zstd data: {exc}", self.frame_start)
                if not out:
                    raise self.error from None
                break  # (the frames before it first)
            self.fed = True
            data = b""
            if self.frame.eof:  # the rest belongs to the next frame
                data = self.frame.unused_data
                self.frame_start = self.taken - len(data)
                self.frame = self.zstd.ZstdDecompressor().decompressobj()
                self.fed = False
        return b"".join(out)


class StreamReader(io.RawIOBase):
    """An input's decompressed (or plain) bytes, counted. A read that breaks (corrupt or truncated
    data) hands out the bytes before the break, and the next read raises an InputError that
    locates it.

    gzip, bz2 and xz input is decompressed in pieces of a fixed size, whatever the callers ask for,
    each piece with one call of the decompressor (read1): a call that fails drops what it decoded,
    so one decoding step per call loses nothing before the damage, and fixed pieces make the break
    fall at the same byte for every reader (the single-process run and the parent of a parallel
    one). zstd input (ZstdReader) keeps what it decoded before a break itself, so it is read
    straight into the caller's buffer: no piece, no copy."""

    def __init__(self, stream, inp: "Input"):
        self.stream, self.inp = stream, inp
        self.decoded = 0  # bytes read from the stream (all are handed out before an error is raised)
        self.pushback = b""  # bytes read by sniff(), handed out first
        self.error: Optional[InputError] = None
        # gzip, bz2, lzma: read1 is one decoding step, in pieces. ZstdReader hands out every byte
        # decoded before a break itself, whatever the read sizes: read straight into the caller's buffer.
        self.read1 = getattr(stream, "read1", None) if inp.compression and inp.compression != "zst" else None
        self.piece = memoryview(bytearray(PIECE)) if self.read1 is not None else None
        self.start = self.end = 0  # what is left of the last piece

    def readable(self):
        return True

    def sniff(self, n: int) -> bytes:
        """The stream's first bytes (up to n), read now and handed out again by the next reads."""
        data = bytearray()
        try:
            while len(data) < n:
                chunk = self.read(n - len(data))
                if not chunk:
                    break
                data += chunk
        except InputError:
            pass  # (kept in self.error: the next read raises it)
        self.pushback = bytes(data)
        return self.pushback

    def readinto(self, b):
        view = memoryview(b).cast("B")
        if self.pushback:
            n = min(len(view), len(self.pushback))
            view[:n] = self.pushback[:n]
            self.pushback = self.pushback[n:]
            return n
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
        except self.inp.stream_errors as exc:
            self.error = self.inp.stream_error(exc, self.decoded)
            self.error.__cause__ = exc
            return 0
        if self.decoded < HEAD and n:
            self.inp.head += bytes(view[:min(n, HEAD - self.decoded)])
        self.decoded += n
        return n


class ZipMember(NamedTuple):
    """One member of an open zip archive, as a source of Input."""

    archive: "ZipArchive"
    info: object  # zipfile.ZipInfo

    @property
    def name(self) -> str:
        return f"{self.archive.name}:{self.info.filename}"


class Input:
    """One opened input: ``stream`` (binary, decompressed), ``name``, ``size`` (bytes on disk or
    None) and ``bytes_read()`` (bytes consumed from the file, compressed ones for compressed input).
    A zip archive opens with ``compression`` "zip" and no stream of its own: ``open_inputs``
    reads its members. ``head`` holds the stream's first HEAD bytes (see not_pgn)."""

    stream_errors = STREAM_ERRORS

    def __init__(self, source):
        self.source = source
        kind = "path" if source is None or isinstance(source, ZipMember) else source_kind(source)
        self._owned = []
        self.head = b""
        self.zip_counter = None  # a zip member: the archive's counter, and its count when the member opened
        self.zip_read: Optional[int] = None
        table = kind == "arrow" or (isinstance(source, (str, os.PathLike)) and source != "-"
                                    and is_table_path(os.fspath(source)))
        if table:  # Parquet or Arrow rows in the Lichess layout, read as one game a line (arrow_games)
            from pgntools.inputs.arrow_games import TableGames

            self.name = os.fspath(source) if kind == "path" else f"<{type(source).__name__}>"
            raw, self.size = TableGames(self.name if kind == "path" else source, self.name), None
        elif kind != "path":  # bytes, a file object, chunks: pgntools.inputs.sources
            raw, self.name, self.size = open_object(source, kind)
            if kind in ("file", "chunks"):  # (the caller's object giving no bytes: an error of the input's)
                self.stream_errors = STREAM_ERRORS + (InputError,)
        elif source in ("-", None):
            self.name = "<stdin>"
            raw = sys.stdin.buffer
            self.size = None
        elif isinstance(source, ZipMember):
            self.name = source.name
            raw = source.archive.open(source.info)
            self._owned.append(raw)
            self.size = source.info.compress_size
            # a CRC that does not match; a member's deflate, bzip2 or lzma data
            self.stream_errors = STREAM_ERRORS + compression_errors() + (source.archive.BadZipFile,)
            self.zip_counter, self.zip_base = source.archive.counter, source.archive.counter.count
        elif is_url(source):
            self.name = source
            raw, self.size = _open_url(source)
            self._owned.append(raw)
        else:
            self.name = os.fspath(source)
            try:
                raw = open(source, "rb")
            except IsADirectoryError:
                raise InputError(f"{self.name}: is a directory, not a PGN file") from None
            except OSError as exc:
                raise InputError(f"{self.name}: cannot open: {exc.strerror}") from None
            self._owned.append(raw)
            self.size = os.fstat(raw.fileno()).st_size
        self.raw = raw
        self.counter = CountingReader(raw)
        buffered = io.BufferedReader(self.counter, buffer_size=1 << 16)
        self.buffered = buffered
        self.compression = None  # (until detected: a read error while detecting is reported as plain)
        self.compression = "table" if table else self._detect(buffered)  # (a table's PGN: never split by bytes)
        self.stream = StreamReader(self._decompressor(buffered), self)
        self.encoding = None  # "utf-16-le" or "utf-16-be": the stream is its UTF-8 decoding
        if self.compression != "zip":
            self.encoding = utf16_encoding(self.stream.sniff(SNIFF))
            if self.encoding:
                self.stream = Utf16Decoder(self.stream, self.encoding)

    def _detect(self, buffered) -> Optional[str]:
        try:
            head = buffered.peek(8)[:8]
        except self.stream_errors as exc:  # (a small zip member is read whole here, its CRC checked)
            raise self.stream_error(exc, 0) from exc
        for magic, kind in MAGIC:
            if head.startswith(magic):
                return kind
        suffix = os.path.splitext(self.name)[1].lower()
        if suffix in SUFFIXES and head:
            raise InputError(f"{self.name}: named {suffix} but its content is not {SUFFIXES[suffix]}-compressed")
        return None

    def _decompressor(self, buffered):
        if self.compression in ("gz", "bz2", "xz"):
            self.stream_errors = self.stream_errors + compression_errors()
        if self.compression == "gz":
            import gzip  # (each compression module here: only for the input that needs it)

            return gzip.GzipFile(fileobj=buffered, mode="rb")
        if self.compression == "bz2":
            import bz2

            return bz2.BZ2File(buffered)
        if self.compression == "xz":
            import lzma

            return lzma.LZMAFile(buffered)
        if self.compression == "zst":
            return ZstdReader(buffered)
        return buffered  # (a zip archive's members are read by open_inputs)

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
        where = (f"in the frame at compressed byte {exc.offset}" if isinstance(exc, DamagedFrame)
                 else f"compressed byte ~{self.bytes_read()}")
        return InputError(f"{self.name}: {what} at decompressed byte {offset} ({where}); the games before it were read")

    def bytes_read(self) -> int:
        if self.zip_counter is not None:  # the archive's bytes read since this member opened (until it closed)
            return self.zip_counter.count - self.zip_base if self.zip_read is None else self.zip_read
        return self.counter.count

    def pgn_bytes(self) -> int:
        """The PGN bytes read (decompressed). A plain file a parallel run's workers read
        themselves is not read through this stream: its bytes handed out are bytes_read()."""
        if self.compression is None and self.zip_counter is None and self.encoding is None:
            return self.bytes_read()
        return self.stream.decoded

    def close(self):
        if self.zip_counter is not None and self.zip_read is None:
            self.zip_read = self.bytes_read()  # the next members read on from the same archive
        for f in self._owned:
            f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _CountingFile:
    """A seekable binary file that counts the bytes read through it (a zip archive's progress)."""

    def __init__(self, f):
        self.file = f
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        data = self.file.read(n)
        self.count += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()

    def seekable(self) -> bool:
        return True


class ZipArchive:
    """A zip input's PGN members (names ending in .pgn, or .pgn.gz and the other compressed
    suffixes), in the archive's order; stdin is copied to a temporary file first (a zip is read
    from its end)."""

    def __init__(self, inp: Input):
        import zipfile

        self.BadZipFile = zipfile.BadZipFile
        self.name = inp.name
        f = inp.raw
        if not _seekable(f):
            import shutil
            import tempfile

            f = tempfile.TemporaryFile()
            inp._owned.append(f)
            shutil.copyfileobj(inp.buffered, f, 1 << 20)
        f.seek(0)
        self.counter = _CountingFile(f)
        try:
            self.zip = zipfile.ZipFile(self.counter)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise InputError(f"{self.name}: not a readable zip archive ({exc})") from None
        files = [info for info in self.zip.infolist() if not info.is_dir()]
        self.members = [info for info in files if info.filename.lower().endswith(PGN_MEMBER_SUFFIXES)]
        if not self.members:
            names = ", ".join(info.filename for info in files[:3]) + (", ..." if len(files) > 3 else "")
            raise InputError(f"{self.name}: a ZIP archive with no .pgn member ({names or 'empty'}), not PGN")

    def open(self, info):
        try:
            return self.zip.open(info)
        except (self.BadZipFile, NotImplementedError, OSError, EOFError) as exc:  # e.g. an unknown method
            raise InputError(f"{self.name}:{info.filename}: cannot read this member ({exc})") from None


def _seekable(f) -> bool:
    try:
        return f.seekable()
    except (AttributeError, OSError, ValueError):
        return False


def open_inputs(sources: Sequence) -> Iterator[Input]:
    """The inputs of ``sources`` opened in order, a zip archive's PGN members one by one; the
    caller closes each (``with inp:``)."""
    for source in sources:
        inp = Input(source)
        if inp.compression != "zip":
            yield inp
            continue
        with inp:
            archive = ZipArchive(inp)
            for info in archive.members:
                yield Input(ZipMember(archive, info))


# ---------------------------------------------------------------- what an input that is not PGN looks like

SIGNATURES = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PAR1", "a Parquet file"),
    (b"ARROW1", "an Arrow file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Office document"),
    (b"PK\x03\x04", "a ZIP archive"),
]


def looks_like(head: bytes) -> str:
    """What the first bytes of a non-PGN input look like: a known format, CSV or JSON text,
    other text, or binary data."""
    for magic, what in SIGNATURES:
        if head.startswith(magic):
            return what
    sample = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    text = sample.decode("utf-8", "replace")  # (Latin-1 text has a few replaced bytes; binary data many)
    odd = sum(c == "\ufffd" or (c < " " and c not in "\t\r\n\f") for c in text)
    if "\x00" in text or odd > len(text) // 20:
        return "binary data"
    if text.startswith(("{", "[{", '["')):
        return "JSON text"
    if text.startswith("<"):
        return "XML or HTML text"
    lines = [line for line in text.splitlines()[:20] if line]
    if len(lines) >= 2 and lines[0].count(",") >= 1 and len({line.count(",") for line in lines[:-1]}) == 1:
        return "CSV text"
    return "text with no PGN game in it"


def not_pgn(inp: Input, games: int = 0) -> Optional[str]:
    """For an input read to its end without a game (or with ``games`` in which no tag pair and
    no legal move were found: random bytes, prose): the one-line error that says what it looks
    like (None when it is empty or blank, or its stream broke: that has its own error)."""
    head = inp.stream.head if inp.encoding else inp.head
    if not head and isinstance(inp.source, str) and inp.compression is None and os.path.isfile(inp.source):
        with open(inp.source, "rb") as f:  # a parallel run's workers read the file, not this stream
            head = f.read(HEAD)
    if inp.stream.error is not None or not head.strip(b"\xef\xbb\xbf \t\r\n"):
        return None
    encoding = " (UTF-16)" if inp.encoding else ""
    why = f"{games:,} game{'s' * (games != 1)} read, none with a legal move or a readable tag section" if games else "no game found"
    return f"{inp.name}: {looks_like(head)}{encoding}, not PGN ({why})"


def check_games_found(inputs: Sequence[Input], games_by_source: dict, pgn_games_by_source: dict) -> None:
    """After a run has read its inputs: raises InputError for the first one that is not empty
    but held no game with a tag pair or a legal move (not_pgn says what it looks like)."""
    for inp in inputs:
        if not pgn_games_by_source.get(inp.name):
            message = not_pgn(inp, games_by_source.get(inp.name, 0))
            if message:
                raise InputError(message)


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
    """Fails early, before any work, on inputs that cannot be read (paths and URLs: the other
    kinds of pgntools.inputs.sources are checked as they are opened)."""
    for source in sources:
        if source == "-" or not isinstance(source, (str, os.PathLike)):
            continue
        source = os.fspath(source)
        if is_table_path(source):  # (its schema read: a table without a movetext column is refused now)
            check_table(source)
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
        _check_format(source)


def _check_format(path: str) -> None:
    """A file whose first bytes show a format that is not PGN (a PNG image, a Parquet file, ...)
    fails here, before any output exists; so does a zip archive without a PGN member. Only
    regular files: a pipe's bytes (a FIFO, /dev/fd/N) can be read once."""
    if not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return  # (opening it says why)
    for magic, kind in MAGIC:
        if head.startswith(magic):
            if kind == "zip":
                with Input(path) as inp:
                    ZipArchive(inp)
            return
    for magic, what in SIGNATURES:
        if head.startswith(magic):
            raise InputError(f"{path}: {what}, not PGN")
