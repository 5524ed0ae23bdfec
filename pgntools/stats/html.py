"""The --html report: one self-contained file (inline CSS and SVG, no script, nothing from the
network) made from the --json document, readable on screen and on paper."""
from __future__ import annotations

from html import escape
from typing import List, Optional, Sequence, Tuple

from pgntools.stats import svg

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:24px auto;max-width:min(96vw,1560px);padding:0 12px}
section{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,600px),1fr));gap:0 28px;align-items:start}
section>h2,section>p,section>table{grid-column:1/-1}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ccc;padding-bottom:2px;margin:28px 0 8px}
p.meta{color:#555;margin:0 0 12px}table{border-collapse:collapse;margin:6px 0 12px}
td,th{border-bottom:1px solid #e3e3e3;padding:2px 10px 2px 0;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
svg{display:block;max-width:100%;height:auto;margin:6px 0 14px}svg text{font-size:12px;fill:#222}
svg .title{font-size:13px;font-weight:600}svg .tick{fill:#555;font-size:11px}svg .value{fill:#333;font-size:11px}
svg .axis{fill:#333}rect.bar{fill:#4878a8}line.frame{stroke:#888}line.grid{stroke:#e4e4e4}
.data.point,.data .key{fill:#c0392b}.data.line{fill:none;stroke:#c0392b;stroke-width:1.5}
.formula.line{fill:none;stroke:#2c7a3f;stroke-width:2;stroke-dasharray:5 3}.formula .key{fill:#2c7a3f}
.median.point,.median .key{fill:#4878a8}.median.line{fill:none;stroke:#4878a8;stroke-width:1.5}
.median.band{fill:#4878a8;fill-opacity:.18;stroke:none}.empty{color:#8a4b00;font-weight:600}
.note{color:#555;font-size:12px}table.sources{font-size:12px}table.sources td:first-child{word-break:break-all}
@media print{body{margin:0;max-width:none;font-size:11pt}section{break-inside:avoid;display:block}h2{break-after:avoid}
rect.bar,.point,.key{print-color-adjust:exact;-webkit-print-color-adjust:exact}a{color:inherit}}
"""


def _n(value) -> str:
    return "–" if value is None else f"{value:,}"


def _table(headers: Sequence[str], rows: Sequence[Sequence], numeric_from: int = 1, css: str = "") -> str:
    head = "".join(f'<th{" class=n" if i >= numeric_from else ""}>{escape(h)}</th>' for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(
        f'<td{" class=n" if i >= numeric_from else ""}>{escape(v if isinstance(v, str) else _n(v))}</td>'
        for i, v in enumerate(row)) + "</tr>" for row in rows)
    return f"<table{f' class={css}' if css else ''}><tr>{head}</tr>{body}</table>"


def _section(title: str, parts: List[str]) -> str:
    return f"<section><h2>{escape(title)}</h2>{''.join(parts)}</section>"


def _absent(text: str) -> str:
    return f'<p class="note">{escape(text)}</p>'


def trimmed(counts: Sequence[int]) -> Tuple[int, int]:
    """The range [first, last + 1) of the bins from the first to the last that is not empty."""
    used = [i for i, c in enumerate(counts) if c]
    return (used[0], used[-1] + 1) if used else (0, 0)


def month_items(months: dict, years_only: Optional[dict] = None) -> Tuple[str, List[Tuple[str, int]]]:
    """Games per month, or per year when the months span more than three years or some dates
    have a year only (1851.??.??: counted in their year, not left out)."""
    if len(months) <= 36 and not years_only:
        return "month", list(months.items())
    years: dict = dict(years_only or {})
    for month, n in months.items():
        years[month[:4]] = years.get(month[:4], 0) + n
    return "year", sorted(years.items())


def _top_bars(name: str, title: str, top: dict, unit: str = "games") -> str:
    items = [(t["value"], t["count"]) for t in top["top"]]
    note = f"{top['other']:,} more in {top['distinct_kept'] - len(items):,}+ other values" if top["other"] else ""
    if top["error"]:
        note += f"; counts are at most {top['error']:,} low (bounded summary)"
    return svg.bars(name, title, items, unit) + (_absent(note) if note else "")


def report_html(doc: dict) -> str:
    games = doc["games"]
    parts = [f"<h1>pgntools stats</h1><p class=meta>{escape(doc['run']['command'])}</p>"]
    selected = f" of {doc['games_read']:,} read (selected by --where, --sample or --limit)" \
        if doc["games_read"] != games else ""
    parts.append(f"<p><b>{games:,} games</b>{selected}, in {doc['run']['seconds']:.2f} s.</p>")
    parts.append(_section("Sources", [_table(
        ["input", "games", "valid", "fixed", "invalid", "bytes", "seconds", "games/s"],
        [(s["name"], s["games"], s["valid"], s["fixed"], s["invalid"] + s["truncated"],
          s["bytes"] if s["bytes"] is not None else s["pgn_bytes"], f"{s['seconds']:.2f}", s["games_per_second"])
         for s in doc["sources"]], css="sources"),
        _absent("bytes: the input's size as stored (compressed or not); seconds: the time spent reading and "
                "counting it (under --jobs, summed over the workers, so games/s is one worker's rate); "
                "invalid counts truncated games too.")]))
    if not games:
        parts.append('<p class="empty">No games: the input holds no game (or the selection kept none), '
                     'so there is nothing to chart.</p>')
        return _page(parts)
    parts += [_validity(doc), _results(doc), _ratings(doc), _openings(doc), _time(doc), _people(doc), _fields(doc)]
    return _page(parts)


def _page(parts: List[str]) -> str:
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>pgntools stats</title>"
            "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
            f"<style>{CSS}</style></head><body>{''.join(parts)}</body></html>\n")


def _validity(doc: dict) -> str:
    v = doc["validity"]
    parts = [svg.bars("validity", "Games by validity", list(v.items()), "games")]
    if doc["errors"]:
        parts.append(svg.bars("errors", "Invalid games' errors by kind", [(k, e["count"]) for k, e in doc["errors"].items()],
                              "errors"))
        rows = [(kind, ex.get("message", ""), ex["source"], ex["offset"], ex["ply"])
                for kind, e in doc["errors"].items() for ex in e["examples"]]
        parts.append("<p class=note>Examples (the first games of each kind: why each is invalid, and where; offset: "
                     "the byte offset in its input):</p>"
                     + _table(["error", "message", "input", "offset", "ply"], rows, numeric_from=3))
    else:
        parts.append(_absent("No game has an error."))
    if doc["fixes"]:
        parts.append(svg.bars("fixes", "Fixes by kind", list(doc["fixes"].items()), "games fixed"))
    if doc["notes"]:
        parts.append(svg.bars("notes", "Notes by kind (valid games too)", list(doc["notes"].items()), "games"))
    return _section("Validity", parts)


def _results(doc: dict) -> str:
    results = [(name, n) for name, n in doc["results"].items() if name != "none" or n]
    parts = [svg.bars("results", "Results (checked)", results, "games")]
    ends = [(name.replace("_", " "), n) for name, n in doc["outcomes"].items() if n]
    if ends:
        parts.append(svg.bars("outcomes", "Automatic ends the games reached", ends, "games"))
    else:
        parts.append(_absent("No game ended by checkmate, stalemate or an automatic draw."))
    if doc["termination"]["top"]:
        parts.append(_top_bars("termination", "Termination tag", doc["termination"]))
    plies = doc["plies"]
    edges = [plies["low"] + i * plies["bin_width"] for i in range(len(plies["counts"]) + 1)]
    parts.append(svg.histogram("plies", "Game length", plies["counts"], edges, "plies (half-moves) replayed"))
    return _section("Results and length", parts)


def _ratings(doc: dict) -> str:
    parts = []
    # one x-axis for both (the bins either has), so White's and Black's read side by side
    ranges = [trimmed(doc[key]["counts"]) for key in ("white_elo", "black_elo")]
    ranges = [r for r in ranges if r[0] != r[1]]
    first, last = (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else (0, 0)
    for key, title in (("white_elo", "White's rating (WhiteElo)"), ("black_elo", "Black's rating (BlackElo)")):
        h = doc[key]
        if not any(h["counts"]):
            parts.append(_absent(f"No game has a {title}."))
            continue
        edges = [h["low"] + i * h["bin_width"] for i in range(first, last + 1)]
        parts.append(svg.histogram(key, title, h["counts"][first:last], edges, "rating (Elo points)",
                                   open_ends=False))
    d = doc["rating_difference"]
    points = [(d["low"] + (i + 0.5) * d["bin_width"], s, f"{d['low'] + i * d['bin_width']:+} to "
               f"{d['low'] + (i + 1) * d['bin_width']:+}: {s:.3f} over {g:,} games")
              for i, (g, s) in enumerate(zip(d["games"], d["white_score"])) if g]
    if points:
        lo, hi = d["low"], d["low"] + d["bin_width"] * len(d["games"])
        curve = [(x, 1 / (1 + 10 ** (-x / 400)), "") for x in range(lo, hi + 1, 25)]
        parts.append(svg.lines("rating_difference", "White's score by rating difference",
                               [svg.Series("games (mean score per 50-point bin)", points, "data"),
                                svg.Series("Elo formula 1/(1+10^(−d/400))", curve, "formula", dots=False, line=True)],
                               (lo, hi), (0, 1), "White's rating − Black's (Elo points; the end bins hold beyond)",
                               "White's points per game"))
    return _section("Ratings", parts)


SOURCE_LABELS = {"table": "", "eco_tag": " (ECO tag)"}


def _labelled(top: dict) -> dict:
    """A top list whose bars say where each count came from (the table's are unmarked)."""
    return {**top, "top": [{**t, "value": t["value"] + SOURCE_LABELS.get(t.get("source"), "")} for t in top["top"]]}


def _openings(doc: dict) -> str:
    s = doc["opening_sources"]
    parts = [_absent(
        f"Where the openings come from: {s['table']:,} games named by the opening classifier (the Lichess "
        f"opening table: the deepest named position of the first 40 plies, matched by position); "
        f"{s['eco_tag']:,} from their own ECO and Opening tags, marked “(ECO tag)”, because they start from "
        f"a set-up position the table cannot name; {s['custom_start_without_tag']:,} such games without the tags "
        f"and {s['unnamed']:,} standard games the table does not name are not counted.")]
    for key, title in (("eco", "ECO codes (opening classifier; ECO tag for set-up starts)"),
                       ("opening", "Openings (opening classifier; Opening tag for set-up starts)"),
                       ("first_moves", "First moves (games from the standard position)")):
        if doc[key]["top"]:
            parts.append(_top_bars(key, title, _labelled(doc[key]) if key != "first_moves" else doc[key]))
        else:
            parts.append(_absent(f"No {title}."))
    return _section("Openings", parts)


def _time(doc: dict) -> str:
    parts = []
    years_only = doc.get("years_without_month", {})
    unit, items = month_items(doc["months"], years_only)
    dated = sum(doc["months"].values()) + sum(years_only.values())
    if items:
        parts.append(svg.bars("months", f"Games per {unit} (Date, else UTCDate)", items, "games"))
        said = []
        if years_only:
            said.append(f"{sum(years_only.values()):,} games have a year only (such as 1851.??.??): counted in "
                        f"their year")
        if doc["games"] > dated:
            said.append(f"{doc['games'] - dated:,} games have no year (no Date or UTCDate with one) and are not "
                        f"counted")
        if said:
            parts.append(_absent("; ".join(said) + "."))
    else:
        parts.append(_absent("No game has a Date or UTCDate with a known year."))
    speeds = [(name, n) for name, n in doc["speeds"].items() if n]
    if speeds:
        parts.append(svg.bars("speeds", "Speed (from TimeControl: base + 40 × increment)", speeds, "games"))
        parts.append(_top_bars("time_controls", "Time controls (TimeControl)", doc["time_controls"]))
    else:
        parts.append(_absent("No game has a TimeControl."))
    clocks = doc["clock_usage"]
    # one chart per time control (a median pooled over 60+0 and 180+2 says neither), the largest first
    families = clocks.get("by_time_control") or [{"time_control": "", "games": clocks["games_with_clocks"],
                                                  "by_move": clocks["by_move"]}]
    shown = 0
    for family in families[:CLOCK_CHARTS]:
        rows = [r for r in family["by_move"] if r["clocks"] >= 5]
        if not rows:
            continue
        shown += 1
        most = max(r["q3"] for r in rows)
        unit, per = ("seconds", 1) if most < 180 else ("minutes", 60)  # bullet reads better in seconds
        median = [(r["move"], r["median"] / per, f"move {r['move']}: median {r['median']:.0f} s, quartiles "
                   f"{r['q1']:.0f}–{r['q3']:.0f} s ({r['clocks']:,} clocks)") for r in rows]
        band = [(r["move"], r["q1"] / per, r["q3"] / per) for r in rows]
        name = family["time_control"]
        label = {"": "", "?": ", no TimeControl", "other": ", other time controls"}.get(name, f", TimeControl {name}")
        parts.append(svg.lines(f"clock_usage_{shown}", f"Time left by move{label} ({family['games']:,} games with [%clk])",
                               [svg.Series("median, quartiles shaded", median, "median", line=True, band=band)],
                               (0, svg.round_up(rows[-1]["move"], 5)), (0, svg.round_up(most / per or 1)),
                               "move number", f"{unit} left on the mover's clock"))
    if not shown:
        parts.append(_absent("No move has a [%clk] clock."))
    elif len(families) > CLOCK_CHARTS:
        rest = families[CLOCK_CHARTS:]
        parts.append(_absent(f"{sum(f['games'] for f in rest):,} more games with clocks in "
                             f"{', '.join(f['time_control'] for f in rest)}: not charted."))
    return _section("Time", parts)


CLOCK_CHARTS = 6  # clock charts at most (the time controls with the most games)


def _people(doc: dict) -> str:
    parts = []
    for key, title in (("players", "Players (White and Black)"), ("events", "Events")):
        if doc[key]["top"]:
            parts.append(_top_bars(key, title, doc[key], "games" if key == "events" else "games played"))
    return _section("Players and events", parts) if parts else ""


def _fields(doc: dict) -> str:
    rows = [(tag, f["present"], f["missing"]) for tag, f in doc["fields"].items()]
    return _section("Tags present", ["<p class=note>A game without a tag (or with ?, - or an empty value) is left "
                                     "out of that tag's counts above.</p>", _table(["tag", "games with it", "without"], rows)])
