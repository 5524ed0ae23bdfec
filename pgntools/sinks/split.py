"""`split`: the selected games into one file per N games (``--games N``) or per value of a field
(``--by event``), each game byte for byte as in the input (as `filter` writes it) or in the export
format (``--normalize``).

The parts are written as `AtomicOutput`s (pgntools.outputs): each under a hidden temporary name
beside its final one, all renamed when the run succeeds, all removed when it fails. At most
``max_open`` of them are open at a time (least recently used closed first; a part written again
is reopened and appended to, a compressed one as a new gzip member or zstd frame, which readers
join). In a parallel run the workers send their chunk's games back, grouped by value, and this
process writes them in input order: the files are the same for any --jobs and on a cluster.

A field is a column of the games table with one value a game (pgntools.tables.game_fields.names(): a
new games column is a field without more code) or one derived from one (DERIVED: one line each).
"""
from __future__ import annotations

import io
import os
from collections import OrderedDict
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from pgntools.errors import OutputError
from pgntools.outputs import AtomicOutput, _compressor, _file_id, input_ids
from pgntools.reader import GameBatch
from pgntools.sinks.base import Sink
from pgntools.sinks.pgn import ended
from pgntools.sinks.split_names import NameTable, Template, placeholders

# Columns with a value of their own for (nearly) every game: one file a game, not a split.
NOT_FIELDS = ("game_id", "offset", "final_fen")


def _date_part(pattern: str) -> Callable:
    """A derived field from a PGN date's leading parts (named groups, joined with '-'); null when
    one of them is unknown (`2023.??.??` has no month)."""

    def derive(values):
        import pyarrow as pa
        import pyarrow.compute as pc

        parts = pc.extract_regex(values, pattern)
        fields = [parts.field(i) for i in range(parts.type.num_fields)]
        joined = fields[0] if len(fields) == 1 else pc.binary_join_element_wise(*fields, "-")
        return pc.if_else(pc.is_valid(parts), joined, pa.nulls(1, pa.string())[0])

    return derive


class Derived(NamedTuple):
    column: str      # the games column it is derived from
    derive: Callable  # that column's cleaned values (Arrow strings, null for unknown) -> the field's
    doc: str


DERIVED = {
    "date-month": Derived("date", _date_part(r"^(?P<y>[0-9]{4})\.(?P<m>[0-9]{2})"), "YYYY-MM of the Date tag"),
    "year": Derived("date", _date_part(r"^(?P<y>[0-9]{4})"), "YYYY of the Date tag"),
}
# Values shown under another name in file names (the checked result is one of these four).
RENAMED = {"result": {b"1/2-1/2": b"draw", b"*": b"unfinished"}}


def fields() -> List[str]:
    """The names --by takes: the games columns with one value a game, and the derived fields."""
    from pgntools.tables.game_fields import names

    return [name for name in names() if name not in NOT_FIELDS] + list(DERIVED)


def field_needs(field: str) -> Dict[str, object]:
    from pgntools.tables.game_fields import names

    return dict(names()[DERIVED[field].column if field in DERIVED else field].needs)


def group_values(batch: GameBatch, field: str) -> List[Optional[bytes]]:
    """Each game's value of ``field`` as bytes (None: absent, `?`, `-` or empty): one Arrow
    column a batch, then one list."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from pgntools.tables import build
    from pgntools.tables.game_fields import names

    derived = DERIVED.get(field)
    column = names()[derived.column if derived else field].column
    values = build.table(batch, "games", [column]).column(0).combine_chunks()
    if isinstance(values.type, pa.DictionaryType):
        values = values.dictionary_decode()
    values = values.cast(pa.string())
    unknown = pc.fill_null(pc.is_in(values, value_set=pa.array(["?", "-", ""], pa.string())), False)
    values = pc.if_else(unknown, pa.nulls(1, pa.string())[0], values)
    if derived:
        values = derived.derive(values)
    found = values.cast(pa.binary()).to_pylist()
    renamed = RENAMED.get(field)
    return [renamed.get(v, v) for v in found] if renamed else found


def game_texts(batch: GameBatch, normalize: bool) -> List[Optional[bytes]]:
    """Each game's text as filter writes it (its input bytes and a blank line in its own line
    ends; with ``normalize`` the export format, None for an invalid game), None when empty."""
    offsets_raw, data = batch.string_buffers("pgn" if normalize else "raw")
    if not data:
        return [None] * batch.n_games
    offsets = memoryview(offsets_raw).cast("i")
    texts: List[Optional[bytes]] = []
    for i in range(batch.n_games):
        a, z = offsets[i], offsets[i + 1]
        texts.append(None if a == z else data[a:z] if normalize else ended(data[a:z]))
    return texts


class SplitPlan(NamedTuple):
    """What every split sink of a run needs (picklable: it goes to the workers with the specs).
    ``outcome`` is filled by the parent's sink when it commits ({"files": n})."""

    template: str
    by: Optional[str]        # the field, or None: --games
    games: Optional[int]     # games a part (--games)
    normalize: bool
    max_open: int
    inputs: Tuple[str, ...]  # no part may be one of them
    others: Tuple[str, ...]  # the run's other output files (--rejects, --report, --summary)
    outcome: dict
    pgn_shape: Optional[dict] = None  # with normalize: the writer's output options (PgnSink's pgn_shape, line_length)
    game_format: str = "pgn"  # json: each valid or fixed game a JSON line (pgntools.sinks.json_games)

    def parsed(self) -> Template:
        return Template(self.template, self.by or "n", fields(), by=self.by is not None)

    @property
    def needs(self) -> Dict[str, object]:
        needs: Dict[str, object] = {"pgn": True, "tag_values": True} if self.normalize else {"raw_all": True}
        if self.game_format == "json":
            from pgntools.sinks.json_games import NEEDS

            needs = dict(NEEDS)
        if self.normalize and self.pgn_shape:
            needs.update((k, v) for k, v in self.pgn_shape.items() if k != "split_variations")
        if self.by:
            needs.update(field_needs(self.by))
        return needs


class PartFile(AtomicOutput):
    """One part: an AtomicOutput that can be closed (``suspend``) and later appended to again
    (``resume``), with a small buffer (max_open of them are open at once)."""

    BUFFER = 64 << 10
    suspended = False

    def _open(self, path: str):
        if os.path.lexists(path) and not os.path.isfile(path):
            raise OutputError(f"{path}: exists and is not a regular file: split writes regular files")
        super()._open(path)
        self.file = io.BufferedWriter(self.file.detach(), self.BUFFER)

    def suspend(self):
        if self.compression:
            self.file.close()  # ends this member (frame); the file under it stays open
        self.raw.close()
        self.suspended = True

    def resume(self):
        self.raw = open(self.tmp, "ab", buffering=self.BUFFER)
        self.file = _compressor(self.compression, self.raw) if self.compression else self.raw
        self.suspended = False

    def commit(self):
        if not self.suspended:
            return super().commit()
        os.chmod(self.tmp, 0o644)
        os.rename(self.tmp, self.target)
        self.tmp = None

    def abort(self):
        if not self.suspended:
            return super().abort()
        if self.tmp is not None:
            os.remove(self.tmp)
            self.tmp = None


class PartFiles:
    """The parts of one run, by path, at most ``max_open`` open (LRU). Refuses a part that is an
    input or another output of the run."""

    def __init__(self, directory: str, max_open: int, inputs: Sequence[str], others: Sequence[str]):
        self.max_open = max_open
        self.parts: Dict[str, PartFile] = {}      # path -> part, in the order they were made
        self.open: "OrderedDict[str, PartFile]" = OrderedDict()  # least recently written first
        self.inputs = input_ids(inputs)
        self.others = {os.path.realpath(p): p for p in others}
        self.made_dirs: List[str] = []
        self._make_directory(directory)

    def _make_directory(self, directory: str):
        missing = []
        while directory and not os.path.exists(directory):
            missing.append(directory)
            directory = os.path.dirname(directory)
        for path in reversed(missing):
            try:
                os.mkdir(path)
            except OSError as exc:
                raise OutputError(f"{path}: cannot create the directory: {exc.strerror}") from None
            self.made_dirs.append(path)

    def append(self, path: str, data: bytes):
        part = self.open.get(path)
        if part is not None:
            self.open.move_to_end(path)
        else:
            part = self.parts.get(path)
            self._make_room()
            if part is None:
                part = self.parts[path] = self._create(path)
            else:
                part.resume()
            self.open[path] = part
        part.write(data)

    def _create(self, path: str) -> PartFile:
        key = _file_id(path)
        if key is not None and key in self.inputs:
            raise OutputError(f"-o: the part {path} is the input {self.inputs[key]} (the same file): an input is "
                              "never overwritten; write the parts elsewhere")
        other = self.others.get(os.path.realpath(path))
        if other is not None:
            raise OutputError(f"-o: the part {path} and {other}: one file for two outputs")
        return PartFile(path)

    def _make_room(self):
        while len(self.open) >= self.max_open:
            _, oldest = self.open.popitem(last=False)
            oldest.suspend()

    def commit(self):
        done = []
        try:
            for part in self.parts.values():
                part.commit()
                done.append(part.target)
        except BaseException:  # no part left when the run fails, even one renamed already
            for target in done:
                os.remove(target)
            raise

    def abort(self):
        for part in self.parts.values():
            try:
                part.abort()
            except OSError:  # (the failure that aborts the run may be this file's)
                pass
        for path in reversed(self.made_dirs):
            try:
                os.rmdir(path)
            except OSError:  # not empty: something else is there now
                pass


class SplitSink(Sink):
    """The parent's sink (``chunk`` None) writes the parts; a worker's (on its ChunkOutput) keeps
    its chunk's games, as (value, text) runs in input order, for the parent's ``merge``."""

    def __init__(self, plan: SplitPlan, chunk=None):
        self.plan = plan
        self.needs = plan.needs
        self.worker = chunk is not None
        self.runs: List[Tuple[Optional[bytes], List[bytes]]] = []  # a worker's
        if not self.worker:
            self.template = plan.parsed()
            self.files = PartFiles(self.template.directory, plan.max_open, plan.inputs, plan.others)
            self.names = NameTable()
            self.part, self.in_part = 1, 0  # --games: the part being written, its games so far

    def write(self, batch: GameBatch):
        if self.plan.game_format == "json":
            from pgntools.sinks.json_games import game_lines

            texts = game_lines(batch)
        else:
            texts = game_texts(batch, self.plan.normalize)
        if self.plan.normalize and (self.plan.pgn_shape or {}).get("split_variations"):  # (each variation a game)
            from pgntools.split_variations import split_game

            width = self.plan.pgn_shape["line_length"]
            texts = [None if t is None else split_game(t.decode("utf-8"), width).encode("utf-8") for t in texts]
        values = group_values(batch, self.plan.by) if self.plan.by else None
        run_value, run = None, []
        for g, text in enumerate(texts):
            if text is None:
                continue
            value = values[g] if values is not None else None
            if values is not None and run and value != run_value:
                self._take(run_value, b"".join(run))
                run = []
            if values is None:  # --games: game by game (a part may end at any of them)
                self._take(None, text)
            else:
                run_value = value
                run.append(text)
        if run:
            self._take(run_value, b"".join(run))

    def _take(self, value: Optional[bytes], data: bytes):
        """One game (--games) or a run of games of one value (--by), in input order."""
        if self.worker:
            if self.plan.by and self.runs and self.runs[-1][0] == value:
                self.runs[-1][1].append(data)
            else:
                self.runs.append((value, [data]))
            return
        if self.plan.by:
            self.files.append(self.template.name(self.names(value)), data)
            return
        if self.in_part == self.plan.games:
            self.part, self.in_part = self.part + 1, 0
        self.files.append(self.template.name(self.part), data)
        self.in_part += 1

    def commit(self):
        if not self.worker:
            self.files.commit()
            self.plan.outcome["files"] = len(self.files.parts)

    def abort(self):
        if not self.worker:
            self.files.abort()

    def finish_chunk(self):
        return [(value, b"".join(parts)) for value, parts in self.runs]

    def merge(self, runs):
        for value, data in runs:
            self._take(value, data)


def split_plan(template: str, games: Optional[int], by: Optional[str], normalize: bool, max_open: int,
               inputs: Sequence[str], others: Sequence[Optional[str]], pgn_shape: Optional[dict] = None,
               game_format: str = "pgn") -> SplitPlan:
    """The plan of a split, its options checked (an OptionError, before any input is read)."""
    from pgntools.usage import OptionError

    if games is None and by is None:
        by = _field_of(template)
    if (games is None) == (by is None):
        raise OptionError("split needs one of --games N (N games a file) and --by FIELD (a file per value), "
                          "not " + ("both" if games is not None else "neither"))
    if by is not None and by not in fields():
        from pgntools.tables.game_fields import close_names

        close = close_names(by, fields())
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise OptionError(f"--by {by}: no such field: {hint}the fields are {', '.join(fields())}")
    plan = SplitPlan(template, by, games, normalize, max_open, tuple(inputs),
                     tuple(p for p in others if p not in (None, "-")), {}, pgn_shape, game_format)
    plan.parsed()  # the template's mistakes, now
    return plan


def _field_of(template: str) -> Optional[str]:
    """The --by FIELD a template without --games or --by names: its one placeholder, when that is a
    field (-o events/{event}.pgn means --by event); None otherwise (the usage error says what to add)."""
    from pgntools.usage import OptionError

    try:
        names = {p[0] for p in placeholders(os.path.basename(template), template, keep_literals=True)
                 if isinstance(p, tuple)}
    except OptionError:
        return None  # a malformed template: the error comes with the plan
    return names.pop() if len(names) == 1 and names <= set(fields()) else None
