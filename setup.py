"""Declares the one compiled extension; all metadata lives in pyproject.toml.

PGNTOOLS_DEBUG=1 builds with -O0 -g and assertions; PGNTOOLS_SANITIZE=1 adds
AddressSanitizer and UndefinedBehaviorSanitizer, undefined behaviour aborting (run Python with
the ASan runtime preloaded: fuzz/README.md says how).
"""
import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("PGNTOOLS_DEBUG") == "1"
sanitize = os.environ.get("PGNTOOLS_SANITIZE") == "1"

compile_args = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-function", "-Werror=implicit-function-declaration"]
link_args = []
if debug or sanitize:
    compile_args += ["-O0", "-g", "-UNDEBUG"]
else:
    # hidden: the extension exports PyInit__core alone, so calls between its C files are direct
    # (not through the PLT) and may be inlined: replay 1-4 % faster in one process
    compile_args += ["-O3", "-DNDEBUG", "-fvisibility=hidden"]
if sanitize:
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
    compile_args += flags
    link_args += flags

core = Extension(
    "pgntools._core",
    sources=["pgntools/_core.pyx"] + sorted(glob.glob("pgntools/_c/*.c")),
    include_dirs=["pgntools/_c"],
    # a header's change (inline functions live in replay.h, position.h, ...) rebuilds the objects
    depends=sorted(glob.glob("pgntools/_c/*.h")),
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

setup(ext_modules=cythonize([core], language_level=3, compiler_directives={"boundscheck": False, "wraparound": False}))
