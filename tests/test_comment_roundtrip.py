"""Issue 20: comments survive validate -o. A brace comment cannot hold a '}', so the writer
writes the braces of a nested comment ({ a { b } c }, read to its matching '}') as parentheses:
{a ( b ) c}. The cleaned file reads back with the same games and comments (so written), python-
chess reads the same comment text from it, and cleaning it again changes nothing."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pgntools
from pgn_helpers import chess_or_skip, cli_run, pc_read_game


def as_written(comment: str) -> str:
    """What the writer makes of a comment as read: whitespace runs as one space, each '}' as ')'
    and each '{' a '}' closes as '(' (a lone '{' stays)."""
    chars, open_at = list(comment), []
    for i, c in enumerate(chars):
        if c == "{":
            open_at.append(i)
        elif c == "}":
            chars[i] = ")"
            if open_at:
                chars[open_at.pop()] = "("
    return " ".join("".join(chars).split())


def clean(tmp_path, text: str, name: str) -> str:
    src, out = tmp_path / f"{name}.pgn", tmp_path / f"{name}.out.pgn"
    src.write_text(text, encoding="utf-8")
    run = cli_run(["validate", str(src), "-o", str(out), "-q"])
    assert run.exit_code == 0, run.stderr
    return out.read_text(encoding="utf-8")


def comments(games) -> list:
    return [[m.comment for m in g.moves] for g in games]


def test_a_nested_comment_is_written_with_parentheses_and_reads_back(tmp_path):
    text = '[Result "*"]\n\n1. e4 { a { b } c } e5 { see {this } 2. Nf3 {x{y{z}}w} *\n'
    out = clean(tmp_path, text, "nested")
    assert "1. e4 {a ( b ) c} 1... e5 {see {this} 2. Nf3 {x(y(z))w} *" in out
    (game,) = pgntools.read_games(str(tmp_path / "nested.out.pgn"), strict=True)  # standard PGN now
    assert game.status == "valid" and [m.comment for m in game.moves] == ["a ( b ) c", "see {this", "x(y(z))w"]
    assert clean(tmp_path, out, "again") == out


COMMENT_TEXT = st.text(alphabet=st.sampled_from(list("ab1 {}{}%;[]()\n\t$.é♞\\\"")), max_size=60)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(COMMENT_TEXT, min_size=1, max_size=4))
def test_comments_survive_validate_o(tmp_path, texts):
    pc = chess_or_skip()
    moves = ["e4", "e5", "Nf3", "Nc6"]
    body = " ".join(f"{m} {{{t}}}" for m, t in zip(moves, texts))
    text = f'[Event "c"]\n[Result "*"]\n\n{body} *\n\n[Event "next"]\n[Result "*"]\n\n1. d4 *\n'
    first = list(pgntools.read_games(str(_write(tmp_path, "in.pgn", text))))
    assume(all(g.status == "valid" for g in first))  # (a stray '}' is a syntax error: nothing to write)
    out = clean(tmp_path, text, "c")
    again = list(pgntools.read_games(str(tmp_path / "c.out.pgn")))
    # the same games, the same moves, the comments as written
    assert [(g.headers["Event"], g.uci, g.status) for g in again] == [(g.headers["Event"], g.uci, g.status) for g in first]
    want = [[as_written(c) if c is not None else None for c in game] for game in comments(first)]
    got = [[c if c is None else " ".join(c.split()) for c in game] for game in comments(again)]
    assert got == want
    assert all(n["kind"] != "nested_comment" for g in again for n in g.notes)  # standard PGN: nothing nested
    # python-chess reads the same moves and comment texts from the cleaned file
    game = pc_read_game(out.split("\n\n[Event")[0] + "\n")
    pc_comments = [" ".join(node.comment.split()) or None for node in game.mainline()]
    assert [m.uci() for m in game.mainline_moves()] == again[0].uci
    assert pc_comments == [c or None for c in got[0]]
    assert clean(tmp_path, out, "c2") == out  # cleaning the cleaned file changes nothing


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path
