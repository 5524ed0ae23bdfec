"""--help puts each command's options under headings (issue 37 A7): its own options first, then
Reports, PGN output, Selection, Rules and Run; every option in one of them."""
import re

import pytest
from click.testing import CliRunner

from pgntools.cli import cli

COMMANDS = ["validate", "filter", "split", "to-fen", "export", "stats", "book"]
HEADINGS = ["Options", "Reports", "PGN output", "Selection", "Rules", "Run"]


def help_of(name: str) -> str:
    result = CliRunner().invoke(cli, [name, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("name", COMMANDS)
def test_help_groups_the_options_under_headings_in_order(name):
    text = help_of(name)
    headings = [h for h in re.findall(r"^(\w[\w ]*):$", text, re.M) if h in HEADINGS]
    assert headings == sorted(headings, key=HEADINGS.index) and {"Options", "Run"} <= set(headings), headings
    sections = dict(zip(headings, re.split(r"^(?:" + "|".join(headings) + r"):$", text, flags=re.M)[1:]))
    assert "--help" in sections["Run"] and "--jobs" in sections["Run"]
    where = re.compile(r"^  --where ", re.M)  # (the option's own line; others' help may name it)
    if where.search(text):
        assert where.search(sections["Selection"]) and not where.search(sections["Options"])
    command = cli.get_command(None, name)
    flags = [opt for p in command.params if not getattr(p, "hidden", False) for opt in p.opts if opt.startswith("--")]
    listed = "".join(sections.values())
    missing = [flag for flag in flags if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", listed)]
    assert not missing


def test_the_first_screen_is_the_commands_own_options():
    text = help_of("filter")
    options = text.split("\nOptions:\n", 1)[1].split("\nPGN output:\n", 1)[0].split("\nReports:\n", 1)[0]
    assert "-o, --output" in options and "--normalize" in options
    assert not re.search(r"^  (--where|--no-tags|-j, --jobs) ", options, re.M)


@pytest.mark.parametrize("name", COMMANDS + ["scan", "perft"])
def test_help_lists_the_exit_statuses(name):
    """Each command's --help lists the statuses it can give (issue 37): every one can fail to
    write (74: stdout or an output on a full disk), see its reader close stdout (141), be
    interrupted (130/143) or meet a bug (70); the run commands exit 1 for invalid games (validate
    always, the others with --fail-on-invalid)."""
    text = " ".join(help_of(name).split())
    statuses = text[text.index("Exit status:"):]
    for status in ("0", "2", "74", "141", "130/143", "70"):
        assert re.search(rf"(?<![\d/]){re.escape(status)}(?![\d/])", statuses), (name, status)
    if name in COMMANDS:
        assert re.search(r"\b1 (some game invalid|for them with --fail-on-invalid)", statuses), name
