"""Chang & Mohapatra (seed 002), Fig. 1 (a)-(c) and Fig. 3: RSR-t on a 32x32 mesh.

    python examples/rsr_mesh.py                               # full size: 50,500 jobs, first 500 discarded
    python examples/rsr_mesh.py --jobs 5050 --warmup 50       # a ten-times-quicker preview

Runs ``seed002_fig1_mesh_rsr.toml`` (2D buddy with square jobs, frame sliding and first fit, each with
RSR-0..3) and ``seed002_fig3_frame_vs_firstfit.toml`` (frame sliding with RSR-t against first fit)
through ``topoalloc run``: tables printed, results stored in ``results/*.sqlite`` (re-running
resumes), figures drawn when matplotlib is installed. Further arguments go to ``topoalloc run``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scheduling.cli import main

HERE = Path(__file__).resolve().parent
FILES = ["seed002_fig1_mesh_rsr.toml", "seed002_fig3_frame_vs_firstfit.toml"]

if __name__ == "__main__":
    for name in FILES:
        code = main(["run", str(HERE / name), *sys.argv[1:]])
        if code:
            sys.exit(code)
