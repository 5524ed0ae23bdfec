"""Packaging (issue 22, point 2), the quick part: what MANIFEST.in and pyproject.toml declare. The
whole build (sdist, wheel from the sdist, auditwheel, a venv without a compiler) is
.ci/wheel-smoke.sh, which CI runs; these catch a gap in seconds."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import pgntools

REPO = Path(__file__).resolve().parents[1]
DISTRIBUTION = "pgntools-chess"


def tracked(*paths: str) -> list:
    result = subprocess.run(["git", "-C", str(REPO), "ls-files", *paths], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip("not a git checkout")
    return result.stdout.split()


def manifest(files: list) -> set:
    """The files among ``files`` that MANIFEST.in puts in the sdist (setuptools' own rules)."""
    filelist = pytest.importorskip("setuptools._distutils.filelist", reason="setuptools' FileList")
    chosen = filelist.FileList()
    chosen.allfiles = list(files)  # no walk of the tree: the rules applied to these names
    for line in (REPO / "MANIFEST.in").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            chosen.process_template_line(line)
    return set(chosen.files)


def test_the_sdist_takes_every_tracked_source_data_and_fixture_file():
    # modules (.py) are taken by the build itself; everything else must match MANIFEST.in
    files = [f for f in tracked("pgntools", "fixtures") if not f.endswith(".py")]
    assert files
    assert sorted(set(files) - manifest(files)) == []


def test_new_c_files_and_cython_includes_are_taken_by_pattern():
    new = ["pgntools/_c/movegen_magic.c", "pgntools/_c/movegen_magic.h", "pgntools/_board.pxi",
           "pgntools/_reader.pxi", "fixtures/new.pgn"]
    assert manifest(new) == set(new)


def test_build_products_stay_out_of_the_sdist():
    products = ["pgntools/_core.c", "pgntools/_core.cpython-311-x86_64-linux-gnu.so", "pgntools/_c/san.o",
                "pgntools/__pycache__/cli.cpython-311.pyc"]
    assert manifest(products) == set()


def test_the_distribution_name_is_ours_and_the_version_has_one_source():
    text = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^name = "pgntools-chess"$', text, re.M)
    assert re.search(r'^dynamic = \["version"\]', text, re.M)
    assert 'version = {attr = "pgntools.__version__"}' in text
    assert re.search(r'^pgntools = "pgntools.cli:main"', text, re.M)  # the command keeps its name
    assert re.fullmatch(r"\d+\.\d+\.\d+", pgntools.__version__)


def test_the_version_option_prints_the_package_version():
    result = subprocess.run([sys.executable, "-m", "pgntools", "--version"], cwd=REPO, capture_output=True, text=True)
    assert result.stdout.strip() == f"pgntools, version {pgntools.__version__}"


def test_no_install_hint_names_the_other_projects_distribution():
    # `pip install pgntools` / 'pgntools[dask]' installs an unrelated project from the index
    wrong = re.compile(r"""pip install\s+(?:-\S+\s+)*['"]?pgntools(?:\[[^\]]*\])?['"]?(?=[\s`)]|$)""")
    assert wrong.search("python3 -m pip install --upgrade 'pgntools[dask]'")
    assert wrong.search("pip install pgntools")
    assert not wrong.search("pip install 'pgntools-chess[dask]'") and not wrong.search("pip install . && pgntools")
    offenders = []
    for name in tracked("*.py", "*.md", "*.sh", "*.toml", ".ci/run"):
        if name == "tests/test_packaging.py":  # the examples above
            continue
        text = (REPO / name).read_text(errors="replace")
        offenders += [f"{name}: {m.group(0)}" for m in wrong.finditer(text)]
    assert offenders == []
