"""Outputs: files that appear under their name only when complete (AtomicOutput), and the
checks made before a run opens its outputs."""
from __future__ import annotations

import os
import sys
import tempfile

from pgntools.errors import OutputError
from pgntools.storage import LocalStorage, is_url, storage_for


class AtomicOutput:
    """A binary output file that appears under its name only when complete. '-' is stdout.

    A path that exists and is not a regular file (a FIFO, /dev/null, /dev/stdout, a process
    substitution's /dev/fd/N) is written in place: renaming over it would replace the device or
    pipe with a plain file. A symlink to a file is followed, so the link stays a link."""

    def __init__(self, path: str):
        self.path = path
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
            fd, self.tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part",
                                            dir=os.path.dirname(target))
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
        if self.tmp is None:  # stdout, or a device or pipe written in place
            if self.in_place:
                self.file.close()
            else:
                self.file.flush()
            return
        self.file.close()
        if not is_url(self.path):
            os.chmod(self.tmp, 0o644)  # mkstemp made it private
        self.storage.rename(self.tmp, self.target)
        self.tmp = None

    def abort(self):
        if self.in_place:
            self.file.close()
        if self.tmp is not None:
            self.file.close()
            self.storage.remove(self.tmp)  # (already gone if interrupted just after commit()'s rename)
            self.tmp = None


def open_outputs(outputs: dict) -> dict:
    """Opens each named output (name -> path, '-' for stdout, None when not asked for)."""
    files = [path for path in outputs.values() if path not in (None, "-")]
    real = [os.path.realpath(path) for path in files]
    for i, target in enumerate(real):
        if target in real[:i]:  # the last output renamed there would replace the other
            raise OutputError(f"{files[real.index(target)]} and {files[i]}: one file for two outputs")
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
