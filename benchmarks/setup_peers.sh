#!/usr/bin/env bash
# Install the peer tools the benchmark compares pgntools against. Safe to run again.
# Needs root (apt-get) and network access to Debian's archive and PyPI.
set -u
PY="${PYTHON:-python3}"

if [ -x /usr/games/pgn-extract ]; then
    echo "pgn-extract: already installed"
else
    apt-get update && apt-get install -y pgn-extract || { echo "pgn-extract: install FAILED"; exit 1; }
fi

"$PY" -m pip install --quiet "chess==1.11.2" "rust-pgn-reader-python-binding==4.1.0" "pyarrow>=12" \
    || { echo "python peers: install FAILED"; exit 1; }

# bulletchess 0.4.0 ships cp313 wheels only; on other Pythons it needs patching to build.
# Try once (binary only, quick) and skip if it cannot be had.
if "$PY" -c "import bulletchess" 2>/dev/null; then
    echo "bulletchess: already installed"
elif "$PY" -m pip install --quiet --only-binary=:all: "bulletchess==0.4.0" 2>/dev/null; then
    echo "bulletchess: installed"
else
    echo "bulletchess: skipped (no wheel for $("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])'))"
fi

echo "peers:"
/usr/games/pgn-extract -h 2>&1 | head -1
"$PY" -m pip list 2>/dev/null | grep -iE "^(chess|rust-pgn-reader-python-binding|pyarrow|bulletchess) "
