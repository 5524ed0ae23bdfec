"""game_uid: a game's stable 64-bit id, on games and moves (issue 36): the same for the same game
in every run, whatever --jobs or the cluster, and distinct across inputs, so that the datasets of
many runs (a month appended after another) can be combined and joined.

    game_uid = hash23(the input's file name, without directories and compression suffix) << 40
               | the game's byte offset in the decompressed input

Within an input the offsets are distinct (up to 2^40 bytes, 1 TB of PGN); across inputs, two
names share their 23 bits with a chance of 1 in 8 million a pair (a decade of monthly files: 1 in
70 that some two do). The value is never negative (an int64, as game_id).
"""
from __future__ import annotations

import hashlib
from array import array

OFFSET_BITS = 40
COMPRESSION_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz", ".lzma", ".zst", ".zstd")


def input_key(source: str) -> str:
    """The part of an input's name game_uid depends on: lichess_db_standard_rated_2024-01.pgn for
    /data/lichess_db_standard_rated_2024-01.pgn.zst (and for its decompressed copy anywhere)."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in COMPRESSION_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[:-len(suffix)]
    return name


def uid_prefix(source: str) -> int:
    digest = hashlib.blake2b(input_key(source).encode("utf-8", "surrogateescape"), digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> (64 - 23)) << OFFSET_BITS


def game_uids(batch) -> bytes:
    """The batch's games' uids, int64 bytes (one a game, in batch order)."""
    prefix = uid_prefix(batch.source)
    mask = (1 << OFFSET_BITS) - 1
    return array("q", [prefix | (offset & mask) for offset in batch.column("offset").tolist()]).tobytes()
