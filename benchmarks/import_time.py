"""Import time of the packages as a user meets it: whole interpreter processes.

    python benchmarks/import_time.py              # 11 runs of each command, alternating
    python benchmarks/import_time.py --runs 21    # more runs
    python benchmarks/import_time.py --top 15     # also the slowest modules of `import scheduling`

Runs ``python -c "import numpy"`` and ``python -c "import <package>"`` (``scheduling``,
``topoalloc``, ``topologies``) as subprocesses with the same interpreter, alternating them so that
the machine's load affects each alike, and prints the median wall time of each and its ratio to
numpy's. The target (issue 10 §3) is ``import scheduling`` within 2x of ``import numpy``.
``--top`` adds the modules with the largest cumulative time from ``python -X importtime``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("numpy", "topologies", "topoalloc", "scheduling")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time imports as a user has them: from cached bytecode
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def time_import(module: str, env: dict[str, str]) -> float:
    """Wall time of one ``python -c "import module"`` process, in seconds."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], env=env, check=True)
    return time.perf_counter() - t0


def top_modules(module: str, env: dict[str, str], count: int) -> list[tuple[int, str]]:
    """The ``count`` modules with the largest cumulative import time (microseconds) in one run."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], env=env, check=True,
                         capture_output=True, text=True).stderr
    rows = []
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=11, help="processes per command (default: 11)")
    ap.add_argument("--top", type=int, default=0, help="list the N slowest modules of `import scheduling`")
    args = ap.parse_args(argv)
    env = _env()
    times: dict[str, list[float]] = {m: [] for m in PACKAGES}
    for m in PACKAGES:  # warm the file cache and the bytecode caches
        time_import(m, env)
    for _ in range(args.runs):
        for m in PACKAGES:
            times[m].append(time_import(m, env))
    base = statistics.median(times["numpy"])
    print(f"{sys.executable} ({sys.version.split()[0]}), median of {args.runs} processes, load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'command':<34} {'median s':>9} {'min s':>7} {'x numpy':>8}")
    for m in PACKAGES:
        med = statistics.median(times[m])
        label = f'python -c "import {m}"'
        print(f"{label:<34} {med:9.3f} {min(times[m]):7.3f} {med / base:8.2f}")
    ratio = statistics.median(times["scheduling"]) / base
    print(f"\nimport scheduling / import numpy = {ratio:.2f} (target <= 2)")
    if args.top:
        print("\nslowest modules of `import scheduling` (cumulative, one -X importtime run):")
        for us, name in top_modules("scheduling", env, args.top):
            print(f"  {us / 1000:8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
