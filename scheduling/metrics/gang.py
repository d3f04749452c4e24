"""Seed 004 §2.1's per-job and per-class metrics (Wang, Papaefthymiou & Squillante).

For job ``j`` with arrival ``alpha``, first dispatch ``beta``, completion ``epsilon`` and service time
``S`` (the time it actually receives service: its run time on its partition):

* response ``R = epsilon - alpha``, queueing ``Q = beta - alpha``, execution ``E = epsilon - beta``,
* sharing ``H = E - S`` (swapped out, or loaded but not progressing during a context switch),
* waiting ``W = R - S = Q + H``, and the normalised response ``R / S``.

Under a non-preemptive scheduler (``FCFS``, ``EASY``) ``H = 0`` and ``W = Q``. Everything is
computed from a :class:`~scheduling.kernel.result.SimulationResult`'s table (``arrival``, ``start``,
``end``, ``runtime``, ``requested``), so it applies to every policy; a job's class is §5's ``i``
with ``2^(i-1) < p <= 2^i`` of its requested processors (``requested``: the partition size under
gang scheduling, the processor count under ``EASY``, the same class either way).

Per class (:func:`class_table`, seed 004 Fig. 3), means over the class's jobs; the normalised
response time of a class is ``mean(R) / mean(S)``, as in Fig. 3 (class 8: 146,441 / 300 = 488.1, printed
488.4 from unrounded means).
O(jobs).

:data:`FIG3` is the paper's own table (the CTC SP2 under EASY-LL, August 1996), for printing
beside a replay of the log (:class:`~scheduling.policies.Recorded`); :func:`ratios` and
:func:`classes_better` compare two per-class tables as §6 does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_int

__all__ = ["ClassRow", "job_classes", "job_metrics", "class_table", "format_class_table", "normalized_response",
           "FIG3", "FIG3_PRINTED_RS", "FIG3_CLASS6_PRINTED_SERVICE", "ratios", "classes_better"]

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


def ratios(rows: list[ClassRow], baseline: list[ClassRow]) -> np.ndarray:
    """Per class, ``rows``' normalised response over ``baseline``'s (``< 1``: better than the
    baseline; ``nan`` where either has no jobs). Seed 004 §6 compares schedulers this way ("the
    normalized response time of class 8 decreases by almost a factor of 10").

    >>> a = [ClassRow(0, 1, 10.0, 0.0, 10.0, 0.0, 0.0, 10.0), ClassRow(1, 1, 1.0, 5.0, 1.0, 0.0, 5.0, 6.0)]
    >>> b = [ClassRow(0, 1, 10.0, 10.0, 10.0, 0.0, 10.0, 20.0), ClassRow(1, 1, 1.0, 2.0, 1.0, 0.0, 2.0, 3.0)]
    >>> ratios(a, b).tolist(), classes_better(a, b)
    ([0.5, 2.0], [0])
    """
    if len(rows) != len(baseline):
        raise ValueError(f"the tables have {len(rows)} and {len(baseline)} classes")
    out = np.full(len(rows), np.nan)
    for i, (r, b) in enumerate(zip(rows, baseline, strict=True)):
        if r.jobs and b.jobs and b.normalized > 0:
            out[i] = r.normalized / b.normalized
    return out


def classes_better(rows: list[ClassRow], baseline: list[ClassRow]) -> list[int]:
    """The classes in which ``rows`` has a shorter normalised response than ``baseline``."""
    return [int(i) for i in np.flatnonzero(ratios(rows, baseline) < 1.0)]


def _easy_ll(cls: int, jobs: int, service: float, waiting: float, response: float) -> ClassRow:
    # EASY-LL does not preempt (§2.2): Q = W, E = S, H = 0
    return ClassRow(cls, jobs, service, waiting, service, 0.0, waiting, response)


#: Class 6's mean service time as Fig. 3 prints it; the row's R - W is 102,359 - 93,040 = 9,319 and
#: its R/S 11.0 = 102,359 / 9,319, so the printed value is a typo for 9,319 (:data:`FIG3` uses 9,319).
FIG3_CLASS6_PRINTED_SERVICE = 93_189

#: Seed 004 Fig. 3: job counts and mean service ``S``, waiting ``W`` and response ``R`` times (s)
#: per class of the CTC SP2 log, August 1996, under EASY-LL (6,049 jobs of at most 320 processors
#: with nonzero CPU time), as printed except class 6's ``S`` (9,319 for the printed 93,189, see
#: :data:`FIG3_CLASS6_PRINTED_SERVICE`). ``R - W`` matches ``S`` within 1 s in every row.
FIG3: tuple[ClassRow, ...] = (
    _easy_ll(0, 2408, 16854.0, 9105.0, 25959.0),
    _easy_ll(1, 515, 18100.0, 12122.0, 30222.0),
    _easy_ll(2, 669, 9571.0, 10315.0, 19885.0),
    _easy_ll(3, 582, 3563.0, 13946.0, 17510.0),
    _easy_ll(4, 848, 8822.0, 24947.0, 33768.0),
    _easy_ll(5, 465, 9008.0, 69157.0, 78165.0),
    _easy_ll(6, 420, 9319.0, 93040.0, 102359.0),
    _easy_ll(7, 74, 12168.0, 128895.0, 141062.0),
    _easy_ll(8, 45, 300.0, 146141.0, 146441.0),
    _easy_ll(9, 23, 5912.0, 147240.0, 153153.0),
)

#: Fig. 3's last column as printed (``R / S``, one decimal).
FIG3_PRINTED_RS: tuple[float, ...] = (1.5, 1.7, 2.1, 4.9, 3.8, 8.7, 11.0, 11.6, 488.4, 26.0)
