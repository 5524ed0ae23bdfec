"""Where inputs are read and outputs written: local paths, or URLs of any filesystem fsspec knows
(``s3://``, ``gs://``, ``abfs://``, ``http(s)://`` for inputs, ``file://``, ...; each needs its
fsspec package, e.g. s3fs), so that the workers of a Dask cluster can reach the same inputs and
write the same dataset. fsspec comes with the ``dask`` extra; it is imported only for URLs.
"""
from __future__ import annotations

import os
from typing import List


def is_url(path) -> bool:
    return isinstance(path, str) and "://" in path and path.split("://", 1)[0].isidentifier()


def url_filesystem(url: str, error):
    """(fsspec filesystem, path inside it) for a URL; ``error`` (an exception class) says why not."""
    try:
        import fsspec
    except ImportError:
        raise error(f"{url}: URLs need fsspec (the dask extra: pip install 'pgntools-chess[dask]'; and the "
                    "package of the URL's filesystem, e.g. s3fs)") from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:  # an unknown protocol, or its package missing
        raise error(f"{url}: {exc}") from None


class LocalStorage:
    """A directory on this machine's filesystem."""

    def join(self, directory: str, name: str) -> str:
        return os.path.join(directory, name)

    def open_write(self, path: str):
        return open(path, "wb")

    def open_read(self, path: str):
        return open(path, "rb")

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def makedirs(self, path: str):
        os.makedirs(path, exist_ok=True)

    def names(self, directory: str) -> List[str]:
        return os.listdir(directory)

    def rename(self, source: str, target: str):
        os.replace(source, target)

    def remove(self, path: str):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    def writable(self, directory: str) -> bool:
        return os.access(directory, os.W_OK)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def remove_empty_dir(self, path: str):
        try:
            os.rmdir(path)
        except OSError:  # not empty (or gone): left alone
            pass


class UrlStorage(LocalStorage):
    """A directory of an fsspec filesystem (paths are the filesystem's, without the protocol).
    A rename is the filesystem's move: a copy and a delete on object stores."""

    def __init__(self, fs):
        self.fs = fs

    def join(self, directory: str, name: str) -> str:
        return directory.rstrip("/") + "/" + name

    def open_write(self, path: str):
        return self.fs.open(path, "wb")

    def open_read(self, path: str):
        return self.fs.open(path, "rb")

    def exists(self, path: str) -> bool:
        return self.fs.exists(path)

    def makedirs(self, path: str):
        self.fs.makedirs(path, exist_ok=True)

    def is_dir(self, path: str) -> bool:
        return self.fs.isdir(path)

    def remove_empty_dir(self, path: str):
        try:
            if not self.fs.ls(path, detail=False):
                self.fs.rmdir(path)
        except (OSError, NotImplementedError):  # (an object store has no directories to remove)
            pass

    def names(self, directory: str) -> List[str]:
        try:
            listed = self.fs.ls(directory, detail=False, refresh=True)
        except TypeError:  # (a filesystem without a listings cache)
            listed = self.fs.ls(directory, detail=False)
        except FileNotFoundError:  # an object store's "directory" with nothing in it yet
            return []
        return [p.rstrip("/").rsplit("/", 1)[-1] for p in listed]

    def rename(self, source: str, target: str):
        self.fs.mv(source, target)

    def remove(self, path: str):
        try:
            self.fs.rm(path)
        except FileNotFoundError:
            pass

    def writable(self, directory: str) -> bool:
        return True  # known only by writing


def storage_for(path: str, error):
    """(storage, the path in it) for a local path or a URL."""
    if is_url(path):
        fs, inner = url_filesystem(path, error)
        return UrlStorage(fs), inner
    return LocalStorage(), path
