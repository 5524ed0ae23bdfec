"""What `pgntools stats` counts: a batch at a time in C (pgntools/_c/stats.c, one pass over the
batch's own buffers: histograms, counts by code, bounded value counts; no pyarrow, no Python per
game), plus the first example games of each error kind and each input's counts here.
``Aggregates.to_dict()`` is the --json document."""
from __future__ import annotations

from bisect import bisect_right
from typing import Dict, List, Optional

from pgntools import _core
from pgntools.reader import ERROR_KINDS, FIX_KINDS, NOTE_KINDS, OUTCOMES, RESULTS, STATUSES, VARIANTS, GameBatch
from pgntools.stats.counts import ValueCounts, histogram_dict, quantile_of, top_of_sources

SCHEMA_VERSION = 2  # 2: eco/opening from the opening classifier (each entry's source), sources' rates
TOP = 20            # values shown per top-N list
EXAMPLES = 3        # example games per error kind
# The tags whose absence the report counts (a missing tag only reduces its chart's counts): the
# order of stats.h's SF_ enum.
FIELDS = ("Event", "Site", "Date", "White", "Black", "Result", "WhiteElo", "BlackElo", "ECO", "Opening",
          "TimeControl", "Termination", "UTCDate")
# Clock bins (seconds): 1 s under a minute, 10 s to 10 minutes, 1 minute to an hour, 5 minutes to
# 3 hours, then one bin (stats.c): the quantiles of clock usage are exact to the width of their bin.
CLOCK_EDGES = list(_core.STATS_CLOCK_EDGES)
CLOCK_BINS = len(CLOCK_EDGES)  # the last bin: 3 hours or more
MAX_MOVE = _core.STATS_MAX_MOVES  # clock usage by move number up to this (later moves: the last bucket)
SPEEDS = ("ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown")
SPEED_NAMES = [name or "unknown" for name in _core.SPEEDS]  # the speed column's codes (0: unknown)
OPENING_SOURCES = ("table", "eco_tag", "custom_start_without_tag", "unnamed")  # stats.h's OS_ enum
TOTALS = ("games", "pgn_bytes", "clock_games", "result_tag_fixes", "result_marker_fixes")  # ST_ enum
SOURCE_COUNTS = ("games", "valid", "fixed", "invalid", "truncated", "pgn_bytes")


def _new_source() -> Dict[str, float]:
    return {**{key: 0 for key in SOURCE_COUNTS}, "seconds": 0.0}


def _by_count(pairs) -> dict:
    """Nonzero (name, count) pairs as a dict, largest count first, then by name."""
    return dict(sorted(((k, n) for k, n in pairs if n), key=lambda kn: (-kn[1], kn[0])))


class Aggregates:
    """Every aggregate of the report; ``update(batch)`` adds a batch, ``merge(other)`` a part
    (a worker's: pickled as plain lists and dicts)."""

    def __init__(self):
        self.counts = _core.StatsAccumulator()
        self.read = 0  # games read, before the selection (--where)
        self.examples: Dict[str, List[dict]] = {}
        self.sources: Dict[str, Dict[str, float]] = {}
        self._part: Optional[tuple] = None  # the counts read out (after the last batch)

    # ---------------------------------------------------------------- one batch

    def update(self, batch: GameBatch, seconds: float = 0.0):
        """Counts a batch; ``seconds``: the time its input took to read it (the source's rate)."""
        n = batch.n_games
        source = self.sources.setdefault(batch.source, _new_source())
        source["seconds"] += seconds
        self.read += n if batch.games_read is None else batch.games_read
        if not n:
            return
        self._part = None
        pgn_bytes, *by_status = self.counts.add(batch.raw)
        source["games"] += n
        source["pgn_bytes"] += pgn_bytes
        for status, count in zip(STATUSES, by_status):
            source[status] += count
        self._examples(batch)

    def _examples(self, batch: GameBatch):
        """The first few games of each error kind (only games with errors are looked at)."""
        raw_kinds = batch.raw["error_kind"]
        if not raw_kinds:
            return
        wanted = [k for k in set(raw_kinds) if len(self.examples.get(ERROR_KINDS[k], ())) < EXAMPLES]
        if not wanted:
            return
        offsets, plies = batch.column("error_offset"), batch.column("error_ply")
        for k in sorted(wanted):
            examples = self.examples.setdefault(ERROR_KINDS[k], [])
            row = raw_kinds.find(bytes([k]))
            while row >= 0 and len(examples) < EXAMPLES:
                game = bisect_right(batch.column("error_start"), row) - 1  # (the game the error row is of)
                examples.append({"source": batch.source, "offset": offsets[row], "ply": plies[row] or None,
                                 "message": _error_message(batch, game, row)})
                row = raw_kinds.find(bytes([k]), row + 1)

    # ---------------------------------------------------------------- parallel runs

    def part(self) -> tuple:
        if self._part is None:
            self._part = self.counts.part()
        return self._part

    def __getstate__(self):  # a worker's part: plain lists and dicts
        return {"read": self.read, "examples": self.examples, "sources": self.sources, "part": self.part()}

    def __setstate__(self, state):
        self.__init__()
        self.read, self.examples, self.sources = state["read"], state["examples"], state["sources"]
        self.counts.merge(state["part"])

    def merge(self, other: "Aggregates"):
        self._part = None
        self.counts.merge(other.part())
        self.read += other.read
        for kind, examples in other.examples.items():  # parts come in input order: the first ones stay
            mine = self.examples.setdefault(kind, [])
            mine += examples[:EXAMPLES - len(mine)]
        for name, counts in other.sources.items():
            mine = self.sources.setdefault(name, _new_source())
            for key, n in counts.items():
                mine[key] += n

    # ---------------------------------------------------------------- the JSON document

    @property
    def games(self) -> int:
        return self.part()[0]["totals"][0]

    def to_dict(self) -> dict:
        arrays, values = self.part()
        counts = {name: ValueCounts(*value) for name, value in values.items()}
        totals = dict(zip(TOTALS, arrays["totals"]))
        games = totals["games"]
        errors = _by_count(zip(ERROR_KINDS, arrays["errors"]))
        fixes = _by_count(list(zip(FIX_KINDS, arrays["fixes"])) + [("result_tag", totals["result_tag_fixes"]),
                                                                    ("result_marker", totals["result_marker_fixes"])])
        opening_sources = dict(zip(OPENING_SOURCES, arrays["opening_sources"]))
        return {
            "schema_version": SCHEMA_VERSION,
            "games": games,
            "games_read": self.read,
            "validity": {name: arrays["status"][i] for i, name in enumerate(STATUSES)},
            "errors": {kind: {"count": n, "examples": self.examples.get(kind, [])} for kind, n in errors.items()},
            "fixes": fixes,
            "notes": _by_count(zip(NOTE_KINDS, arrays["notes"])),
            "results": {(name or "none"): arrays["results"][i] for i, name in enumerate(RESULTS)},
            "outcomes": {name: arrays["outcomes"][i] for i, name in enumerate(OUTCOMES) if name},
            "automatic_ends": {name: arrays["automatic_ends"][i] for i, name in enumerate(OUTCOMES) if name},
            "termination": counts["termination"].top(TOP),
            "plies": histogram_dict(0, 10, arrays["plies"]),
            "white_elo": histogram_dict(0, 50, arrays["white_elo"]),
            "black_elo": histogram_dict(0, 50, arrays["black_elo"]),
            "rating_difference": self.rating_difference(arrays),
            "opening_sources": {**opening_sources, "note": (
                "where each game's opening comes from: table, the opening classifier (the Lichess opening "
                "table's deepest named position in the first 40 plies); eco_tag, the game's ECO/Opening tags "
                "(a custom start position the table cannot name); custom_start_without_tag; unnamed, a "
                "standard start whose positions the table does not name")},
            "eco": top_of_sources([("table", counts["eco"]), ("eco_tag", counts["eco_tag"])], TOP),
            "opening": top_of_sources([("table", counts["opening"]), ("eco_tag", counts["opening_tag"])], TOP),
            "first_moves": counts["first_moves"].top(TOP),
            "months": dict(sorted(counts["months"].items())),
            "years_without_month": dict(sorted(counts["years_only"].items())),
            "games_without_year": games - counts["months"].total - counts["years_only"].total,
            "speeds": {name: 0 for name in SPEEDS} | _speeds(arrays["speeds"]),
            # games by the rules they were played by (a Variant pgntools does not play: an
            # unsupported_variant error, its game counted as standard here)
            "variants": _by_count(zip(VARIANTS, arrays["variants"])),
            "time_controls": counts["time_controls"].top(TOP),
            "events": counts["events"].top(TOP),
            "players": counts["players"].top(TOP),
            "clock_usage": self.clock_usage(arrays["clocks"], totals["clock_games"], arrays.get("clock_families", ())),
            "fields": {tag: {"present": n, "missing": games - n} for tag, n in zip(FIELDS, arrays["present"])},
            "sources": [{"name": name, **{k: int(v) for k, v in counts.items() if k != "seconds"},
                         "seconds": round(counts["seconds"], 3)} for name, counts in self.sources.items()],
        }

    @staticmethod
    def rating_difference(arrays: dict) -> dict:
        games, points = arrays["difference"], arrays["difference_points"]
        return {"low": -800, "bin_width": 50, "games": list(games),
                "white_score": [round(p / 2 / g, 4) if g else None for p, g in zip(points, games)],
                "note": "White's rating minus Black's, games with both ratings and a result 1-0, 0-1 or 1/2-1/2; "
                        "white_score: White's points per game in the bin (the Elo formula expects "
                        "1 / (1 + 10^(-d/400)))"}

    @staticmethod
    def clock_usage(clocks: List[int], clock_games: int, families=()) -> dict:
        """Seconds left on the mover's clock by move number: quartiles from the binned clocks, of
        all games and of each time control (families: (TimeControl, games, nonzero (cell, count)))."""
        by_time_control = []
        for name, games, cells in families:
            dense = [0] * ((MAX_MOVE + 1) * CLOCK_BINS)
            for cell, count in cells:
                dense[cell] = count
            by_time_control.append({"time_control": name, "games": games, "by_move": _clock_rows(dense)})
        by_time_control.sort(key=lambda f: (-f["games"], f["time_control"]))
        return {"games_with_clocks": clock_games, "by_move": _clock_rows(clocks),
                "by_time_control": by_time_control,
                "note": "[%clk] of each move (both sides), by move number (the last holds later moves too); "
                        "quartiles exact to 1 s under a minute, 10 s under 10 minutes, 1 minute under an hour; "
                        f"by_time_control: per TimeControl value (the first {_core.STATS_CLOCK_FAMILIES - 1} "
                        "met, later ones as 'other'; '?': no TimeControl)"}


def _clock_rows(clocks: List[int]) -> List[dict]:
    rows = []
    edges = CLOCK_EDGES + [CLOCK_EDGES[-1]]
    for move in range(1, MAX_MOVE + 1):
        counts = clocks[move * CLOCK_BINS:(move + 1) * CLOCK_BINS]
        n = sum(counts)
        if n:
            rows.append({"move": move, "clocks": n, "q1": quantile_of(counts, edges, 0.25),
                         "median": quantile_of(counts, edges, 0.5), "q3": quantile_of(counts, edges, 0.75)})
    return rows


def _error_message(batch: GameBatch, game: int, row: int) -> str:
    """What error row ``row`` (of game ``game``) says, as --report says it (with the game's tags:
    a message may name its Variant or FEN)."""
    from pgntools.reader import _slice_strings, error_message

    names, values = batch.string_buffers("tag_name"), batch.string_buffers("tag_value")
    starts = batch.column("tag_start")
    a = starts[game]
    z = starts[game + 1] if game + 1 < batch.n_games else len(names[0]) // 4 - 1
    tags = dict(zip(_slice_strings(names, a, z), _slice_strings(values, a, z))) if z > a else {}
    token = _slice_strings(batch.string_buffers("error_token"), row, row + 1)[0]
    return error_message(ERROR_KINDS[batch.column("error_kind")[row]], token, batch.column("error_ply")[row],
                         batch.column("error_detail")[row], tags)


def _speeds(counts: List[int]) -> dict:
    out: Dict[str, int] = {}
    for code, n in enumerate(counts):
        if n:
            out[SPEED_NAMES[code]] = out.get(SPEED_NAMES[code], 0) + n
    return out
