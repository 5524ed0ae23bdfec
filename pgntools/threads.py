"""Calls run on other threads, whose results (or exceptions) the caller waits for: the part of
concurrent.futures that pgntools' threads use (the --jobs workers, export's writer thread),
without its import (~4 ms with logging, at the start-up of every export and parallel run)."""
from __future__ import annotations

import threading
from collections import deque


class Task:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args
        self.finished = threading.Event()
        self.value = self.error = None

    def run(self):
        try:
            self.value = self.fn(*self.args)
        except BaseException as exc:  # raised again by result() in the waiting thread
            self.error = exc
        finally:
            self.fn = self.args = None  # a finished task keeps only its result (not a batch)
            self.finished.set()

    def result(self):
        self.finished.wait()
        if self.error is not None:
            raise self.error
        return self.value

    def exception(self):
        self.finished.wait()
        return self.error


class Pool:
    """`n` threads running the calls submitted to them, in order of submission: what
    concurrent.futures' ThreadPoolExecutor would do here. The threads are daemons, so a run
    that fails before closing its pool still exits; outputs are committed only by close paths."""

    def __init__(self, n: int, name: str):
        self.tasks: deque = deque()  # queued Tasks; None tells a thread to stop
        self.ready = threading.Condition()
        self.threads = [threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True) for i in range(n)]
        for thread in self.threads:
            thread.start()

    def _work(self):
        while True:
            with self.ready:
                while not self.tasks:
                    self.ready.wait()
                task = self.tasks.popleft()
            if task is None:
                return
            task.run()

    def submit(self, fn, *args) -> Task:
        task = Task(fn, args)
        with self.ready:
            self.tasks.append(task)
            self.ready.notify()
        return task

    def close(self):
        """Lets the threads finish the queued calls, then stops them (again: nothing)."""
        with self.ready:
            self.tasks.extend([None] * len(self.threads))
            self.ready.notify_all()
        for thread in self.threads:
            thread.join()
        self.threads = []

    def abort(self):
        """Drops the queued calls; the threads stop after the one they are running."""
        with self.ready:
            self.tasks.clear()
        self.close()
