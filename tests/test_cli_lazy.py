"""The command line's lazy group (pgntools.cli): each command in its own module, imported only when
it runs; --help lists the commands from a static table, which must say what the modules say."""
import ast
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pgntools import cli, cli_options

ROOT = Path(__file__).resolve().parent.parent
COMMANDS_DIR = ROOT / "pgntools" / "commands"
SHARED = {"__init__", "common"}  # the package's modules that define no command


def first_sentence(text: str) -> str:
    """The words of the first paragraph up to the first that ends a sentence: all that Click's
    shortened help of a command depends on, for any width."""
    words = []
    for word in text.split("\n\n")[0].split():
        words.append(word)
        if word.endswith("."):
            break
    return " ".join(words)


def test_the_table_names_every_command_module_and_says_what_it_says():
    modules = {path.stem for path in COMMANDS_DIR.glob("*.py")} - SHARED
    assert {module for module, _attribute, _help in cli.COMMANDS.values()} == modules
    for name, (module, attribute, short) in cli.COMMANDS.items():
        command = getattr(__import__(f"pgntools.commands.{module}", fromlist=[attribute]), attribute)
        assert isinstance(command, click.Command) and command.name == name, name
        assert not command.hidden and not command.deprecated and command.short_help is None, name
        assert short == first_sentence(command.help), name
        assert cli.cli.commands[name] is command


def test_each_command_module_defines_one_command_by_its_own_name():
    for path in COMMANDS_DIR.glob("*.py"):
        if path.stem in SHARED:
            continue
        names = [node.name for node in ast.parse(path.read_text()).body if isinstance(node, ast.FunctionDef)]
        assert len(names) == 1, path  # (one command a module; shared helpers live in common)


HELP_AT_WIDTHS = """
import sys, click
from pgntools.cli import cli
def helps():
    out = []
    for width in (40, 50, 60, 72, 80, 90, 100, 120, 200):
        with click.Context(cli, info_name="pgntools", terminal_width=width, max_content_width=100) as ctx:
            out.append(cli.get_help(ctx))
    return out
lazy = helps()
loaded = sorted(n for n in sys.modules if n.startswith("pgntools.commands."))
for name in list(cli.commands):  # every command loaded: Click's own format_commands' rows
    cli.commands[name]
eager = helps()
print(loaded == ["pgntools.commands.common"], lazy == eager, "validate  Replay every game" in lazy[-1])
"""


def test_the_group_help_is_the_same_as_with_every_command_loaded():
    done = subprocess.run([sys.executable, "-c", HELP_AT_WIDTHS], cwd=ROOT, capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


RUN = """
import sys
from pgntools.cli import main
sys.argv = ["pgntools"] + sys.argv[1:]
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted(n for n in sys.modules if n.startswith("pgntools.commands"))), file=sys.stderr)
"""


@pytest.mark.parametrize("args, commands", [
    (["scan", "fixtures/sample.pgn"], {"scan"}),
    (["validate", "--help"], {"validate"}),
    (["to-fen", "--format", "x", "fixtures/sample.pgn"], {"to_fen"}),
    (["--help"], set()),
    (["--version"], set()),
    (["valdate"], set()),
])
def test_a_run_imports_only_its_command(args, commands):
    done = subprocess.run([sys.executable, "-c", RUN, *args], cwd=ROOT, capture_output=True, text=True)
    names = set(done.stderr.strip().splitlines()[-1].split())
    assert names == {"pgntools.commands", "pgntools.commands.common"} | {f"pgntools.commands.{c}" for c in commands}


def test_a_mistyped_command_is_still_suggested():
    done = subprocess.run([sys.executable, "-m", "pgntools", "to-fn"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "No such command 'to-fn'. Did you mean 'to-fen'?" in done.stderr


def test_lazy_commands_is_a_mapping_that_loads_on_use(monkeypatch):
    calls = []

    def load(module, attribute):
        calls.append(module)
        return click.Command(attribute)

    monkeypatch.setattr(cli, "load_command", load)
    commands = cli.LazyCommands({"a": ("mod_a", "a", "A."), "b": ("mod_b", "b", "B.")})
    assert "a" in commands and "c" not in commands and list(commands) == ["a", "b"] and len(commands) == 2
    assert calls == []  # names, `in` and len need no import
    assert commands.short_help("a", 45) == "A." and commands["a"].name == "a" and calls == ["mod_a"]
    assert commands["a"] is commands["a"] and calls == ["mod_a"] and commands.short_help("a", 45) is None
    assert commands.get("c") is None
    commands["c"] = click.Command("c")
    del commands["b"]
    assert list(commands) == ["a", "c"] and calls == ["mod_a"]
    with pytest.raises(KeyError):
        del commands["b"]


# ---------------------------------------------------------------- short options without difflib

ARGS = [["-o", "out.pgn", "f.pgn"], ["-qj2", "f.pgn"], ["-j", "3", "-q", "f.pgn"], ["-oout.pgn", "f.pgn"],
        ["--output=x", "--jobs=2", "f.pgn"], ["-x", "f.pgn"], ["-qx", "f.pgn"], ["-o"], ["-j", "0", "f.pgn"],
        ["--outptu", "x", "f.pgn"], ["--jobs"], ["-q=1", "f.pgn"], ["--quiet=1", "f.pgn"], ["-", "f.pgn"],
        ["--", "-o", "f.pgn"], ["--classify", "f.pgn"], ["--classify=overwrite", "-j1", "f.pgn"]]


def parsed(command, args):
    try:
        with command.make_context("validate", list(args)) as ctx:
            return sorted(ctx.params.items(), key=lambda item: item[0])
    except click.UsageError as exc:
        return type(exc).__name__, exc.format_message()


@pytest.mark.skipif(cli_options._ShortOptionsFirst is None, reason="this Click's parser is of another shape")
def test_short_options_parse_as_with_clicks_own_parser(monkeypatch):
    validate = cli.cli.commands["validate"]
    ours = [parsed(validate, args) for args in ARGS]
    monkeypatch.setattr(cli_options, "_ShortOptionsFirst", None)  # Click's parser as it is
    assert ours == [parsed(validate, args) for args in ARGS]
    kind, message = ours[ARGS.index(["--outptu", "x", "f.pgn"])]
    assert kind == "NoSuchOption" and "--output" in message  # (a long one still gets its `Did you mean`)


def test_a_short_option_does_not_import_difflib():
    code = ("import sys\nfrom pgntools.cli import cli\n"
            "ctx = cli.commands['validate'].make_context('validate', ['-o', 'x.pgn', '-qj', '2', 'f.pgn'])\n"
            "print('difflib' in sys.modules, ctx.params['output'], ctx.params['jobs'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    expected = "True" if cli_options._ShortOptionsFirst is None else "False"
    assert done.stdout.split() == [expected, "x.pgn", "2"]
