"""The terminal's short summary of a stats run: the numbers people check first."""
from __future__ import annotations

from typing import List


def _share(n: int, total: int) -> str:
    return f"{n:,} ({100 * n / total:.1f} %)" if total else f"{n:,}"


def _top(top: dict, k: int = 5) -> str:
    return ", ".join(f"{t['value']}{' (tag)' if t.get('source') == 'eco_tag' else ''} {t['count']:,}"
                     for t in top["top"][:k]) or "none"


def summary_text(doc: dict) -> str:
    games = doc["games"]
    lines: List[str] = [f"games       {games:,}" + (f" of {doc['games_read']:,} read" if doc["games_read"] != games else "")]
    if not games:
        lines.append("no games: the input holds no game (or the selection kept none)")
        return "\n".join(lines) + "\n"
    v = doc["validity"]
    lines.append("validity    " + ", ".join(f"{name} {_share(n, games)}" for name, n in v.items() if n or name != "truncated"))
    if doc["errors"]:
        lines.append("errors      " + ", ".join(f"{k} {e['count']:,}" for k, e in list(doc["errors"].items())[:5]))
    lines.append("results     " + ", ".join(f"{name} {_share(n, games)}" for name, n in doc["results"].items() if n))

    lines.append(f"plies       median bin {_median_bin(doc['plies'])}")
    for key, label in (("white_elo", "WhiteElo"), ("black_elo", "BlackElo")):
        rated = doc["fields"][label]["present"]
        lines.append(f"{label:<11} {rated:,} games rated" + (f", median bin {_median_bin(doc[key])}" if rated else ""))
    s = doc["opening_sources"]
    lines.append(f"ECO         {_top(doc['eco'])}")
    lines.append(f"openings    {s['table']:,} named by the classifier, {s['eco_tag']:,} from the ECO tag (set-up start)"
                 + (f", {s['custom_start_without_tag'] + s['unnamed']:,} unnamed" if s['custom_start_without_tag'] + s['unnamed'] else ""))
    lines.append(f"first move  {_top(doc['first_moves'])}")
    speeds = ", ".join(f"{k} {n:,}" for k, n in doc["speeds"].items() if n)
    lines.append(f"speed       {speeds or 'no TimeControl'}")
    if set(doc.get("variants", {})) - {"standard"}:
        lines.append("variants    " + ", ".join(f"{k} {n:,}" for k, n in doc["variants"].items()))
    months, years_only = doc["months"], doc.get("years_without_month", {})
    if months or years_only:
        first = min([*months, *years_only])
        last = max([*months, *years_only])
        only = f", {sum(years_only.values()):,} with a year only" if years_only else ""
        lines.append(f"dates       {first} to {last}{only}, {doc.get('games_without_year', 0):,} without a year")
    lines.append(f"clocks      {doc['clock_usage']['games_with_clocks']:,} games with [%clk]")
    missing = [f"{tag} {f['missing']:,}" for tag, f in doc["fields"].items() if f["missing"]]
    if missing:
        lines.append("missing     " + ", ".join(missing))
    lines += _sources(doc["sources"])
    return "\n".join(lines) + "\n"


def _sources(sources: List[dict]) -> List[str]:
    """Per input: games, bytes, games/s."""
    out = []
    for s in sources:
        size = s["bytes"] if s["bytes"] is not None else s["pgn_bytes"]
        rate = f", {s['games_per_second']:,} games/s" if s["games_per_second"] else ""
        out.append(f"source      {s['name']}: {s['games']:,} games ({s['invalid'] + s['truncated']:,} invalid), "
                   f"{size:,} bytes{rate}")
    return out


def _median_bin(h: dict) -> str:
    counts, total, seen = h["counts"], sum(h["counts"]), 0
    for i, n in enumerate(counts):
        seen += n
        if total and seen * 2 >= total:
            low = h["low"] + i * h["bin_width"]
            return f"{low}-{low + h['bin_width']}"
    return "-"
