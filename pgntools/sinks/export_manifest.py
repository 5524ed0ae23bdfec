"""export's manifest, OUT_DIR/_pgntools_export.json: what an export has committed so far, so that
``export --resume`` continues an interrupted one (a killed client, a cluster that lost its last
worker) from where its committed parts end, with the result of an uninterrupted run.

A part holds a range of game ids (pgntools.sinks.parquet.part_games), so "committed" is a number:
the parts below ``committed_parts`` are under their final names (listed in ``files``). ``resume``
says where in the inputs to read again: an input (by index and name), a stream offset at which a
game starts, its line and game id; the games read there below ``committed_parts`` x
``part_games`` are in committed parts already and are left out. The manifest is written under a
temporary name and renamed (never half-written), each time parts are committed; its name starts
with '_', which DuckDB, Spark and pyarrow's dataset discovery skip.

Committing parts renames several files (games and moves, each partition's), which no file system
does at once: the manifest first lists them under ``committing`` (written ahead), then they are
renamed, then the manifest counts them committed. A run killed in between leaves some of them
under final names; ``--resume`` removes those (they are read and written again)."""
from __future__ import annotations

import json
from typing import List, NamedTuple, Optional

from pgntools.errors import OutputError

MANIFEST = "_pgntools_export.json"
FORMAT = "pgntools-export/1"


class ResumePoint(NamedTuple):
    """Where a resumed run reads from: the input ``index`` of the run's inputs (``source`` its
    name), the stream ``offset`` of a game's first byte, that byte's ``line``, the game's id."""

    index: int
    source: str
    offset: int
    line: int
    first_game: int


class Manifest:
    """The manifest of one export run into a dataset (``storage``, its root ``root``)."""

    def __init__(self, storage, root: str, inputs: List[list], settings: dict, first_part: int, part_games: int):
        self.storage, self.root = storage, root
        self.state = {"format": FORMAT, "inputs": inputs, "settings": settings, "first_part": first_part,
                      "part_games": part_games, "committed_parts": 0, "files": {"games": [], "moves": []},
                      "committing": [], "resume": None, "complete": False}
        self.previous: Optional[bytes] = None  # the manifest before this run (restored if it fails)
        self.loaded = False

    @property
    def path(self) -> str:
        return self.storage.join(self.root, MANIFEST)

    def remember_previous(self):
        self.previous = read_bytes(self.storage, self.path)

    def intend(self, files: dict):
        """Written ahead of renaming ``files`` ({table: [paths]}) to their final names."""
        self.state["committing"] = [path for paths in files.values() for path in paths]
        self.write()

    def commit(self, committed_parts: int, files: dict, resume: Optional[ResumePoint], complete: bool = False):
        self.state.update(committed_parts=committed_parts, resume=resume._asdict() if resume else None,
                          complete=complete, committing=[])
        for table, paths in files.items():
            self.state["files"][table] += paths
        self.write()

    def write(self):
        temp = self.storage.join(self.root, f".{MANIFEST}.tmp")
        with self.storage.open_write(temp) as f:
            f.write(json.dumps(self.state, indent=1).encode())
        self.storage.rename(temp, self.path)

    def restore(self):
        """A failed run that leaves nothing: the manifest as it was before it."""
        if self.previous is None:
            self.storage.remove(self.path)
        else:
            with self.storage.open_write(self.path) as f:
                f.write(self.previous)


def read_bytes(storage, path: str) -> Optional[bytes]:
    try:
        with storage.open_read(path) as f:
            return f.read()
    except (FileNotFoundError, OSError):
        return None


def load(storage, root: str, shown: str) -> Optional[dict]:
    """The dataset's manifest (None: there is none)."""
    data = read_bytes(storage, storage.join(root, MANIFEST))
    if data is None:
        return None
    try:
        state = json.loads(data)
    except ValueError:
        raise OutputError(f"--resume: {shown}/{MANIFEST} is not an export manifest (not JSON)") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise OutputError(f"--resume: {shown}/{MANIFEST} is not a manifest this pgntools writes")
    return state


def check_same_run(state: dict, inputs: List[list], settings: dict, shown: str):
    """--resume continues the run the manifest describes: the same inputs, the same options."""
    if [list(i) for i in state["inputs"]] != [list(i) for i in inputs]:
        theirs = ", ".join(name for name, _ in state["inputs"])
        raise OutputError(f"--resume: {shown} was exported from other inputs ({theirs}, with their sizes then): "
                          "give the same inputs, or export elsewhere")
    if state["settings"] != settings:
        differ = sorted(k for k in set(state["settings"]) | set(settings) if state["settings"].get(k) != settings.get(k))
        raise OutputError(f"--resume: {shown} was exported with other options ({', '.join(differ)}): give the "
                          "options of the interrupted export")
