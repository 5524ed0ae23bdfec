"""The `pgntools` command's entry point (the console script and `python -m pgntools`): two
standard-library modules deferred before Click loads, then pgntools.cli.main.

Start-up (issue 23): Click imports inspect (with ast, dis, tokenize, linecache: ~4.5 ms of a
~45 ms one-game validate) only to call inspect.cleandoc on each option's help while the commands
are built, and click.types' uuid imports platform (~1 ms: nine regular expressions compiled) only
to call platform.system(). Each is put in sys.modules as a deferred module that answers those
calls itself, exactly as the real function would (see each stand-in); the first use of any other
attribute (or a call a stand-in cannot answer exactly) executes the real module into the same
module object, as importlib.util.LazyLoader does, so every importer sees the real module from
then on. `--help` of a command loads inspect (its docstring has several lines).

Only this entry point defers anything: `import pgntools` and `import pgntools.cli` (a library
user, CliRunner) change no module. tests/test_startup.py checks that a small validate loads
neither module and that each path that needs the real one gets it.
"""
from __future__ import annotations

import gc
import os
import sys
from types import ModuleType

from _thread import RLock

_LOADING = "__pgntools_loading__"  # set in a deferred module's namespace while its real code runs
_lock = RLock()  # one thread runs a deferred module's code; another one that needs it waits


class _Deferred(ModuleType):
    """A module whose code has not run yet: its stand-ins and module attributes (__spec__,
    __file__, ...) are there; any other attribute runs the real code first."""

    def __getattr__(self, name):  # (only called for a name the module does not hold)
        load(self)
        return ModuleType.__getattribute__(self, name)

    def __dir__(self):
        load(self)
        return ModuleType.__dir__(self)


def load(module: ModuleType) -> ModuleType:
    """The real module's code run into ``module`` (once; a no-op for a module already loaded)."""
    with _lock:
        if type(module) is not _Deferred or _LOADING in module.__dict__:  # loaded, or loading in this thread
            return module
        module.__dict__[_LOADING] = True
        try:
            module.__spec__.loader.exec_module(module)  # its definitions replace the stand-ins
        except BaseException:
            if sys.modules.get(module.__name__) is module:  # as a failed import: gone from sys.modules
                del sys.modules[module.__name__]
            raise
        finally:
            del module.__dict__[_LOADING]
            module.__class__ = ModuleType
    return module


def defer(name: str, stand_ins: dict) -> ModuleType | None:
    """Put ``name`` in sys.modules as a deferred module holding ``stand_ins`` (None when it is
    loaded already or cannot be deferred: then nothing changes)."""
    if name in sys.modules:
        return None
    from importlib.util import find_spec, module_from_spec

    spec = find_spec(name)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return None
    module = module_from_spec(spec)
    module.__class__ = _Deferred
    module.__dict__.update(stand_ins)
    sys.modules[name] = module
    return module


def _defer_inspect():
    inspect = None

    def cleandoc(doc):
        # One line that starts with no white space and holds no tab is its own cleandoc in every
        # Python version (nothing to expand, dedent or drop): each option's help Click builds
        if isinstance(doc, str) and doc and "\n" not in doc and "\t" not in doc and not doc[0].isspace():
            return doc
        return load(inspect).cleandoc(doc)

    inspect = defer("inspect", {"cleandoc": cleandoc})


def _defer_platform():
    if sys.platform != "linux":  # uuid calls platform.system() only elsewhere than Windows and macOS
        return
    platform = None

    def system():
        # platform.system() is uname's system name, changed only for Windows, OpenVMS and 'unknown'
        name = os.uname().sysname
        return name if name == "Linux" else load(platform).system()

    platform = defer("platform", {"system": system})


def main():
    """The command line, with inspect and platform deferred while Click and the commands load."""
    # typing and Click make tens of thousands of objects and no garbage: the cyclic collector
    # would walk them several times (~8 M instructions, 5 % of a one-game validate). Paused here,
    # before them (`import pgntools` loads no typing); pgntools.cli.main() freezes what start-up
    # made, so the run's collections do not walk it again.
    collecting = gc.isenabled()
    gc.disable()
    _defer_inspect()
    _defer_platform()
    from pgntools.cli import main as cli_main  # (sees the collector paused: leaves it to us)

    if collecting:
        gc.enable()
    return cli_main()
