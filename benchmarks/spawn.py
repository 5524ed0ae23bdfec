"""Run one command and record its wall time and peak RSS: python -S -I spawn.py RESULT_FILE CMD ARGS...

run.py starts every tool through this small launcher rather than directly: on Linux a child's
ru_maxrss also counts the peak RSS of the process that forked it (the memory it had when the
child was forked), so the harness, which holds the reference answers, would inflate every
figure. The launcher is a bare interpreter (-S -I: no site, no user paths), so the floor is its
own few MB; run.py measures that floor with /bin/true and prints it. It writes
"wall_seconds ru_maxrss_kib exit_code cpu_seconds" to RESULT_FILE; the command inherits stdin/stdout/stderr.
"""
import os
import sys
import time


def main(result_file, argv):
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open(result_file, "w") as f:
        cpu = usage.ru_utime + usage.ru_stime
        f.write(f"{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)} {cpu}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
