"""A simulated schedule written in a format other tools read: Batsim's ``_jobs.csv`` or SWF.

What ``topoalloc replay --export batsim|swf --export-dir DIR`` calls once per configuration:

* ``batsim``: ``DIR/<name>_jobs.csv`` (:func:`~.batsim_jobs.write_jobs_csv`: Batsim's columns, the
  nodes of each job as an interval set), which evalys and Batsim's own tools read;
* ``swf``: ``DIR/<name>.swf`` (:func:`~scheduling.workloads.write_swf`) and, when the run recorded
  placements, its nodes sidecar ``DIR/<name>.swf.nodes.csv``.

:func:`export_name` turns a configuration's label (``"SlurmTree FCFS"``) into a file stem.

>>> import os, tempfile
>>> from scheduling import Job, simulate
>>> from topoalloc import FirstFree; from topologies import SwitchTree
>>> r = simulate(FirstFree(SwitchTree.uniform((2, 4))), "FCFS", [Job(0, 0.0, 3, 5.0)], jobs=None,
...              record_placement=True)
>>> d = tempfile.mkdtemp()
>>> [os.path.basename(p) for p in export(r, "batsim", d, export_name("FirstFree", "FCFS"))]
['FirstFree-FCFS_jobs.csv']
>>> [os.path.basename(p) for p in export(r, "swf", d, "ff")]
['ff.swf', 'ff.swf.nodes.csv']
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._validate import ParameterError, shown
from ..kernel.jobs import Job

__all__ = ["EXPORT_FORMATS", "export", "export_name"]

#: The formats :func:`export` writes.
EXPORT_FORMATS = ("batsim", "swf")
_UNSAFE = re.compile(r"[^A-Za-z0-9._+=-]+")


def export_name(*parts: Any) -> str:
    """A file stem from a configuration's parts: each part's text, runs of characters other than
    letters, digits and ``._+=-`` replaced by ``_``, parts joined by ``-``.

    >>> export_name("SlurmTree", "EASY", "load 0.8")
    'SlurmTree-EASY-load_0.8'
    """
    text = "-".join(_UNSAFE.sub("_", str(p)).strip("_") for p in parts if p is not None and str(p) != "")
    if not text.strip("._-"):
        raise ParameterError(f"export_name needs a part with a letter or digit, got {parts!r}")
    return text


def export(result: Any, fmt: str, folder: str | os.PathLike = ".", name: str = "schedule", *,
           jobs: Iterable[Job] | None = None, workload_name: str = "w0") -> list[Path]:
    """Write ``result`` (a :class:`~scheduling.SimulationResult`) in format ``fmt`` (``"batsim"``
    or ``"swf"``) into ``folder`` (created if missing) under the stem ``name``; returns the paths
    written. ``jobs``: the workload's jobs (ids, requests, estimates, Batsim profiles, Slurm states:
    see :func:`~.batsim_jobs.write_jobs_csv` and :func:`~scheduling.workloads.write_swf`).
    ``workload_name``: Batsim's ``workload_name`` column (Batsim names its first workload ``w0``).
    A bad ``fmt`` or ``name`` (empty, a path, ``.`` or ``..``) is a
    :class:`~topologies.errors.ParameterError` naming it. O(jobs + nodes).
    """
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"export format must be one of {', '.join(EXPORT_FORMATS)}, got {shown(fmt)}")
    if not isinstance(name, str) or not name or name in (".", "..") or any(c in name for c in "/\\\0"):
        raise ParameterError(f"export name must be a file stem (no folder, not empty), got {shown(name)}")
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"export folder {str(out)!r} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    if not hasattr(result, "table"):
        raise ParameterError(f"export needs a SimulationResult, got {shown(result)}")
    kept = list(jobs) if jobs is not None else None
    if fmt == "batsim":
        from .batsim_jobs import jobs_csv_name, write_jobs_csv

        path = out / jobs_csv_name(name)
        write_jobs_csv(path, result, kept, workload_name=workload_name)
        return [path]
    from ..workloads import write_swf

    path = out / f"{name}.swf"
    sidecar = Path(f"{path}.nodes.csv")
    write_swf(path, result, kept, placements=sidecar)
    return [path, sidecar] if getattr(result, "placements", None) is not None else [path]
