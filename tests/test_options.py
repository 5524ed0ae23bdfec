"""The run derives the reader's options from what its sinks need (pgntools.options)."""
from __future__ import annotations

import pytest

from pgntools.options import ReaderOptions, needs_numbering, workers_for
from pgntools.sinks.pgn import PgnSink, RejectsSink
from pgntools.sinks.report import ReportSink


def test_recording_fields_are_on_only_when_a_sink_needs_them():
    base = ReaderOptions(strict=True, max_game_size=1 << 20)
    assert base.tag_values  # the library's default (read_games shows tags) ...
    options = base.for_sinks([RejectsSink.needs])
    assert options.raw_invalid and not options.tag_values and not options.pgn  # ... not a run's
    assert options.strict and options.max_game_size == 1 << 20  # the command's own options stay
    both = base.for_sinks([PgnSink(None, strip_comments=True).needs, ReportSink.needs])
    assert both.pgn and both.tag_values and both.strip_comments and not both.raw_invalid
    assert needs_numbering([ReportSink.needs]) and not needs_numbering([PgnSink(None).needs])


def test_sinks_must_agree_on_the_other_options():
    assert ReaderOptions().for_sinks([{"en_passant": "fen"}, {"en_passant": "fen"}]).en_passant == "fen"
    with pytest.raises(ValueError, match="en_passant"):
        ReaderOptions().for_sinks([{"en_passant": "fen"}, {"en_passant": "legal"}])
    with pytest.raises(TypeError, match="colour"):
        ReaderOptions().for_sinks([{"colour": True}])


def test_jobs_count_threads():
    assert workers_for(4).jobs == 4 and workers_for(4, threads_per_worker=2).jobs == 2
    assert workers_for(1, threads_per_worker=2).jobs == 1
    assert workers_for(3, "tcp://x:1", 100).parallel
