"""Time-based profile of validate's C reader where perf is not available: the ply_budget driver's
SIGPROF samples (PLY_BUDGET_ONLY=sample) resolved with addr2line, inlined helpers charged to the
function they were inlined into, and the functions grouped into the stages of RESULTS.md's
per-ply budget.

    python3 benchmarks/ply_budget/profile.py [--src pgntools/_c] [--runs 150] [--file FILE]
"""
import argparse
import collections
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "benchmarks", "out")

# small inline helpers: their time belongs to the function they were inlined into
HELPERS = {"bb_lsb", "bb_pop", "bb_count", "pos_king", "pos_occ", "pos_pieces", "mv_type", "mv_to", "mv_from",
           "mv_promo", "mv_make", "bb_line_attacks", "bb_rook_attacks", "bb_bishop_attacks", "bb_attacks_along",
           "pos_in_check", "memcpy", "memset", "is_file", "is_rank", "col_reserve", "vec_reserve_raw"}
STAGES = [
    ("scanning/tokenizing", {"tok_next", "tok_scan", "tok_next_movetext", "tok_word_end", "tok_digits", "tok_next_slow",
                             "scan_word", "scan_tag", "scan_brace_comment", "scan_line_comment", "scan_glyph", "scan_nag",
                             "finish", "finish_on_line", "tok_skip_to", "match_result", "tag_value_end", "after_tag",
                             "recover_tag", "tok_looks_like_tag", "read_movetext", "new_line"}),
    ("SAN parsing", {"san_parse", "san_parse_inline", "parse_common", "parse_general", "strip_suffixes",
                     "may_end_suffix", "piece_of_letter", "text_is"}),
    ("legality: SAN resolution", {"san_resolve", "resolve_fast", "resolve_king", "resolve_castle", "leaves_pin",
                                  "reaching", "unblocked", "needed_disambiguation", "pos_attacked_by",
                                  "pos_gen_castling_to", "castling_legal", "castle_side_of_king_move", "pos_gen_legal",
                                  "gen_castling", "gen_en_passant", "add", "add_pawn_moves", "pinned_pieces"}),
    ("resolve + make in one pass", {"pos_play_pawn_push", "pos_play_pawn_capture", "pos_play_piece", "pos_play_king",
                                    "play_plain", "uncovers_king", "evades", "san_play_inline"}),
    ("make move", {"pos_make", "pos_make_undo", "make_special", "checkers_after", "piece_attacks", "begin_move",
                   "end_move", "remove_piece", "add_piece", "clear_castle", "lose_castle_at", "is_castle_square",
                   "any_castle_rights", "pos_has_legal_ep", "pos_compute_checkers", "pos_attackers"}),
    ("check / mate status", {"pos_check_status", "pos_has_legal_move", "san_check_notes"}),
    ("hashing", {"gh_mix", "gh_mix2", "gh_move", "gh_start", "gh_position", "gh_finish", "pos_repetition_count",
                 "track_mainline_end", "note_history"}),
    ("derived / result work", {"derived_count", "derived_reached", "derived_start", "pos_is_insufficient_material",
                               "pos_color_has_insufficient_material", "note_automatic_end", "final_outcome",
                               "check_result", "result_check", "result_of_outcome", "is_automatic_draw"}),
    ("replay bookkeeping", {"replay_move", "lean_mainline_move", "add_move_notes", "replay_comment", "replay_nag", "emitting",
                            "finish_pending"}),
]


def stage_of(name):
    for stage, names in STAGES:
        if name in names:
            return stage
    return "tags, game loop, game records"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default="pgntools/_c")
    ap.add_argument("--runs", type=int, default=150)
    ap.add_argument("--file", default=os.path.join(os.path.dirname(ROOT), "shared/corpora/bench/master-games-30k.pgn"))
    args = ap.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "pb_sample")
    src = os.path.join(ROOT, args.src)
    subprocess.run(["gcc", "-std=c99", "-O3", "-g", "-DNDEBUG", "-no-pie", "-I", src,
                    os.path.join(ROOT, "benchmarks/ply_budget/ply_budget.c"), *sorted(
                        os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c")), "-o", exe, "-lm"],
                   check=True)
    subprocess.run([exe, args.file, str(args.runs)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, PLY_BUDGET_ONLY="sample"))
    counts = collections.Counter(open(os.path.join(OUT, "samples.txt")).read().split())
    addrs = sorted(counts)
    text = subprocess.run(["addr2line", "-f", "-i", "-a", "-e", exe, *("0x" + a for a in addrs)],
                          capture_output=True, text=True, check=True).stdout.split("\n")
    chains, current = {}, None
    for i, line in enumerate(text):
        if line.startswith("0x") and (i == 0 or i % 1 == 0) and all(c in "0123456789abcdefx" for c in line):
            current = format(int(line, 16), "x")
            chains[current] = []
        elif current is not None and line and not line.startswith("/") and ":" not in line and line != "??":
            chains[current].append(line)
    by_stage, by_function = collections.Counter(), collections.Counter()
    total = sum(counts.values())
    for addr, n in counts.items():
        chain = chains.get(addr.lstrip("0") or "0") or chains.get(addr) or ["??"]
        name = next((f for f in chain if f not in HELPERS), chain[-1])
        by_function[name] += n
        by_stage[stage_of(name)] += n
    print(f"{total} samples")
    for stage, n in by_stage.most_common():
        print(f"{100 * n / total:5.1f}%  {stage}")
    print()
    for name, n in by_function.most_common(25):
        print(f"{100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    sys.exit(main())
