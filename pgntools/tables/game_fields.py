"""The games table's columns with one value a game, as the names --where and split --by take
them: each one's type in the --where language, the values an enum column can take, whether the
replay fills it, and the reader options that fill it (from the declaration, schema.py). And the
valid names a misspelt one likely meant."""
from __future__ import annotations

import functools
from typing import Dict, List, NamedTuple, Optional, Tuple

from pgntools.tables import schema
from pgntools.tables.schema import Built, Codes, Fixed, Flag, Strings, Tag, TagDate

DATE_COLUMNS = ("date", "utc_date")  # PGN dates (YYYY.MM.DD, ?? for unknown parts), compared as dates
TAG_NEEDS = (("tag_columns", True), ("tag_values", True))
# Columns filled by the replay: a predicate on them is decided after it, one on tags only before.
# Columns the reader derives from a game's tags alone (not replay fields: known for every game).
FROM_TAGS = ("speed",)
NUMBER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "float64")


class Name(NamedTuple):
    """A name of the language: its column, type, the values it can take (an enum's), whether the
    replay fills it, and the reader options it needs."""
    column: schema.Column
    type: str
    values: Tuple[str, ...] = ()
    replay: bool = False
    needs: Tuple[Tuple[str, object], ...] = ()


def _name_of(column: schema.Column) -> Optional[Name]:
    source = column.source
    if isinstance(source, TagDate):
        if source.part == "date":  # the tag's text, compared as the interval of days it can be (2023.??.??)
            return Name(schema.Column(column.name, "string", True, Tag(source.tags[0])), "date", needs=TAG_NEEDS)
        if source.part in ("year", "month"):
            return Name(column, "number", needs=TAG_NEEDS)
        return None  # (utc_datetime: the language has no instants; utc_date and utc_time are compared)
    if isinstance(source, Tag):
        type_ = "date" if column.name in DATE_COLUMNS else "number" if column.type in NUMBER_TYPES else "string"
        return Name(column, type_, needs=TAG_NEEDS)
    if isinstance(source, Codes):
        return Name(column, "string", tuple(v for v in source.names if v), replay=column.name not in FROM_TAGS)
    if isinstance(source, Flag):  # a condition of its own: has_clock, not has_eval
        return Name(column, "bool", replay=True)
    # the opening columns (null unless the opening_state says named) need the classifier to run
    opening = (("openings", True),) if getattr(source, "has_column", "") == "opening_state" else ()
    if isinstance(source, Fixed):
        return Name(column, "number", replay=column.name != "offset", needs=opening)
    if isinstance(source, Strings):
        needs = (("final_fen", True),) if source.column == "final_fen" else opening
        return Name(column, "string", replay=True, needs=needs)
    if isinstance(source, Built) and source.what in ("game_ids", "source"):
        return Name(column, "number" if source.what == "game_ids" else "string")
    return None  # a list or a map (tags: tags['Name'])


@functools.lru_cache(maxsize=None)
def names() -> Dict[str, Name]:
    """Every name an expression can use (a column of `games` with one value a game)."""
    found = {}
    for column in schema.GAME_COLUMNS:
        name = _name_of(column)
        if name is not None:  # (with what the reader fills it by only when asked: the hashes, the counters)
            found[column.name] = name._replace(needs=name.needs + tuple(schema.reader_needs(column).items()))
    return found


def close_names(name: str, names: List[str]) -> Tuple[str, ...]:
    """The valid names the user likely meant (WhiteElo: white_elo; whiteelo, white_el: white_elo)."""
    key = name.replace("_", "").lower()
    exact = [n for n in names if n.replace("_", "") == key]
    import difflib  # (only for a name that is not one: not on the start-up of a run)

    return tuple(exact or difflib.get_close_matches(name, names, n=3, cutoff=0.6))
