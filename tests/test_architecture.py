"""The shape of the package (issue 17, ARCHITECTURE.md): no import cycles between the modules of
pgntools/ (every import counts, also those inside functions), the sinks do not know the runner,
an output is one class, the reader's options are declared once."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

from graph_cycles import cycles
from pgntools.sinks.base import Sink

PACKAGE = Path(__file__).resolve().parents[1] / "pgntools"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: Set[str]) -> Set[str]:
    """The pgntools modules a module imports anywhere in it (top level, functions, TYPE_CHECKING)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from pgntools import records` imports pgntools.records; `from x import name`, x
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # pgntools.tables.schema.GAMES -> the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> Dict[str, Set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def import_cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The import cycles. A package's __init__ is left out as a target: importing pgntools.x runs
    pgntools/__init__ first anyway."""
    return cycles(graph, ignore=("pgntools", "pgntools.sinks"))


def test_the_import_graph_is_read():
    graph = import_graph()
    assert "pgntools.runner.run" in graph and "pgntools.reader" in graph["pgntools.runner.run"]
    assert "pgntools.runner.parallel" in graph["pgntools.runner.run"]  # a function-level import counts
    assert "pgntools.records" in graph["pgntools.reader"]  # so do TYPE_CHECKING ones
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_no_import_cycles():
    assert import_cycles(import_graph()) == []


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_sinks_do_not_import_the_runners():
    graph = import_graph()
    assert any(in_package(module, "pgntools.runner") for module in graph)
    for module, targets in graph.items():
        if in_package(module, "pgntools.sinks"):
            runners = {t for t in targets if in_package(t, "pgntools.runner") or t in ("pgntools.dask", "pgntools.cli")}
            assert not runners, (module, runners)


def test_where_and_the_sinks_do_not_import_each_other():
    """--where and the sinks both read the table model (pgntools.tables), never each other."""
    graph = import_graph()
    for one, other in (("pgntools.where", "pgntools.sinks"), ("pgntools.sinks", "pgntools.where")):
        for module, targets in graph.items():
            if in_package(module, one):
                assert not {t for t in targets if in_package(t, other)}, (module, other)
    for package in ("pgntools.where", "pgntools.sinks"):
        assert any(in_package(t, "pgntools.tables") for m, targets in graph.items() if in_package(m, package)
                   for t in targets)


def test_the_table_model_imports_no_sinks_runner_or_where():
    graph = import_graph()
    for module, targets in graph.items():
        if in_package(module, "pgntools.tables") or in_package(module, "pgntools.parquet"):
            users = {t for t in targets if any(in_package(t, p) for p in
                                              ("pgntools.sinks", "pgntools.where", "pgntools.runner", "pgntools.dask"))}
            assert not users, (module, users)


# ---------------------------------------------------------------- ARCHITECTURE.md's "add an output"

class GameLines(Sink):
    """A throwaway output written as the recipe says: one class, bytes to one output."""

    needs = {"numbered": True}

    def __init__(self, output):
        self.output = output

    def write(self, batch):
        status = batch.column("status")
        self.output.write(b"".join(b"%d %d\n" % (batch.game_id(g), status[g]) for g in range(batch.n_games)))


class ResultCounts(Sink):
    """A throwaway output that holds more than bytes: counts merged from the workers, written at
    the end."""

    needs = {}

    def __init__(self, output):
        from collections import Counter

        self.output, self.counts = output, Counter()

    def write(self, batch):
        self.counts.update(batch.raw["result"])

    def finish_chunk(self):
        return dict(self.counts)

    def merge(self, part):
        self.counts.update(part)

    def commit(self):
        self.output.write(repr(sorted(self.counts.items())).encode())


def test_an_output_is_one_class(tmp_path):
    from pgntools.options import ReaderOptions, Workers
    from pgntools.runner.run import Run
    from pgntools.sinks.base import SinkSpec
    from test_parallel import fixtures_input, tricky_input

    source = tmp_path / "in.pgn"
    source.write_bytes(tricky_input(4) + fixtures_input())
    got = []
    for jobs in (1, 2, 3):
        lines, counts = tmp_path / f"lines{jobs}", tmp_path / f"counts{jobs}"
        Run("validate", [str(source)], ReaderOptions(), outputs={"lines": str(lines), "counts": str(counts)},
            progress=False, workers=Workers(jobs, None, 500)).execute(
            [SinkSpec("lines", GameLines), SinkSpec("counts", ResultCounts)])
        got.append((lines.read_bytes(), counts.read_bytes()))
    assert got[0] == got[1] == got[2]
    assert got[0][0].count(b"\n") > 50 and got[0][1].startswith(b"[(")


def test_the_reader_options_are_declared_once():
    """ReaderOptions states every option of the compiled reader and its default; the reader takes
    the object (or its fields by keyword) and refuses anything else."""
    import io

    import pytest

    from pgntools import _core
    from pgntools.options import ReaderOptions

    source = b'[Event "a"]\n[Result "*"]\n\n1. e4 {x} e5 *\n'
    by_object = next(_core.BatchReader(io.BytesIO(source), ReaderOptions(moves=True, comments=True)))
    by_keyword = next(_core.BatchReader(io.BytesIO(source), moves=True, comments=True))
    assert by_object == by_keyword and by_object["comment"][1] == b"x"
    replaced = next(_core.BatchReader(io.BytesIO(source), ReaderOptions(moves=True), comments=True))
    assert replaced == by_object
    with pytest.raises(TypeError, match="max_gamesize"):
        _core.BatchReader(io.BytesIO(source), max_gamesize=1)
    # the 64 MiB default is stated once
    sources = [p.read_text() for p in PACKAGE.rglob("*.py")] + [p.read_text() for p in PACKAGE.glob("_core*.p*")]
    assert sum(text.count("64 << 20") for text in sources) == 2  # MAX_GAME_SIZE, and dask's partition size
