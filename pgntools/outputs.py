"""Outputs: files that appear under their name only when complete (AtomicOutput), compressed
by their suffix, and the checks made before a run opens its outputs (no output is an input, no
two outputs are one file or both stdout)."""
from __future__ import annotations

import errno
import os
import re
import stat
import sys
from typing import Dict, Optional, Sequence, Tuple

from pgntools.errors import OutputError
from pgntools.storage import LocalStorage, is_url, storage_for

# The command-line option of each named output (for the messages of the checks below).
OPTION_NAMES = {"pgn": "-o", "positions": "-o", "book": "-o", "rejects": "--rejects", "report": "--report", "summary": "--summary"}
# Outputs compressed by suffix, as inputs are read (pgntools.inputs.streams.SUFFIXES). '-' stays plain.
COMPRESSED_SUFFIXES = {".gz": "gz", ".bz2": "bz2", ".xz": "xz", ".zst": "zst", ".zstd": "zst"}
# The part files an export writes into OUT_DIR/games and OUT_DIR/moves (what --overwrite replaces).
PART_NAME = re.compile(r"part-\d+\.parquet")


def _part_file(directory: str, prefix: str, suffix: str) -> Tuple[int, str]:
    """A new file of a random name in ``directory``, as tempfile.mkstemp makes it (created here
    and nowhere else: O_EXCL, not following a link; private until commit; another name on a
    clash), without importing tempfile: it brings shutil, random, bz2, lzma and zlib (~12 M
    instructions, a tenth of a one-game validate --summary's start-up)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", directory)


class AtomicOutput:
    """A binary output file that appears under its name only when complete. '-' is stdout.

    A path that exists and is not a regular file (a FIFO, /dev/null, /dev/stdout, a process
    substitution's /dev/fd/N) is written in place: renaming over it would replace the device or
    pipe with a plain file. A symlink to a file is followed, so the link stays a link.

    A path (or URL) ending in .gz, .bz2, .xz or .zst is written compressed in that format;
    ``file`` is then the compressing stream and ``raw`` the file under it."""

    def __init__(self, path: str):
        self.path = path
        self.compression = None if path == "-" else compression_for(path)
        self._open(path)
        self.raw = self.file
        if self.compression:
            self.file = _compressor(self.compression, self.raw)

    def _open(self, path: str):
        self.tmp = None
        self.in_place = False  # a device or pipe opened here (closed at the end), not stdout
        self.storage = LocalStorage()  # or an fsspec URL's (pgntools.storage)
        if path == "-":
            self.file = sys.stdout.buffer
            return
        if is_url(path):
            self._open_url(path)
            return
        if os.path.isdir(path):
            raise OutputError(f"{path}: is a directory")
        if os.path.exists(path) and not os.path.isfile(path):
            self.file = self._open_in_place(path)
            self.in_place = True
            return
        target = os.path.realpath(path)
        try:
            fd, self.tmp = _part_file(os.path.dirname(target), f".{os.path.basename(target)}.", ".part")
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror}") from None
        self.target = target
        self.file = os.fdopen(fd, "wb", buffering=1 << 20)

    def _open_url(self, url: str):
        self.storage, self.target = storage_for(url, OutputError)
        directory, _, name = self.target.rpartition("/")
        self.tmp = self.storage.join(directory, f".{name}.{os.getpid()}-{id(self):x}.part")
        try:
            self.file = self.storage.open_write(self.tmp)
        except OSError as exc:
            raise OutputError(f"{url}: cannot write: {exc.strerror or exc}") from None

    @staticmethod
    def _open_in_place(path: str):
        try:
            return open(path, "wb", buffering=1 << 20)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: {exc.strerror}") from None

    def write(self, data: bytes):
        self.file.write(data)

    def commit(self):
        if self.compression:
            self.file.close()  # the compressed stream's end (the file under it stays open)
        if self.tmp is None:  # stdout, or a device or pipe written in place
            if self.in_place:
                self.raw.close()
            else:
                self.raw.flush()
            return
        self.raw.close()
        if not is_url(self.path):
            os.chmod(self.tmp, 0o644)  # _part_file made it private
        self.storage.rename(self.tmp, self.target)
        self.tmp = None

    def abort(self):
        if self.compression:
            try:  # ended here, not later by the garbage collector into a closed file
                self.file.close()
            except Exception:  # the failure that aborts the run may be the file's (a full disk)
                pass
        if self.in_place:
            self.raw.close()
        if self.tmp is not None:
            self.raw.close()
            self.storage.remove(self.tmp)  # (already gone if interrupted just after commit()'s rename)
            self.tmp = None


def compression_for(path: str) -> Optional[str]:
    """The format an output's suffix asks for (gz, bz2, xz, zst), or None."""
    return COMPRESSED_SUFFIXES.get(os.path.splitext(path)[1].lower())


def _compressor(kind: str, raw):
    """A stream that writes ``kind``-compressed data into ``raw`` (left open when it closes)."""
    if kind == "gz":
        import gzip

        # no file name or time in the header: the same input gives the same bytes (as gzip -n)
        return gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=6, mtime=0)
    if kind == "bz2":
        import bz2

        return bz2.BZ2File(raw, "wb")
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw, "wb")
    import zstandard

    return zstandard.ZstdCompressor(level=3, write_checksum=True).stream_writer(raw, closefd=False)


def _file_id(path: str, stream=None, regular_only: bool = False) -> Optional[Tuple[int, int]]:
    """(device, inode) of an existing local file (symlinks followed; for '-' the file behind
    ``stream``, sys.stdin or sys.stdout), or None: no such file, a URL, or (``regular_only``) not
    a regular file."""
    try:
        st = os.fstat(stream.fileno()) if path == "-" else None if is_url(path) else os.stat(path)
    except (OSError, ValueError, AttributeError):  # (a stream without a file: io.UnsupportedOperation)
        return None
    if st is None or (regular_only and not stat.S_ISREG(st.st_mode)):
        return None
    return st.st_dev, st.st_ino


def input_ids(inputs: Sequence[str]) -> Dict[Tuple[int, int], str]:
    """The (device, inode) of each input that is a file (stdin too, when it is redirected from one)."""
    ids = {}
    for source in inputs:
        key = _file_id(os.fspath(source), sys.stdin, regular_only=True)
        if key is not None:
            ids.setdefault(key, "stdin" if source == "-" else os.fspath(source))
    return ids


def check_outputs(outputs: dict, inputs: Sequence[str] = ()) -> None:
    """Before anything is read or written: no output is an input (same path, a symlink or a hard
    link to it: the same device and inode), no two outputs are one file, at most one goes to stdout."""
    named = [(name, path) for name, path in outputs.items() if path is not None]
    to_stdout = [OPTION_NAMES.get(name, name) for name, path in named if path == "-"]
    if len(to_stdout) > 1:
        raise OutputError(f"{', '.join(to_stdout[:-1])} and {to_stdout[-1]} write to stdout ('-'), where they would mix: "
                          "give all but one of them a file")
    sources = input_ids(inputs)
    for name, path in named:
        key = _file_id(path, sys.stdout, regular_only=path == "-")  # stdout: only when redirected into a file
        if key in sources:
            where = "stdout" if path == "-" else path
            raise OutputError(f"{OPTION_NAMES.get(name, name)} {where} is the input {sources[key]} (the same "
                              "file): an input is never overwritten; write the output elsewhere")
    files = [path for _, path in named if path != "-"]
    real = [os.path.realpath(path) for path in files]
    ids = [_file_id(path) for path in files]
    for i, target in enumerate(real):
        # the last output renamed there would replace the other (a device such as /dev/null takes both)
        twin = (real.index(target) if target in real[:i]
                else ids.index(ids[i]) if ids[i] is not None and ids[i] in ids[:i] else None)
        if twin is not None and not _is_device(files[i]):
            raise OutputError(f"{files[twin]} and {files[i]}: one file for two outputs")


def _is_device(path: str) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_outputs(outputs: dict, inputs: Sequence[str] = ()) -> dict:
    """Opens each named output (name -> path, '-' for stdout, None when not asked for), after
    check_outputs."""
    check_outputs(outputs, inputs)
    opened = {}
    try:
        for name, path in outputs.items():
            if path is not None:
                opened[name] = AtomicOutput(path)
    except Exception:
        for out in opened.values():
            out.abort()
        raise
    return opened


def check_dataset(out_dir: str, inputs: Sequence[str], tables: Sequence[str] = ("games", "moves"),
                  option: str = "--parquet") -> None:
    """Before anything is read or written: no input is one of the part files in OUT_DIR/games or
    OUT_DIR/moves (or the other ``tables``; "" for OUT_DIR itself) that an export (with
    --overwrite) would replace or remove."""
    if is_url(out_dir):
        return
    sources = input_ids(inputs)
    for table in tables:
        directory = os.path.join(out_dir, table)
        try:
            names = os.listdir(directory)
        except OSError:  # not there yet (or not a directory: the sink says so)
            continue
        for name in names:
            key = _file_id(os.path.join(directory, name)) if PART_NAME.fullmatch(name) else None
            if key in sources:
                raise OutputError(f"{option} {out_dir}: its part {os.path.join(directory, name)} is the input "
                                  f"{sources[key]}: an input is never overwritten; export elsewhere")
