"""Where the jobs of a schedule ran: a sidecar file next to the schedule (SWF has no field for it).

CSV (``job_id,nodes``, the node ids ascending and space-separated, one job per line, in job-id
order) or, with ``pyarrow`` installed, Parquet (a ``job_id`` int64 column and a ``nodes``
list<int64> column). :func:`~scheduling.formats.swf_write.write_swf` writes one beside a schedule whose
result recorded placements (``simulate(..., record_placement=True)``).

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "s.nodes.csv")
>>> write_placements(path, {3: np.array([5, 6]), 1: np.array([0])})
2
>>> {k: v.tolist() for k, v in read_placements(path).items()}
{1: [0], 3: [5, 6]}
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["write_placements", "read_placements", "PlacementFileError"]


class PlacementFileError(ValueError):
    """A placement file that cannot be read: the message names the file and the line."""


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() == ".parquet"


def write_placements(path: str | os.PathLike, placements: Mapping[int, np.ndarray]) -> int:
    """Write ``placements`` (job id -> node ids) to ``path`` (``.parquet``: Parquet, anything else:
    CSV), in job-id order; returns the number of jobs written."""
    path = Path(path)
    ids = sorted(int(j) for j in placements)
    if _is_parquet(path):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ImportError("writing Parquet needs pyarrow: pip install 'topoalloc[parquet]'") from exc
        table = pa.table({"job_id": pa.array(ids, pa.int64()),
                          "nodes": pa.array([np.sort(placements[j]).tolist() for j in ids], pa.list_(pa.int64()))})
        pq.write_table(table, path)
        return len(ids)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["job_id", "nodes"])
        for j in ids:
            w.writerow([j, " ".join(map(str, np.sort(placements[j]).tolist()))])
    return len(ids)


def read_placements(path: str | os.PathLike) -> dict[int, np.ndarray]:
    """Read a file written by :func:`write_placements`: job id -> read-only ascending node ids."""
    path = Path(path)
    out: dict[int, np.ndarray] = {}
    rows: Iterable[tuple[Any, Any]]
    if _is_parquet(path):
        import pyarrow.parquet as pq

        table = pq.read_table(path).to_pydict()
        rows = zip(table["job_id"], table["nodes"], strict=True)
    else:
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                reader = list(csv.reader(fh))
        except OSError as exc:
            raise PlacementFileError(f"{path}: {exc.strerror or exc}") from None
        if not reader or reader[0] != ["job_id", "nodes"]:
            raise PlacementFileError(f"{path}: line 1 must be the header 'job_id,nodes', got {reader[:1]!r}")
        parsed: list[tuple[int, list[int]]] = []
        for number, row in enumerate(reader[1:], start=2):
            try:
                parsed.append((int(row[0]), [int(v) for v in row[1].split()]))
            except (ValueError, IndexError):
                raise PlacementFileError(f"{path}: line {number} is not 'job_id,nodes': {row!r}") from None
        rows = parsed
    for jid, nodes in rows:
        a = np.array(nodes, dtype=np.int64)
        a.flags.writeable = False
        out[int(jid)] = a
    return out
