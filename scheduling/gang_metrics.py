"""Seed 004 §2.1's per-job and per-class metrics (Wang, Papaefthymiou & Squillante).

For job ``j`` with arrival ``alpha``, first dispatch ``beta``, completion ``epsilon`` and service time
``S`` (the time it actually receives service: its run time on its partition):

* response ``R = epsilon - alpha``, queueing ``Q = beta - alpha``, execution ``E = epsilon - beta``,
* sharing ``H = E - S`` (swapped out, or loaded but not progressing during a context switch),
* waiting ``W = R - S = Q + H``, and the normalised response ``R / S``.

Under a non-preemptive scheduler (``FCFS``, ``EASY``) ``H = 0`` and ``W = Q``. Everything is
computed from a :class:`~scheduling.result.SimulationResult`'s table (``arrival``, ``start``,
``end``, ``runtime``, ``requested``), so it applies to every policy; a job's class is §5's ``i``
with ``2^(i-1) < p <= 2^i`` of its requested processors (``requested``: the partition size under
gang scheduling, the processor count under ``EASY``, the same class either way).

Per class (:func:`class_table`, seed 004 Fig. 3), means over the class's jobs; the normalised
response time of a class is ``mean(R) / mean(S)``, as in Fig. 3 (class 8: 146,441 / 300 = 488.4).
O(jobs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import check_int

__all__ = ["ClassRow", "job_classes", "job_metrics", "class_table", "format_class_table", "normalized_response"]

_DTYPE = [("id", np.int64), ("cls", np.int64), ("response", float), ("queueing", float), ("execution", float),
          ("service", float), ("sharing", float), ("waiting", float), ("normalized", float)]


def job_classes(processors: Any) -> np.ndarray:
    """§5's class of each processor count: ``ceil(log2 p)`` (0 for ``p = 1``).

    >>> job_classes([1, 2, 3, 4, 5, 256, 257, 320]).tolist()
    [0, 1, 2, 2, 3, 8, 9, 9]
    """
    p = np.asarray(processors, dtype=np.int64)
    if p.size and p.min() < 1:
        raise ValueError(f"processor counts must be >= 1, got {int(p.min())}")
    # exact integer ceil(log2 p): bit length of p - 1
    out = np.zeros(p.shape, dtype=np.int64)
    q = p - 1
    while np.any(q > 0):
        out += q > 0
        q >>= 1
    return out


def _table(result: Any) -> np.ndarray:
    table = getattr(result, "table", result)
    names = getattr(getattr(table, "dtype", None), "names", None) or ()
    for col in ("id", "arrival", "start", "end", "runtime", "requested"):
        if col not in names:
            raise ValueError(f"a result table needs the column {col!r}; got columns {names}")
    return table


def job_metrics(result: Any) -> np.ndarray:
    """Per-job §2.1 metrics of ``result`` (a :class:`SimulationResult` or its table): a structured
    array with ``id``, ``cls``, ``response``, ``queueing``, ``execution``, ``service``, ``sharing``,
    ``waiting`` and ``normalized`` (``R / S``; ``nan`` for ``S = 0``), in the table's order."""
    t = _table(result)
    out = np.empty(len(t), dtype=_DTYPE)
    out["id"] = t["id"]
    out["cls"] = job_classes(t["requested"])
    R = t["end"] - t["arrival"]
    S = t["runtime"].astype(float)
    out["response"] = R
    out["queueing"] = t["start"] - t["arrival"]
    out["execution"] = t["end"] - t["start"]
    out["service"] = S
    out["sharing"] = out["execution"] - S
    out["waiting"] = R - S
    with np.errstate(divide="ignore", invalid="ignore"):
        out["normalized"] = np.where(S > 0, R / np.where(S > 0, S, 1.0), np.nan)
    return out


@dataclass(frozen=True, slots=True)
class ClassRow:
    """Means over the jobs of one class (seed 004 Fig. 3's row, plus ``Q``, ``E`` and ``H``)."""

    cls: int
    jobs: int
    service: float
    queueing: float
    execution: float
    sharing: float
    waiting: float
    response: float

    @property
    def normalized(self) -> float:
        """``mean(R) / mean(S)`` (Fig. 3's last column); ``nan`` when the class has no service."""
        return self.response / self.service if self.service > 0 else float("nan")


def class_table(result: Any, classes: int | None = None) -> list[ClassRow]:
    """One :class:`ClassRow` per class ``0 .. classes-1`` (default: up to the largest class
    present); a class without jobs has ``jobs = 0`` and ``nan`` means."""
    if classes is not None:
        check_int(classes, "classes", low=0)
    m = job_metrics(result)
    n = classes if classes is not None else (int(m["cls"].max()) + 1 if len(m) else 0)
    rows = []
    for c in range(n):
        sel = m[m["cls"] == c]
        if len(sel) == 0:
            nan = float("nan")
            rows.append(ClassRow(c, 0, nan, nan, nan, nan, nan, nan))
            continue
        rows.append(ClassRow(c, len(sel), *(float(sel[k].mean()) for k in
                                            ("service", "queueing", "execution", "sharing", "waiting", "response"))))
    return rows


def normalized_response(result: Any, classes: int | None = None) -> np.ndarray:
    """``mean(R) / mean(S)`` per class (``nan`` for an empty class)."""
    return np.array([r.normalized for r in class_table(result, classes)])


def format_class_table(rows: list[ClassRow], title: str = "") -> str:
    """The rows as seed 004 Fig. 3 prints them (class, jobs, S, W, R, R/S), with Q and H added.

    >>> print(format_class_table([ClassRow(0, 2, 10.0, 1.0, 12.0, 3.0, 4.0, 14.0)]))
    class   jobs         S         Q         H         W         R     R/S
        0      2        10         1         3         4        14    1.40
    """
    lines = [title] if title else []
    lines.append(f"{'class':>5} {'jobs':>6} {'S':>9} {'Q':>9} {'H':>9} {'W':>9} {'R':>9} {'R/S':>7}")
    for r in rows:
        if r.jobs == 0:
            lines.append(f"{r.cls:>5} {0:>6} {'-':>9} {'-':>9} {'-':>9} {'-':>9} {'-':>9} {'-':>7}")
            continue
        lines.append(f"{r.cls:>5} {r.jobs:>6} {r.service:>9.0f} {r.queueing:>9.0f} {r.sharing:>9.0f} "
                     f"{r.waiting:>9.0f} {r.response:>9.0f} {r.normalized:>7.2f}")
    return "\n".join(lines)
