"""What a run knows of its inputs before it reads them: each input's size on disk and whether it
is a plain (uncompressed) file, found once (for the progress bar's total and the chunk sizes of
a parallel run)."""
from __future__ import annotations

import os
from typing import List, NamedTuple, Optional, Sequence

from pgntools.inputs.streams import MAGIC


class InputInfo(NamedTuple):
    source: str
    size: Optional[int]  # bytes on disk; None for stdin, URLs and what is not a regular file
    plain: bool          # a regular file that is not compressed (its size is its stream's size)


def describe(sources: Sequence[str]) -> List[InputInfo]:
    infos = []
    for source in sources:
        if source == "-" or not os.path.isfile(source):
            infos.append(InputInfo(source, None, False))
            continue
        with open(source, "rb") as f:
            head = f.read(6)
        infos.append(InputInfo(source, os.path.getsize(source), not any(head.startswith(m) for m, _ in MAGIC)))
    return infos


def total_size(infos: Sequence[InputInfo]) -> Optional[int]:
    """The inputs' bytes on disk, None when one of them has no known size."""
    sizes = [info.size for info in infos]
    return None if None in sizes else sum(sizes)


def plain_size(infos: Sequence[InputInfo]) -> int:
    """Bytes of the plain files among the inputs (a lower bound of the stream's size)."""
    return sum(info.size for info in infos if info.plain)
