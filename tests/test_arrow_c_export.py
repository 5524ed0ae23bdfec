"""The C batch leaves the core as Arrow arrays through the Arrow C Data Interface (issue 35,
item 1): every table to_arrow makes of a handed-over batch equals the one made of the batch's
copied bytes; the arrays point at the batch's own memory (no copy); a batch's buffers are freed
when pyarrow drops the last array of them, whatever thread or order (no leak)."""
from __future__ import annotations

import gc
import resource
from pathlib import Path

import pytest

from conftest import CORPORA_DIR

pa = pytest.importorskip("pyarrow")

from pgntools import _core  # noqa: E402
from pgntools.arrow_tables import table_spec  # noqa: E402
from pgntools.options import ReaderOptions  # noqa: E402
from pgntools.reader import GameBatch, iter_batches  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SAMPLES = [REPO / "fixtures" / "sample.pgn", CORPORA_DIR / "lichess" / "lichess-magnus-carlsen.pgn",
           CORPORA_DIR / "chess960" / "tcec-season24-frc.pgn", CORPORA_DIR / "edge" / "stockfish-2moves-v2.pgn",
           CORPORA_DIR / "engine" / "tcec-sample.pgn"]
TABLES = {"games": {}, "moves": {"with_fen": True, "with_comments": True, "with_keys": True},
          "positions": {"sample_plies": 4, "planes": True}, "fens": {"every_ply": True}}


def _batches(path: Path, spec, limit: int = 6):
    options = ReaderOptions(batch_games=200).for_sinks([spec.needs, {"detach": True}])
    for i, batch in enumerate(iter_batches(path, options=options)):
        if i == limit:
            return
        yield batch


def _copied(batch: GameBatch) -> GameBatch:
    """The same batch over copies of its columns (bytes): the arrays built over Python buffers."""
    return GameBatch(dict(batch.raw.items()), batch.source, batch.first_game)


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_tables_over_the_exported_arrays_equal_those_over_copies(path, table):
    if not path.is_file():
        pytest.skip("the shared corpora are not here")
    spec = table_spec(table, None, **TABLES[table])
    seen = 0
    for batch in _batches(path, spec):
        assert type(batch.raw).__name__ == "BatchColumns"
        exported, copied = spec.rows(batch), spec.rows(_copied(batch))
        assert exported.schema == copied.schema
        assert exported.equals(copied)
        seen += exported.num_rows
    assert seen > 0


def test_every_column_is_exported_with_its_c_type_and_values():
    batch = next(iter_batches(REPO / "fixtures" / "sample.pgn", moves=True, tag_columns=True, detach=True))
    formats = {"B": pa.uint8(), "h": pa.int16(), "H": pa.uint16(), "i": pa.int32(), "q": pa.int64(),
               "Q": pa.uint64(), "d": pa.float64()}
    for name, fmt in _core.COLUMN_FORMATS.items():
        if name == "tag_slots":
            assert batch.arrow(name) is None  # reordered when read: a copy, not the batch's memory
            continue
        array = batch.arrow(name)
        assert array.type == formats[fmt], name
        assert array.null_count == 0
        assert array.buffers()[1].to_pybytes()[:len(batch.raw[name])] == batch.raw[name], name
    for name in ("tag_name", "tag_value", "san", "uci", "start_fen"):
        array = batch.arrow(name)
        offsets, data = batch.raw[name]
        assert array.type == pa.string()
        assert len(array) == len(offsets) // 4 - 1
        assert array.to_pylist() == batch.strings(name)


def test_the_arrays_point_at_the_batch_memory():
    batch = next(iter_batches(REPO / "fixtures" / "sample.pgn", moves=True, detach=True))
    first, second = batch.arrow("from_square"), batch.arrow("from_square")
    assert first.buffers()[1].address == second.buffers()[1].address  # one memory, not two copies
    assert first.buffers()[1].address == pa.py_buffer(batch.buffer("from_square")).address
    san = batch.arrow("san")
    offsets, data = batch.buffer("san")
    assert san.buffers()[1].address == pa.py_buffer(offsets).address
    assert san.buffers()[2].address == pa.py_buffer(data).address


def test_an_array_keeps_its_batch_alive_and_frees_it_when_dropped():
    gc.collect()
    before = _core.live_batches()
    batches = iter_batches(REPO / "fixtures" / "sample.pgn", moves=True, detach=True)
    batch = next(batches)
    san, plies = batch.arrow("san"), batch.arrow("ply")
    expected = san.to_pylist()
    del batch, batches
    gc.collect()
    assert _core.live_batches() == before + 1  # the reader is gone; the arrays hold the batch
    assert san.to_pylist() == expected and len(plies) == len(expected)
    del san
    gc.collect()
    assert _core.live_batches() == before + 1  # plies still holds it
    del plies
    gc.collect()
    assert _core.live_batches() == before


def test_arrays_released_on_another_thread_free_their_batch():
    import threading

    gc.collect()
    before = _core.live_batches()
    batch = next(iter_batches(REPO / "fixtures" / "sample.pgn", moves=True, detach=True))
    arrays = [batch.arrow("san"), batch.arrow("clock")]
    del batch
    done = threading.Thread(target=arrays.clear)
    done.start()
    done.join()
    gc.collect()
    assert _core.live_batches() == before


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


@pytest.mark.skipif(not SAMPLES[1].is_file(), reason="the shared corpora are not here")
def test_repeated_reads_do_not_grow_memory():
    """Every batch of every round exported and dropped: the live batches go back to what they
    were and the RSS stays flat after the first rounds (the allocator's pages reused)."""
    import pgntools

    def one_round():
        for rows in pgntools.to_arrow(SAMPLES[1], "moves", columns=["game_id", "san", "clock"], batch_games=128):
            assert rows.num_rows
        gc.collect()

    gc.collect()
    before = _core.live_batches()
    for _ in range(3):
        one_round()
    settled = _rss_kb()
    for _ in range(10):
        one_round()
    assert _core.live_batches() == before
    assert _rss_kb() - settled < 8 * 1024  # 10 more rounds of ~60 batches each: under 8 MB more
