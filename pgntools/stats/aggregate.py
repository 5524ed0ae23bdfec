"""What `pgntools stats` counts, a batch at a time over the batch's columns (Arrow compute; Python
loops only over a batch's distinct values or bins, never over its games), into bounded,
mergeable aggregates (pgntools.stats.counts). ``Aggregates.to_dict()`` is the --json document."""
from __future__ import annotations

from typing import Dict, List

import pyarrow as pa
import pyarrow.compute as pc

from pgntools.reader import ERROR_KINDS, FIX_KINDS, FIX_RESULT_MARKER, FIX_RESULT_TAG, HAS_BITS, NOTE_KINDS, \
    OUTCOMES, RESULTS, STATUSES, GameBatch
from pgntools.reader import SPEEDS as SPEED_CODES
from pgntools.sinks import tables
from pgntools.sinks.arrays import ints, numeric, scalar, strings, text
from pgntools.stats.counts import Counts, Histogram, add_counts, quantile_of

SCHEMA_VERSION = 1
TOP = 20            # values shown per top-N list
EXAMPLES = 3        # example games per error kind
STANDARD_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The tags whose absence the report counts (a missing tag only reduces its chart's counts).
FIELDS = ("Event", "Site", "Date", "White", "Black", "Result", "WhiteElo", "BlackElo", "ECO", "Opening",
          "TimeControl", "Termination", "UTCDate")
UNKNOWN = text(["", "?", "-", "??", "????.??.??"])
# Constants made from buffers: a Python value given to Arrow compute imports pandas (see sinks/arrays.py).
FALSE = pc.equal(ints([0], pa.int8()), ints([1], pa.int8()))[0]
NO_STRING = pa.nulls(1, pa.string())[0]
HALF_POINTS = ints([0, 2, 0, 1, 0], pa.int64())  # by result code: 1-0 2, 0-1 0, draw 1
# Clock bins (seconds): 1 s under a minute, 10 s to 10 minutes, 1 minute to an hour, 5 minutes to
# 3 hours, then one bin: the quantiles of clock usage are exact to the width of their bin.
CLOCK_EDGES = ([float(s) for s in range(0, 60)] + [float(s) for s in range(60, 600, 10)]
               + [float(s) for s in range(600, 3600, 60)] + [float(s) for s in range(3600, 10800, 300)] + [10800.0])
CLOCK_SEGMENTS = ((0, 60, 1), (60, 600, 10), (600, 3600, 60), (3600, 10800, 300))  # low, high, width
CLOCK_BINS = len(CLOCK_EDGES)  # the last bin: 3 hours or more
MAX_MOVE = 150      # clock usage by move number up to this (later moves: the last bucket)
SPEEDS = ("ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown")
SPEED_NAMES = SPEED_CODES  # the speed column's codes: ["", "ultrabullet", ...]


def known(values: pa.Array) -> pa.Array:
    """A tag column with the PGN "unknown" values (?, -, empty) as nulls."""
    return pc.if_else(pc.is_in(values, value_set=UNKNOWN), NO_STRING, values)


class Aggregates:
    """Every aggregate of the report; ``update(batch)`` adds a batch, ``merge(other)`` a part."""

    def __init__(self):
        self.games = 0
        self.read = 0  # games read, before the selection (--where)
        self.status = [0] * len(STATUSES)
        self.errors, self.notes, self.fixes = Counts(), Counts(), Counts()
        self.examples: Dict[str, List[dict]] = {}
        self.results = [0] * len(RESULTS)
        self.outcomes = [0] * len(OUTCOMES)
        self.automatic_ends = [0] * len(OUTCOMES)
        self.plies = Histogram(0, 10, 40)
        self.white_elo, self.black_elo = Histogram(0, 50, 70), Histogram(0, 50, 70)
        # rating difference (White - Black) in bins of 50 from -800: games, White's half points
        self.difference = Histogram(-800, 50, 32)
        self.difference_points = [0] * 32
        self.present = {tag: 0 for tag in FIELDS}
        self.eco, self.opening, self.first_moves = Counts(), Counts(), Counts()
        self.termination, self.time_controls, self.events, self.players = Counts(), Counts(), Counts(), Counts()
        self.months, self.years_only = Counts(), Counts()
        self.speeds = Counts()
        self.clock_games = 0
        self.clocks = [0] * ((MAX_MOVE + 1) * CLOCK_BINS)  # [move number][clock bin]
        self.sources: Dict[str, Dict[str, int]] = {}

    # ---------------------------------------------------------------- one batch

    def update(self, batch: GameBatch):
        n = batch.n_games
        source = self.sources.setdefault(batch.source, {"games": 0, "invalid": 0, "pgn_bytes": 0})
        source["games"] += n
        self.read += n if batch.games_read is None else batch.games_read
        if not n:
            return
        self.games += n
        status = batch.raw["status"]
        for code in set(status):
            self.status[code] += status.count(code)
        source["invalid"] += status.count(2)
        source["pgn_bytes"] += pc.sum(numeric(batch, "length", pa.int64())).as_py()
        self._validity(batch)
        for name, counts in (("result", self.results), ("outcome", self.outcomes),
                             ("automatic_end", self.automatic_ends)):
            column = batch.raw[name]
            for code in set(column):
                counts[code] += column.count(code)
        self.plies.add(numeric(batch, "ply_count", pa.int32()))
        tags = tables.tag_columns(batch, strings(batch, "tag_value"))
        self._tags(batch, {tag: known(values) for tag, values in tags.items()})
        self._moves(batch)

    def _validity(self, batch: GameBatch):
        kinds = numeric(batch, "error_kind", pa.uint8())
        self.errors.add(pc.take(text(ERROR_KINDS), kinds))
        self.notes.add(pc.take(text(NOTE_KINDS), numeric(batch, "note_kind", pa.uint8())))
        self.fixes.add(pc.take(text(FIX_KINDS), numeric(batch, "fix_kind", pa.uint8())))
        fixes = batch.raw["fixes"]
        result_fixes = [("result_tag", sum(fixes.count(b) for b in set(fixes) if b & FIX_RESULT_TAG)),
                        ("result_marker", sum(fixes.count(b) for b in set(fixes) if b & FIX_RESULT_MARKER))]
        self.fixes.add_counts([(k, c) for k, c in result_fixes if c])
        if len(kinds):  # the first few games of each error kind (only games with errors are looked at)
            wanted = [k for k in set(batch.raw["error_kind"])
                      if len(self.examples.get(ERROR_KINDS[k], ())) < EXAMPLES]
            offsets, plies = batch.column("error_offset"), batch.column("error_ply")
            raw_kinds = batch.raw["error_kind"]
            for k in wanted:
                examples = self.examples.setdefault(ERROR_KINDS[k], [])
                row = raw_kinds.find(bytes([k]))
                while row >= 0 and len(examples) < EXAMPLES:
                    examples.append({"source": batch.source, "offset": offsets[row], "ply": plies[row] or None})
                    row = raw_kinds.find(bytes([k]), row + 1)

    def _tags(self, batch: GameBatch, tags: Dict[str, pa.Array]):
        for tag in FIELDS:
            self.present[tag] += len(tags[tag]) - tags[tag].null_count
        white, black = tables.integers(tags["WhiteElo"]), tables.integers(tags["BlackElo"])
        self.white_elo.add(white)
        self.black_elo.add(black)
        self._difference(batch, white, black)
        self.eco.add(tags["ECO"])
        self.opening.add(tags["Opening"])
        self.termination.add(tags["Termination"])
        self.events.add(tags["Event"])
        self.players.add(tags["White"])
        self.players.add(tags["Black"])
        time_control = tags["TimeControl"]
        self.time_controls.add(time_control)
        # the games table's speed column (C, from TimeControl by Lichess's rule); a TimeControl
        # the rule cannot read ('?', prose) is "unknown", a game without the tag is not counted
        codes = pc.filter(numeric(batch, "speed", pa.uint8()), pc.is_valid(time_control))
        counted = pc.value_counts(codes)
        speeds: Dict[str, int] = {}
        for code, count in zip(counted.field(0).to_pylist(), counted.field(1).to_pylist()):
            speeds[SPEED_NAMES[code] or "unknown"] = count
        self.speeds.add_counts(sorted(speeds.items()))
        self._months(tags["Date"], tags["UTCDate"])

    def _difference(self, batch: GameBatch, white: pa.Array, black: pa.Array):
        """Games and White's score per bin of rating difference (decided games and draws)."""
        result = numeric(batch, "result", pa.uint8())
        decided = pc.and_(pc.greater_equal(result, scalar(1, pa.uint8())), pc.less_equal(result, scalar(3, pa.uint8())))
        rated = pc.and_(pc.and_(pc.is_valid(white), pc.is_valid(black)), decided)
        rated = pc.fill_null(rated, FALSE)
        if not pc.any(rated).as_py():
            return
        bins = self.difference.bin_of(pc.filter(pc.subtract(white, black), rated))
        # half points: 1-0 (code 1) 2, 0-1 (code 2) 0, draw (code 3) 1
        half_points = pc.take(HALF_POINTS, pc.filter(result, rated))
        # one value_counts of bin * 3 + half points (a group_by with weights is ~5x slower)
        counted = pc.value_counts(pc.add(pc.multiply(bins, scalar(3, pa.int64())), half_points))
        for key, n in zip(counted.field(0).to_pylist(), counted.field(1).to_pylist()):
            self.difference.counts[key // 3] += n
            self.difference_points[key // 3] += (key % 3) * n

    def _months(self, date: pa.Array, utc_date: pa.Array):
        """Games per month of the Date tag (the UTCDate when Date has no known year)."""
        date = pc.coalesce(pc.if_else(pc.match_substring_regex(date, r"^[0-9]{4}\."), date, NO_STRING),
                           utc_date)
        with_month = pc.fill_null(pc.match_substring_regex(date, r"^[0-9]{4}\.[0-9]{2}"), FALSE)
        self.months.add(pc.utf8_slice_codeunits(pc.filter(date, with_month), 0, 7))
        year_only = pc.and_(pc.invert(with_month), pc.fill_null(pc.match_substring_regex(date, r"^[0-9]{4}"), FALSE))
        self.years_only.add(pc.utf8_slice_codeunits(pc.filter(date, year_only), 0, 4))

    def _moves(self, batch: GameBatch):
        n_moves = len(batch.raw["ply"]) // 2
        if not n_moves:
            return
        ply = numeric(batch, "ply", pa.int16())
        owner = tables.parents(tables.offsets(batch, "move_start", n_moves), n_moves)
        standard = pc.equal(strings(batch, "start_fen"), text([STANDARD_START])[0])
        first = pc.and_(pc.equal(ply, scalar(1, pa.int16())), pc.take(standard, owner))
        self.first_moves.add(pc.filter(strings(batch, "san"), first))
        has = numeric(batch, "has", pa.uint8())
        with_clock = pc.not_equal(pc.bit_wise_and(has, scalar(HAS_BITS["clock"], pa.uint8())), scalar(0, pa.uint8()))
        if not pc.any(with_clock).as_py():
            return
        self.clock_games += pc.count_distinct(pc.filter(owner, with_clock)).as_py()
        clock = pc.filter(numeric(batch, "clock", pa.float64()), with_clock)
        move = pc.divide(pc.add(pc.filter(ply, with_clock).cast(pa.int64()), scalar(1, pa.int64())),
                         scalar(2, pa.int64()))
        move = pc.min_element_wise(move, scalar(MAX_MOVE, pa.int64()))
        key = pc.add(pc.multiply(move, scalar(CLOCK_BINS, pa.int64())), clock_bin(clock))
        add_counts(self.clocks, key)

    # ---------------------------------------------------------------- parallel runs

    def merge(self, other: "Aggregates"):
        self.games += other.games
        self.read += other.read
        for name in ("status", "results", "outcomes", "automatic_ends", "difference_points", "clocks"):
            setattr(self, name, [a + b for a, b in zip(getattr(self, name), getattr(other, name))])
        for name in ("errors", "notes", "fixes", "eco", "opening", "first_moves", "termination", "time_controls",
                     "events", "players", "months", "years_only", "speeds"):
            getattr(self, name).merge(getattr(other, name))
        for name in ("plies", "white_elo", "black_elo", "difference"):
            getattr(self, name).merge(getattr(other, name))
        for tag, n in other.present.items():
            self.present[tag] += n
        for kind, examples in other.examples.items():  # parts come in input order: the first ones stay
            mine = self.examples.setdefault(kind, [])
            mine += examples[:EXAMPLES - len(mine)]
        self.clock_games += other.clock_games
        for name, counts in other.sources.items():
            mine = self.sources.setdefault(name, {"games": 0, "invalid": 0, "pgn_bytes": 0})
            for key, n in counts.items():
                mine[key] += n

    # ---------------------------------------------------------------- the JSON document

    def to_dict(self) -> dict:
        errors = self.errors.as_dict()
        return {
            "schema_version": SCHEMA_VERSION,
            "games": self.games,
            "games_read": self.read,
            "validity": {name: self.status[i] for i, name in enumerate(STATUSES)},
            "errors": {kind: {"count": n, "examples": self.examples.get(kind, [])} for kind, n in errors.items()},
            "fixes": self.fixes.as_dict(),
            "notes": self.notes.as_dict(),
            "results": {(name or "none"): self.results[i] for i, name in enumerate(RESULTS)},
            "outcomes": {name: self.outcomes[i] for i, name in enumerate(OUTCOMES) if name},
            "automatic_ends": {name: self.automatic_ends[i] for i, name in enumerate(OUTCOMES) if name},
            "termination": self.termination.top(TOP),
            "plies": self.plies.as_dict(),
            "white_elo": self.white_elo.as_dict(),
            "black_elo": self.black_elo.as_dict(),
            "rating_difference": self.rating_difference(),
            "eco": self.eco.top(TOP),
            "opening": self.opening.top(TOP),
            "first_moves": self.first_moves.top(TOP),
            "months": dict(sorted(self.months.items())),
            "years_without_month": dict(sorted(self.years_only.items())),
            "speeds": {name: self.speeds.as_dict().get(name, 0) for name in SPEEDS},
            "time_controls": self.time_controls.top(TOP),
            "events": self.events.top(TOP),
            "players": self.players.top(TOP),
            "clock_usage": self.clock_usage(),
            "fields": {tag: {"present": n, "missing": self.games - n} for tag, n in self.present.items()},
            "sources": [{"name": name, **counts} for name, counts in self.sources.items()],
        }

    def rating_difference(self) -> dict:
        h = self.difference
        return {"low": h.low, "bin_width": h.width, "games": list(h.counts),
                "white_score": [round(p / 2 / g, 4) if g else None for p, g in zip(self.difference_points, h.counts)],
                "note": "White's rating minus Black's, games with both ratings and a result 1-0, 0-1 or 1/2-1/2; "
                        "white_score: White's points per game in the bin (the Elo formula expects "
                        "1 / (1 + 10^(-d/400)))"}

    def clock_usage(self) -> dict:
        """Seconds left on the mover's clock by move number: quartiles from the binned clocks."""
        rows = []
        for move in range(1, MAX_MOVE + 1):
            counts = self.clocks[move * CLOCK_BINS:(move + 1) * CLOCK_BINS]
            n = sum(counts)
            if n:
                edges = CLOCK_EDGES + [CLOCK_EDGES[-1]]
                rows.append({"move": move, "clocks": n, "q1": quantile_of(counts, edges, 0.25),
                             "median": quantile_of(counts, edges, 0.5), "q3": quantile_of(counts, edges, 0.75)})
        return {"games_with_clocks": self.clock_games, "by_move": rows,
                "note": "[%clk] of each move (both sides), by move number (the last holds later moves too); "
                        "quartiles exact to 1 s under a minute, 10 s under 10 minutes, 1 minute under an hour"}


def clock_bin(clock: pa.Array) -> pa.Array:
    """Each clock value's bin in CLOCK_EDGES (int64)."""
    clock = pc.max_element_wise(clock, scalar(0.0, pa.float64()))
    result = pa.repeat(scalar(CLOCK_BINS - 1, pa.int64()), len(clock))
    first_bin = 0
    for low, high, width in CLOCK_SEGMENTS:
        inside = pc.and_(pc.greater_equal(clock, scalar(float(low), pa.float64())),
                         pc.less(clock, scalar(float(high), pa.float64())))
        index = pc.add(pc.floor(pc.divide(pc.subtract(clock, scalar(float(low), pa.float64())),
                                          scalar(float(width), pa.float64()))).cast(pa.int64()),
                       scalar(first_bin, pa.int64()))
        result = pc.if_else(inside, index, result)
        first_bin += (high - low) // width
    return result
