"""The command line's exit statuses (README "Exit status"): each failure has its own, so a
pipeline can tell a data problem (1) from a broken run. 70 and 74 are sysexits.h's EX_SOFTWARE
and EX_IOERR."""

EXIT_INVALID = 1       # validate: some game is invalid (0 with --exit-zero); the others: with --fail-on-invalid
EXIT_USAGE = 2         # usage error or unreadable input
EXIT_INTERNAL = 70     # a bug in pgntools, or out of memory
EXIT_IO = 74           # an output failed while written: a full disk, a write error
EXIT_PIPE = 141        # 128 + SIGPIPE: the reader of stdout or of a pipe output went away
