"""The counts of a run (games, valid, fixed, invalid, errors and notes by kind, bytes, seconds):
what the command line prints, and the `--summary` JSON. A sink like the outputs: it counts each
batch, a worker's counts go back to the parent (``finish_chunk``/``merge``), and ``commit``
writes the JSON when the run has a summary output."""
from __future__ import annotations

import time
from collections import Counter
from typing import List, Optional

from pgntools.reader import (ERROR_KINDS, FIX_KINDS, FIX_RESULT_MARKER, FIX_RESULT_TAG, NOTE_KINDS, OPENING_STATES,
                             STATUS_FIXED, STATUS_INVALID, STATUS_TRUNCATED, STATUS_VALID, GameBatch)
from pgntools.sinks.base import Sink


def _count_codes(counter: Counter, names, codes: bytes):
    for code in set(codes):
        counter[names[code]] += codes.count(code)


class Summary(Sink):
    """The counts of a run: of the games its selection kept (all of them without one), as the
    outputs see them (plain classes here, not dataclasses: see pgntools.records)."""

    def __init__(self, command: str, output=None):
        self.command = command
        self.output = output  # where commit() writes the JSON (None: nowhere)
        self.games = self.valid = self.fixed = self.invalid = self.truncated = 0
        self.read = 0            # games read, before the selection (the run counts them)
        self.selecting = False   # a selection (--where, ...) chose the games counted
        self.errors: Counter = Counter()
        self.notes: Counter = Counter()
        self.fixes: Counter = Counter()  # per fix kind (a game may have several)
        self.bytes = 0  # of the inputs as stored: compressed bytes for compressed input (as progress counts)
        self.pgn_bytes = 0  # the PGN text read: decompressed bytes
        self.skipped_bytes = 0  # of text before or between games that is no game (junk, prose): counted in C
        self.seconds = 0.0
        self.input_errors: List[str] = []  # inputs that broke while read (see pgntools.runner.run.Run)
        self.games_by_source: Counter = Counter()  # input name -> games
        # input name -> games with a tag pair or a legal move: an input without one is not PGN
        self.pgn_games_by_source: Counter = Counter()
        self.openings: Counter = Counter()  # when classifying: named, unnamed, custom_start (pgntools.openings)
        self.started = time.perf_counter()

    def write(self, batch: GameBatch):
        status = batch.raw["status"]  # one byte per game (and per error or note below): counted in C
        self.games += batch.n_games
        # games read, also those a selection dropped: an input whose games were all dropped is PGN
        self.games_by_source[batch.source] += batch.n_games if batch.games_read is None else batch.games_read
        self.pgn_games_by_source[batch.source] += batch.raw.get("pgn_games", 0)
        self.skipped_bytes += batch.raw.get("skipped_bytes", 0)
        self.valid += status.count(STATUS_VALID)
        self.fixed += status.count(STATUS_FIXED)
        self.invalid += status.count(STATUS_INVALID)
        self.truncated += status.count(STATUS_TRUNCATED)
        states = batch.raw.get("opening_state") or b""  # one byte per game: 0 when not classifying
        if states.count(0) != len(states):
            for name, bit in OPENING_STATES.items():
                self.openings[name] += states.count(bit)
        _count_codes(self.errors, ERROR_KINDS, batch.raw["error_kind"])
        _count_codes(self.notes, NOTE_KINDS, batch.raw["note_kind"])
        _count_codes(self.fixes, FIX_KINDS, batch.raw["fix_kind"])
        result_fixes = batch.raw["fixes"]
        for bits in set(result_fixes).difference((0,)):
            n = result_fixes.count(bits)
            if bits & FIX_RESULT_TAG:
                self.fixes["result_tag"] += n
            if bits & FIX_RESULT_MARKER:
                self.fixes["result_marker"] += n

    def counts(self) -> dict:
        """The game counts (what a worker sends back for its chunk)."""
        return {"games": self.games, "valid": self.valid, "fixed": self.fixed, "invalid": self.invalid,
                "truncated": self.truncated, "errors": self.errors, "notes": self.notes, "fixes": self.fixes,
                "games_by_source": self.games_by_source, "pgn_games_by_source": self.pgn_games_by_source,
                "skipped_bytes": self.skipped_bytes, "read": self.read,
                "openings": self.openings}

    def finish_chunk(self) -> dict:
        return self.counts()

    def merge(self, counts: Optional[dict]):
        self.games += counts["games"]
        self.valid += counts["valid"]
        self.fixed += counts["fixed"]
        self.invalid += counts["invalid"]
        self.truncated += counts["truncated"]
        self.errors.update(counts["errors"])
        self.notes.update(counts["notes"])
        self.fixes.update(counts["fixes"])
        self.games_by_source.update(counts["games_by_source"])
        self.pgn_games_by_source.update(counts["pgn_games_by_source"])
        self.skipped_bytes += counts["skipped_bytes"]
        self.read += counts.get("read", 0)
        self.openings.update(counts.get("openings", {}))

    def commit(self):
        """The end of the run: its time, and the JSON when asked for (the run sets ``bytes``)."""
        self.seconds = time.perf_counter() - self.started
        if self.output is not None:
            import json

            self.output.write((json.dumps(self.to_dict(), indent=2) + "\n").encode())

    def to_dict(self) -> dict:
        out = {"games": self.games, "valid": self.valid, "fixed": self.fixed, "invalid": self.invalid,
               "truncated": self.truncated, "errors": dict(sorted(self.errors.items())),
               "notes": dict(sorted(self.notes.items())), "fixes": dict(sorted(self.fixes.items())),
               "bytes": self.bytes, "pgn_bytes": self.pgn_bytes, "skipped_bytes": self.skipped_bytes,
               "seconds": round(self.seconds, 3)}
        if self.selecting:
            out["read"], out["dropped"] = self.read, self.read - self.games
        if self.openings:  # classified games: named, none named in 40 plies, another start (not classified)
            out["openings"] = {name: self.openings[name] for name in OPENING_STATES}
        if self.input_errors:
            out["input_errors"] = list(self.input_errors)
        return out

    def on_input_error(self, exc: Exception):
        self.input_errors.append(str(exc))

    def line(self) -> str:
        rate = (self.read if self.selecting else self.games) / self.seconds if self.seconds > 0 else 0.0
        skipped = f", {self.skipped_bytes:,} bytes of non-PGN text skipped" if self.skipped_bytes else ""
        truncated = f"{self.truncated:,} truncated, " if self.truncated else ""  # (only with --repair truncate)
        if self.selecting:
            return (f"{self.command}: {self.games:,} of {self.read:,} games selected: {self.valid:,} valid, "
                    f"{self.fixed:,} fixed, {truncated}{self.invalid:,} invalid{skipped} "
                    f"({self.seconds:.2f} s, {rate:,.0f} games/s)")
        return (f"{self.command}: {self.games:,} games: {self.valid:,} valid, {self.fixed:,} fixed, {truncated}"
                f"{self.invalid:,} invalid{skipped} ({self.seconds:.2f} s, {rate:,.0f} games/s)")
