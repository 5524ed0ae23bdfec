"""A call run on another thread, whose result (or exception) the caller waits for: the part of
concurrent.futures that pgntools' threads use, without its import (~4 ms with logging, at the
start-up of every export and parallel run)."""
from __future__ import annotations

import threading


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
