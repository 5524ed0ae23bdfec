"""UTF-16 input, decoded to UTF-8 as it is read (streams.Input wraps its stream in Utf16Decoder).

PGN is 8-bit text, but Windows tools (some ChessBase and Arena exports, PowerShell's `>`) write
UTF-16. Read as bytes, every other byte is a NUL and no game is found; decoded, the games read
as any others. The decoded stream is what every command reads: offsets, lines and columns in
reports count its UTF-8 bytes, and every output (-o, --rejects, filter) is UTF-8.

Detected from the stream's first bytes: a byte order mark (FF FE little-endian, FE FF
big-endian), or without one the NUL pattern of ASCII text in UTF-16 (PGN starts with tags or
move numbers: ASCII). UTF-8 never holds a NUL byte, so UTF-8 and 8-bit text are never taken for
UTF-16. A lone surrogate or an odd last byte decodes as U+FFFD (the games around it still read).
A UTF-8 byte order mark needs nothing here: the scanner skips it (also mid-stream).
"""
from __future__ import annotations

import codecs
import io
from typing import Optional

# Bytes of the stream's start looked at for the NUL pattern (and kept to be handed out again).
SNIFF = 256
# UTF-16 code units read at a time.
PIECE = 1 << 16


def utf16_encoding(head: bytes) -> Optional[str]:
    """The codec of a stream starting with ``head``: "utf-16-le" or "utf-16-be" (with or
    without a byte order mark), or None when it is not UTF-16."""
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    n = len(head) // 2
    if n < 4:
        return None
    low_zero = sum(head[2 * i] == 0 and head[2 * i + 1] != 0 for i in range(n))
    high_zero = sum(head[2 * i + 1] == 0 and head[2 * i] != 0 for i in range(n))
    if high_zero >= n / 2 and high_zero > 4 * low_zero:  # 'E' '\0': ASCII in little-endian
        encoding = "utf-16-le"
    elif low_zero >= n / 2 and low_zero > 4 * high_zero:
        encoding = "utf-16-be"
    else:
        return None
    text = head[:2 * n].decode(encoding, "replace")
    printable = sum(c.isprintable() or c in "\t\r\n\f" for c in text)
    return encoding if printable >= 0.95 * len(text) else None


class Utf16Decoder(io.RawIOBase):
    """The UTF-8 text of a UTF-16 stream (``raw``, read from its start; its byte order mark
    dropped). ``decoded`` counts the UTF-8 bytes handed out; ``error`` is the raw stream's."""

    def __init__(self, raw, encoding: str):
        self.raw = raw
        self.encoding = encoding
        self.decoder = codecs.getincrementaldecoder(encoding)("replace")
        self.pending = memoryview(b"")
        self.first = True  # the byte order mark, if any, is the first code unit
        self.done = False
        self.decoded = 0
        self.head = b""  # the first UTF-8 bytes (what a non-PGN input looks like)

    @property
    def error(self):
        return getattr(self.raw, "error", None)

    def readable(self):
        return True

    def readinto(self, b):
        while not self.pending and not self.done:
            data = self.raw.read(PIECE)
            text = self.decoder.decode(data or b"", final=not data)
            self.done = not data
            if self.first and text:
                text = text[1:] if text[0] == "\ufeff" else text
                self.first = False
            self.pending = memoryview(text.encode("utf-8"))
        n = min(len(b), len(self.pending))
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        if len(self.head) < 4096:
            self.head += bytes(b[:min(n, 4096 - len(self.head))])
        self.decoded += n
        return n
