"""`split`'s file names: the -o template ({n}, {n:04}, {event}, ...) checked before any input is
read, and the safe file name of each group's value (a tag value can hold anything: `/`, `..`,
control characters, a Windows device name, a thousand bytes).

A value's name is a function of the value alone (the same value gets the same file in every run
and whatever the other values are): a value that is already a safe name is its own name; a value
that had to be changed gets the change and a short hash of its bytes (`1/2-1/2` → `1_2-1_2-
a3f09c11`), so two values that differ never share a file. A crafted value that hits another's
name (or differs from it only in case, which case-insensitive file systems fold) takes a longer
hash in input order, which is deterministic for one input and any --jobs.
"""
from __future__ import annotations

import hashlib
import os
import re
import string
import unicodedata
from typing import Dict, Optional, Sequence

from pgntools.usage import OptionError

UNKNOWN = "unknown"           # the name of the group of games without a value (absent, `?`, `-`, empty)
MAX_VALUE_BYTES = 96          # a value's part of a file name, in UTF-8 bytes (before the hash)
HASH_CHARS = 8                # hex digits of the hash a changed value gets (32 bits)
MAX_NAME_BYTES = 255          # the common file name limit (ext4, APFS, NTFS in UTF-16 units: stricter)
# Characters no file name gets: separators, what Windows refuses (`<>:"|?*`), and U+FFFD (bytes that
# were not UTF-8).
UNSAFE = set('/\\<>:"|?*\ufffd')
WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"{d}{i}" for d in ("COM", "LPT") for i in "0123456789¹²³")}
PART_SPEC = re.compile(r"(0[0-9]{1,2})?d?")  # {n}'s format: {n}, {n:04}, {n:04d} (zero-padded, no spaces)


class Template:
    """The -o TEMPLATE of split: a path whose file name holds one placeholder, ``field`` ('n' for
    --games, the field's name for --by), possibly more than once. ``name(value)`` is the path of
    one part (``value``: the part number, or a group's safe name)."""

    def __init__(self, text: str, field: str, fields: Sequence[str], by: bool):
        self.text = text
        self.field = field
        if text == "-" or "://" in text:
            raise OptionError(f"-o {text}: split writes one file per part, to a local path holding "
                              f"{{{field}}} (e.g. -o parts/{{{field}}}.pgn)")
        directory, base = os.path.split(text)
        if placeholders(directory, text):
            raise OptionError(f"-o {text}: the placeholder goes in the file name, not in the directory "
                              f"(e.g. {os.path.join('parts', '{' + field + '}.pgn')})")
        self.directory = directory or "."
        self.pieces = placeholders(base, text, keep_literals=True)
        named = [p for p in self.pieces if isinstance(p, tuple)]
        for name, spec in named:
            if name != field:
                valid = f"{{{field}}} (the value of --by {field})" if by else "{n} (the part number of --games)"
                hint = (f"; --by {name} splits by that field" if not by and name in fields
                        else "; {n} is the part number of --games" if by and name == "n" else "")
                raise OptionError(f"-o {text}: {{{name}}} is not this split's placeholder: it names {valid}{hint}")
            if by and spec:
                raise OptionError(f"-o {text}: {{{name}:{spec}}}: a --by field takes no format")
            if not by and not PART_SPEC.fullmatch(spec):
                raise OptionError(f"-o {text}: {{n:{spec}}} is not a part number's format: write {{n}} "
                                  "or a zero-padded width such as {n:04}")
        if not named:
            example = os.path.join(directory or "", "{" + field + "}" + (os.path.splitext(base)[1] or ".pgn"))
            raise OptionError(f"-o {text}: the template has no {{{field}}}, so every part would be one file: "
                              f"e.g. -o {example}")
        literal = sum(len(p.encode()) for p in self.pieces if isinstance(p, str))
        longest = MAX_VALUE_BYTES + 1 + 2 * HASH_CHARS + 8 if by else 20  # (a value, its hash, a counter)
        if literal + longest * len(named) > MAX_NAME_BYTES:
            raise OptionError(f"-o {text}: the file name's fixed part is too long ({literal} bytes): with the "
                              f"values it could pass the {MAX_NAME_BYTES}-byte limit of file names")

    def name(self, value) -> str:
        parts = [p if isinstance(p, str) else format(value, p[1]) if p[1] else str(value) for p in self.pieces]
        return os.path.join(self.directory, "".join(parts))


def placeholders(text: str, template: str, keep_literals: bool = False) -> list:
    """The pieces of a str.format template: literal strings and (name, spec) placeholders."""
    pieces: list = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise OptionError(f"-o {template}: {exc} (write {{{{ and }}}} for a literal brace)") from None
    for literal, name, spec, conversion in parsed:
        if literal and keep_literals:
            pieces.append(literal)
        if name is None:
            continue
        if not name or conversion:
            raise OptionError(f"-o {template}: {{{name}{'!' + conversion if conversion else ''}}}: a placeholder "
                              "is a name, as {n} or {event}")
        pieces.append((name, spec or ""))
    return pieces


# ---------------------------------------------------------------- safe names of values

def safe_name(value: Optional[bytes]) -> str:
    """The file-name part of a group's value (None: no value): never a separator, control or
    format character, Windows-unsafe character, leading dot, dash or space, trailing dot or
    space, device name (CON, NUL, COM1, ...) or more than MAX_VALUE_BYTES (+ the hash); a value
    that had to change ends in a hash of its bytes."""
    if not value:
        return UNKNOWN
    text = value.decode("utf-8", "replace")
    name = unicodedata.normalize("NFC", text)
    name = "".join("_" if ch in UNSAFE or unicodedata.category(ch)[0] == "C" else ch for ch in name)
    name = re.sub(r"\.{2,}", "_", name)
    name = re.sub(r"^[.\- ]", "_", name)
    name = re.sub(r"[. ]$", "_", name)
    if name.split(".")[0].rstrip(" ").upper() in WINDOWS_DEVICES:
        name = "_" + name
    name = _cut(name, MAX_VALUE_BYTES)
    if name.encode("utf-8") != value or name.casefold() == UNKNOWN:  # changed, or the no-value group's word
        name = f"{name}-{_digest(value, HASH_CHARS)}"
    return name


def _cut(name: str, limit: int) -> str:
    """At most ``limit`` UTF-8 bytes, cut at a character boundary (and not ending in a dot or space)."""
    data = name.encode("utf-8")
    if len(data) <= limit:
        return name
    cut = data[:limit].decode("utf-8", "ignore")
    return re.sub(r"[. ]$", "_", cut)


def _digest(value: bytes, chars: int) -> str:
    return hashlib.blake2b(value, digest_size=chars // 2).hexdigest()


class NameTable:
    """The file name of each group's value, unique over the run (case-insensitively: the files
    may be copied to a file system that folds case); a crafted clash is resolved in the order
    values first appear."""

    def __init__(self):
        self.names: Dict[Optional[bytes], str] = {}
        self.owners: Dict[str, Optional[bytes]] = {}  # casefolded name -> its value

    def __call__(self, value: Optional[bytes]) -> str:
        value = value or None  # an empty value is no value
        name = self.names.get(value)
        if name is None:
            name = self._claim(value, safe_name(value))
            self.names[value] = name
        return name

    def _claim(self, value: Optional[bytes], name: str) -> str:
        for candidate in self._candidates(value, name):
            if candidate.casefold() not in self.owners:
                self.owners[candidate.casefold()] = value
                return candidate
        raise AssertionError("no free name")  # (2^20 clashes of one 64-bit hash: not reachable)

    @staticmethod
    def _candidates(value: Optional[bytes], name: str):
        """The value's name, then (for a crafted clash) a longer hash, then that and a counter."""
        yield name
        if value is None:
            return
        longer = f"{_cut(name, MAX_VALUE_BYTES)}-{_digest(value, 2 * HASH_CHARS)}"
        yield longer
        for i in range(2, 1 << 20):
            yield f"{longer}-{i}"

