"""The README's recipe for Dask workers, tested (run by `.ci/wheel-smoke.sh --dask` in a venv that
has distributed but not pgntools): distributed's PipInstall plugin installs the wheel on every
worker (and the scheduler), then a task imports pgntools there and the CLI runs on the cluster.

    python wheel_dask.py REPO WHEEL
"""
import importlib
import os
import subprocess
import sys

from distributed import Client, LocalCluster, PipInstall



def check(condition, what):
    if not condition:
        sys.exit(f"wheel-smoke: FAILED: {what}")
    print(f"  ok: {what}")


def games_on_worker(path):
    import pgntools

    return pgntools.__file__, sum(1 for _ in pgntools.read_games(path))


def main():
    repo, wheel = sys.argv[1:3]
    sample = os.path.join(repo, "fixtures", "sample.pgn")
    try:
        import pgntools  # noqa: F401

        sys.exit("wheel-smoke: FAILED: pgntools is importable before the plugin ran")
    except ImportError:
        pass

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        # the recipe: a path (or URL) of the wheel that the scheduler and every worker can read
        client.register_plugin(PipInstall(packages=[wheel], restart_workers=True))
        where = client.run(games_on_worker, sample)
        check(len(where) == 2 and all(games == 5 for _, games in where.values()),
              f"each worker imports pgntools from the wheel and reads the 5 games ({sorted(where.values())[0][0]})")
        importlib.invalidate_caches()  # installed into this venv after start-up (a LocalCluster's scheduler)
        result = subprocess.run([os.path.join(sys.prefix, "bin", "pgntools"), "validate", "--jobs", "2",
                                 "--chunk-bytes", "600", "--scheduler", cluster.scheduler_address, sample],
                                capture_output=True, text=True, timeout=300)
        check(result.returncode == 1 and "5 games: 3 valid, 1 fixed, 1 invalid" in result.stderr,
              f"pgntools validate --scheduler on the cluster ({result.stderr.strip()})")
    print("wheel-smoke: the wheel installs on Dask workers with PipInstall")


if __name__ == "__main__":  # the workers' processes import this file: start nothing then
    main()
