"""Imported only in the fork server of --jobs runs (pgntools.parallel preloads it there, never in
the run's own process): the fork server then ignores SIGTERM, as it already ignores SIGINT.

A SIGTERM sent to the whole process group (kill -TERM -PGID, systemd stopping a service) ended
the fork server, and with it the pipes by which the pool learns that a worker ended: the pool
took every worker for dead and the run exited, leaving the workers blocked forever on sending
results that no one reads (holding the run's stdout and stderr open). The workers ignore the
signal too (pgntools.parallel._worker_init); the run stops them."""
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
