"""Chang & Mohapatra (seed 002), Figs. 2, 4 and 5: RSR-t and limit-k on an 8-cube with buddy.

    python examples/rsr_hypercube.py                          # full size: 50,500 jobs, first 500 discarded
    python examples/rsr_hypercube.py --jobs 5050 --warmup 50  # a ten-times-quicker preview

Runs the experiment files ``seed002_fig2_cube_buddy_rsr.toml`` (mean turnaround vs load for RSR-t,
uniform and normal dimensions), ``seed002_fig4_cube_limit_vs_rsr.toml`` (limit-0 vs RSR-7, limit-5
vs RSR-2, limit-6 vs RSR-1) and ``seed002_fig5_cube_fairness.toml`` (mean turnaround by requested
size at load 0.7) through ``topoalloc run``: tables are printed, results stored in
``results/*.sqlite`` (re-running resumes), figures drawn when matplotlib is installed. Any further
arguments are passed to ``topoalloc run`` (``--workers``, ``--dask``, ``--replications`` ...).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scheduling.cli import main

HERE = Path(__file__).resolve().parent
FILES = ["seed002_fig2_cube_buddy_rsr.toml", "seed002_fig4_cube_limit_vs_rsr.toml", "seed002_fig5_cube_fairness.toml"]

if __name__ == "__main__":
    for name in FILES:
        code = main(["run", str(HERE / name), *sys.argv[1:]])
        if code:
            sys.exit(code)
