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

# bulletchess 0.4.0 declares Requires-Python >=3.13 (cp313 wheels only); on older Pythons pip
# refuses it at once. Try once and report it skipped rather than patching its C sources.
if "$PY" -c "import bulletchess" 2>/dev/null; then
    echo "bulletchess: already installed"
elif timeout 300 "$PY" -m pip install --quiet "bulletchess==0.4.0" >/dev/null 2>&1; then
    echo "bulletchess: installed"
else
    echo "bulletchess: skipped (pip could not install 0.4.0 on Python $("$PY" -c 'import platform; print(platform.python_version())'))"
fi

echo "peers:"
/usr/games/pgn-extract -h 2>&1 | head -1
"$PY" -m pip list 2>/dev/null | grep -iE "^(chess|rust[-_]pgn[-_]reader[-_]python[-_]binding|pyarrow|bulletchess) "
