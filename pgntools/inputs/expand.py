"""FILES as given on the command line: a directory stands for the PGN files in it, a glob pattern
(``*``, ``?``, ``[``; ``**`` for subdirectories) for the files it matches, locally or through fsspec
(``s3://bucket/2024-*.pgn.zst``), each in sorted order, so that a run's input order (and game_id)
is the same every time. A directory without PGN files or a pattern that matches nothing is an
error (exit 2), as a missing file is."""
from __future__ import annotations

import os
from typing import List, Sequence

from pgntools.errors import InputError
from pgntools.storage import is_url, url_filesystem

PGN_NAMES = (".pgn", ".pgn.gz", ".pgn.gzip", ".pgn.bz2", ".pgn.xz", ".pgn.lzma", ".pgn.zst", ".pgn.zstd", ".zip")
_MAGIC = ("*", "?", "[")


def expand_inputs(files: Sequence[str]) -> List[str]:
    out: List[str] = []
    for name in files:
        if name == "-":
            out.append(name)
        elif is_url(name):
            out += _url(name)
        elif os.path.isdir(name):
            found = sorted(os.path.join(name, f) for f in os.listdir(name)
                           if f.lower().endswith(PGN_NAMES) and os.path.isfile(os.path.join(name, f)))
            if not found:
                raise InputError(f"{name}: a directory without PGN files ({', '.join(PGN_NAMES)})")
            out += found
        elif any(c in name for c in _MAGIC) and not os.path.exists(name):
            import glob  # (only for a pattern: not on every run's start-up)

            found = sorted(p for p in glob.glob(name, recursive=True) if os.path.isfile(p))
            if not found:
                raise InputError(f"{name}: matches no file")
            out += found
        else:
            out.append(name)
    return out


def _url(name: str) -> List[str]:
    if not any(c in name.split("://", 1)[1] for c in _MAGIC):
        return [name]
    fs, path = url_filesystem(name, InputError)
    protocol = name.split("://", 1)[0]
    found = sorted(fs.glob(path))
    if not found:
        raise InputError(f"{name}: matches no file")
    return [f"{protocol}://{p}" for p in found]
