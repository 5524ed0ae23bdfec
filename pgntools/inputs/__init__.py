"""A run's inputs: opened, decompressed, decoded and measured before the reader sees their bytes.

  streams.py        Input: a path, '-' or URL opened, compression detected, bytes counted; zip
                    members (open_inputs); check_inputs; what a non-PGN input looks like
  sizes.py          each input's size on disk and kind (plain or compressed), found once a run
  text_encoding.py  UTF-16 input found (BOM or NUL pattern) and decoded to UTF-8 as it streams

Where a path or URL lives (local or fsspec) is pgntools.storage, which the outputs use too.
"""
