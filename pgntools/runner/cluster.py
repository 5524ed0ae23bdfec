"""The Dask cluster executor of a parallel run (``--scheduler tcp://HOST:PORT``): a run's chunks
on the workers of a cluster, with the interface of pgntools.runner.parallel.LocalThreads. Needs
the dask extra: ``pip install 'pgntools-chess[dask]'``.

A chunk of a plain file is sent as (path, byte range) and read by the worker itself, so the path
must be readable at the same place on every worker (a shared filesystem); chunks of compressed
files and stdin are sent as bytes, and a worker that cannot read the path makes the client send
the bytes instead.

A worker lost mid-run (killed, its machine gone): the scheduler reruns its tasks on the others;
a task whose bytes were on the lost worker (scattered there) is cancelled, or its result cannot
be fetched from it, and the client, which still holds the chunk until its result is merged,
submits it again (RESUBMITS times at most; bytes scattered to a worker that is gone too).
A rerun writes the same temporary part names, so the output is the undisturbed run's.
"""
from __future__ import annotations

from pgntools.errors import PgnToolsError, WorkersLostError

RESUBMITS = 3  # a chunk whose task was cancelled (its bytes lost with a worker) is sent again
POLL = 1.0     # seconds between looks at the cluster's workers while a result is awaited
from pgntools.runner.chunks import Chunk
from pgntools.runner.worker import ChunkWork, read_here, run_chunk


def _distributed():
    try:
        import distributed
    except ImportError:
        raise PgnToolsError("Dask is not installed: pip install 'pgntools-chess[dask]' (or '.[dask]' in a "
                             "checkout of pgntools)") from None
    return distributed


def _connect_timeout() -> float:
    """Dask's connect timeout (the CLI's --connect-timeout), in seconds."""
    import dask
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect", "10s"), default="s"))


class ClusterExecutor:
    """Runs the chunks of a run on a Dask cluster; the interface of pgntools.runner.parallel.LocalThreads."""

    def __init__(self, address: str):
        distributed = _distributed()
        try:  # the connect timeout is Dask's (distributed.comm.timeouts.connect: the CLI's --connect-timeout)
            self.client = distributed.Client(address, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise PgnToolsError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.address = address
        self.lost_after = _connect_timeout()
        threads = sum(self.client.nthreads().values())
        self.window = 2 * max(threads, 1)
        self.paths_readable = True
        self.futures: list = []
        self.sent: dict = {}  # future key -> (fn, work, chunk, extra, resubmits): to send a lost chunk again

    holds = False  # a task's batches do not outlive it (pgntools.runner.in_order reads a chunk again)

    def submit(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        """``fn(work, chunk, data, *extra)`` (default run_chunk) on a worker (data None: the worker
        reads the chunk)."""
        fn = fn or run_chunk
        if chunk.data is None and self.paths_readable:
            future = self.client.submit(fn, work, chunk, None, *extra, pure=False)
        else:
            data = chunk.read() if chunk.data is not None else read_here(chunk)
            scattered = self._scatter(data)
            future = self.client.submit(fn, work, chunk.without_data(), scattered, *extra, pure=False)
        self.futures.append(future)
        if len(self.futures) > 4 * self.window:
            self.futures = [f for f in self.futures if not f.done()]
        self.sent[future.key] = (fn, work, chunk, extra, 0)
        return future

    def submit_fn(self, fn, *args):
        """``fn(*args)`` on a worker (a task that reads its input itself: the scheduler reruns
        it elsewhere when its worker is lost)."""
        future = self.client.submit(fn, *args, pure=False)
        self.futures.append(future)
        if len(self.futures) > 4 * self.window:
            self.futures = [f for f in self.futures if not f.done()]
        return future

    def _scatter(self, data):
        """The bytes onto a worker; one that is gone (the connection to it fails: OSError) is
        left for another."""
        for attempt in range(RESUBMITS + 1):
            try:
                return self.client.scatter(data, hash=False)
            except OSError:
                if attempt == RESUBMITS:
                    raise

    def resubmit_with_bytes(self, work: ChunkWork, chunk: Chunk, fn=None, extra: tuple = ()):
        self.paths_readable = False
        return self.submit(work, chunk, fn, extra)

    def result(self, future) -> dict:
        from distributed.client import FutureCancelledError

        while True:
            fn, work, chunk, extra, resubmits = self.sent.pop(future.key, (None,) * 4 + (RESUBMITS,))
            try:
                return self._wait(future)
            except (FutureCancelledError, OSError):  # its bytes, or its result, lost with a worker
                if resubmits >= RESUBMITS or fn is None:
                    raise
                future = self.submit(work, chunk, fn, extra)
                self.sent[future.key] = (fn, work, chunk, extra, resubmits + 1)

    def _wait(self, future):
        """The future's result; a cluster left without any worker for longer than the connect
        timeout (--connect-timeout) stops the run (WorkersLostError: exit 74, export --resume)."""
        import time

        lost_since = None
        while True:
            try:
                return future.result(timeout=POLL)
            except TimeoutError:
                pass
            if self.client.nthreads():
                lost_since = None
                continue
            now = time.monotonic()
            lost_since = lost_since or now
            if now - lost_since >= self.lost_after:
                raise WorkersLostError(f"the Dask cluster at {self.address} has no worker left (none for "
                                       f"{self.lost_after:g} s): the run stopped")

    @staticmethod
    def done(future) -> bool:
        return future.done()

    def close(self):
        self.client.close()

    def abort(self):
        """Cancels what has not finished (a task already running on a worker runs to its end;
        the Parquet parts it writes have temporary names that the parent removes)."""
        try:
            self.client.cancel([f for f in self.futures if not f.done()], force=True)
        finally:
            self.client.close()
