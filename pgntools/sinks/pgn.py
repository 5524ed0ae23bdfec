"""PGN outputs: the export-format games (built in C), the rejected games and `filter`'s games as they were."""
from __future__ import annotations

from typing import Optional, Tuple

from pgntools import _core
from pgntools.reader import STATUS_INVALID, STATUS_TRUNCATED, GameBatch
from pgntools.sinks.base import Sink


class PgnSink(Sink):
    """Export-format PGN of the valid and fixed games (built in C; invalid games are empty)."""

    def __init__(self, output, strip_comments: bool = False, strip_variations: bool = False, reduced: bool = False,
                 pgn_shape: tuple = (), line_length: int = 79, pgn_plies: tuple = (0, -1),
                 split_variations: bool = False):
        self.output = output
        self.split_variations, self.line_length = split_variations, line_length
        # detach: the batch's columns stay in the reader's buffers, copied only when asked for
        # (the PGN is written from there, and the tag columns it was built from never are);
        # pgn_shape and line_length: the writer's output options (pgntools.cli_options.pgn_shape_options)
        self.needs = {"pgn": True, "tag_values": True, "strip_comments": strip_comments,
                      "strip_variations": strip_variations, "reduced": reduced, "detach": True,
                      "pgn_shape": tuple(pgn_shape), "line_length": line_length, "pgn_plies": tuple(pgn_plies)}

    def write(self, batch: GameBatch):
        if self.split_variations:  # each variation a game (pgntools.split_variations: the written PGN re-cut)
            from pgntools.split_variations import split_game

            games = [split_game(text, self.line_length) for text in batch.strings("pgn") if text]
            if games:
                self.output.write("".join(games).encode("utf-8"))
            return
        batch.write_text("pgn", self.output)


class RejectsSink(Sink):
    """The invalid games exactly as they were in the input (and the truncated ones, whose moves
    after the cut only the input has), each followed by a blank line."""

    needs = {"raw_invalid": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        # the raw column holds the invalid games' bytes, or every game's when another output
        # (filter's) needs them all: the status says which are rejects
        text = raw_games(batch, (STATUS_INVALID, STATUS_TRUNCATED), own_line_ends=False)
        if text:
            self.output.write(text)


class RawPgnSink(Sink):
    """`filter`'s output: each game of the batch exactly as it was in the input (from its first
    tag to its termination marker), followed by a blank line in the game's own line ends."""

    # detach: the raw column is joined from the reader's buffer, not copied into bytes first
    needs = {"raw_all": True, "detach": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch: GameBatch):
        text = raw_games(batch)
        if text:
            self.output.write(text)


class NotSelectedSink(Sink):
    """`filter --unselected`: the games the selection read and did not keep; with
    ``repeats_only`` (--duplicates), those --dedup dropped as repeats. Each exactly as it was in
    the input, followed by a blank line."""

    needs = {"raw_all": True}

    def __init__(self, output, repeats_only: bool = False):
        self.output, self.repeats_only = output, repeats_only

    def write(self, batch: GameBatch):
        from pgntools.selection import repeated, take_games, unselected

        indices = repeated(batch) if self.repeats_only else unselected(batch)
        if indices:
            text = raw_games(take_games(batch.selected_from, indices))
            if text:
                self.output.write(text)


def raw_games(batch: GameBatch, statuses: Optional[Tuple[int, ...]] = None, own_line_ends: bool = True) -> bytes:
    """The recorded input bytes of the batch's games (of those with one of ``statuses``), each with the
    blank line that ends it (CR LF CR LF for a game written with CR LF, with ``own_line_ends``), as
    one bytes object (joined in C, from the reader's buffer when the batch is detached)."""
    offsets, data = batch.buffer("raw")
    if not len(data):
        return b""
    return _core.raw_games_text(offsets, data, batch.buffer("status"),
                                None if statuses is None else bytes(statuses), own_line_ends)


def ended(game: bytes, own_line_ends: bool = True) -> bytes:
    """A game's recorded bytes and the blank line that ends it (CR LF CR LF for a game written
    with CR LF, with ``own_line_ends``)."""
    return game + (b"\r\n\r\n" if own_line_ends and b"\r\n" in game else b"\n\n")
