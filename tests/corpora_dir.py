"""Where the shared real-game corpora are: $PGNTOOLS_CORPORA when set, else ``../shared/corpora``
beside the repository (issue 37 A7). Every test that reads them takes the folder from here."""
import os
from pathlib import Path

CORPORA_DIR = Path(os.environ.get("PGNTOOLS_CORPORA") or Path(__file__).resolve().parents[2] / "shared" / "corpora")
