"""Side-by-side speed of this checkout against an earlier revision, on the simulator's hot paths.

    python benchmarks/versus.py --base c1a5192          # every case, 5 rounds
    python benchmarks/versus.py --base HEAD~3 --case fs-rsr1 --rounds 9

The base revision is exported with ``git archive`` into a temporary directory. Each round runs every
case once in a fresh process per tree, alternating which tree goes first, and each process times
only the simulation (the workload is built before the clock starts). The table gives the median
time of each tree and the ratio base / this (above 1: this checkout is faster). Run it on an idle
machine, or at least compare ratios rather than absolute times: both trees see the same load.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_TIMER = """
import time
t0 = time.perf_counter()
{run}
print(time.perf_counter() - t0)
"""

#: name -> (set-up code, timed code); both must run against either tree's public API.
CASES: dict[str, tuple[str, str]] = {
    "fs-rsr1": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import Synthetic, MeshSides, Exponential\n"
        "from topoalloc import FrameSliding\nfrom topologies import Mesh\n"
        "jobs = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.7, machine_size=1024).take(50500, seed=1)\n",
        "simulate(FrameSliding(Mesh(32, 32)), 'RSR-1', jobs, jobs=50500, warmup=500)",
    ),
    "ff-fcfs": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import Synthetic, MeshSides, Exponential\n"
        "from topoalloc import FirstFit\nfrom topologies import Mesh\n"
        "jobs = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.5, machine_size=1024).take(50500, seed=1)\n",
        "simulate(FirstFit(Mesh(32, 32)), 'FCFS', jobs, jobs=50500, warmup=500)",
    ),
    "flat-fcfs-lublin": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import load_swf, trace_path\n"
        "from topoalloc import FlatPool\nfrom topologies import Flat\n"
        "trace = load_swf(trace_path('lublin_256'))\n",
        "simulate(FlatPool(Flat(256)), 'FCFS', trace, jobs=None)",
    ),
    "buddy-rsr1": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import Synthetic, CubeDims, Exponential\n"
        "from topoalloc import Buddy\nfrom topologies import Hypercube\n"
        "jobs = Synthetic(CubeDims(7), Exponential(5.0), load=0.8, machine_size=256).take(50500, seed=1)\n",
        "simulate(Buddy(Hypercube(8)), 'RSR-1', jobs, jobs=50500, warmup=500)",
    ),
    # the seed 002 mesh cases of ``simulate.py --backfill`` (4,000 jobs at load 0.6, exact estimates)
    "fs-easy": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import Synthetic, MeshSides, Exponential\n"
        "from topoalloc import FrameSliding\nfrom topologies import Mesh\n"
        "jobs = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.6, machine_size=1024).take(4000, seed=1)\n",
        "simulate(FrameSliding(Mesh(32, 32)), 'EASY', jobs, jobs=None)",
    ),
    "ff-easy": (
        "from scheduling import simulate\n"
        "from scheduling.workloads import Synthetic, MeshSides, Exponential\n"
        "from topoalloc import FirstFit\nfrom topologies import Mesh\n"
        "jobs = Synthetic(MeshSides(32, 32), Exponential(5.0), load=0.6, machine_size=1024).take(4000, seed=1)\n",
        "simulate(FirstFit(Mesh(32, 32)), 'EASY', jobs, jobs=None)",
    ),
}


def export(rev: str, into: Path) -> Path:
    """``git archive rev`` unpacked under ``into``."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True,
                          capture_output=True).stdout
    tar = into / "base.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as t:
        t.extractall(into / "tree", filter="data")
    return into / "tree"


def timed(tree: Path, case: str) -> float:
    setup, run = CASES[case]
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = setup + _TIMER.format(run=run)
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="git revision to compare against (e.g. a tag or commit)")
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="a case (repeatable; default: all)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per case (default 5)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds must be >= 1, got {args.rounds}")
    # each process runs in its own tree: make the default trace directory absolute
    os.environ.setdefault("TOPOALLOC_TRACES", str((ROOT.parent / "shared" / "traces").resolve()))
    cases = args.case or list(CASES)
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"base {args.base} vs this checkout; medians of {args.rounds} rounds")
    print(f"{'case':<18} {'base s':>8} {'this s':>8} {'base/this':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        base = export(args.base, Path(tmp))
        for case in cases:
            times: dict[str, list[float]] = {"base": [], "this": []}
            for r in range(args.rounds):
                order = [("base", base), ("this", ROOT)]
                for name, tree in order if r % 2 == 0 else reversed(order):
                    times[name].append(timed(tree, case))
            b, t = statistics.median(times["base"]), statistics.median(times["this"])
            print(f"{case:<18} {b:8.3f} {t:8.3f} {b / t:9.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
