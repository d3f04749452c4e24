"""The recorded schedule of a trace as a pseudo-policy: ``Recorded`` starts every job when the
production scheduler did.

Seed 004 (Wang, Papaefthymiou & Squillante) compares its gang schedulers with EASY-LL, and its
EASY-LL numbers are not a simulation: they are the waiting and response times the Cornell Theory
Center's production scheduler achieved (§5: "the average waiting and response time that was
achieved for each class using the EASY-LL scheduler"; §6: "the corresponding curves in Figs. 4-7
represent the last column in the table of Fig. 3"). A Standard Workload Format log records that
schedule in field 3, the wait time. Replaying it through the simulator makes the production
schedule a result like any simulated one (same table, per-class rows, stored rows, plots), so it
can be put beside simulated schedulers on the same jobs.

**Semantics.** A job ``j`` with a known recorded wait ``w_j >= 0`` starts at ``arrival_j + w_j``
and runs for its recorded run time, on its own processor count (``job.size``, else the request
as the allocator counts it). The policy **does not use the allocator**: the schedule happened on
the production machine, whatever the simulated machine is, so nothing is allocated, nothing can
block, and the result is the log's own schedule whatever allocator is bound (bind a
:class:`~topoalloc.FlatPool` of the machine's size for a clean configuration). The simulated
machine's size enters only the utilisation, which can exceed 1 when the recorded schedule held
more processors at once than the simulated machine has (August 1996 of the CTC SP2 log holds up
to 460 processors at once counting only the jobs of at most 320 processors with nonzero CPU time:
the logged waits include times the jobs were held or the batch partition of 338 nodes was
exceeded; the machine had 512 nodes).

**Where the job ran.** A job that carries its recorded nodes (``job.attrs["nodes"]``: ascending
node ids on the simulated topology, as :func:`~scheduling.formats.sacct.read_sacct` maps a Slurm
dump's ``NodeList`` on the site's ``topology.conf``) starts on them: its grant is a
:class:`RecordedNodes`, so the result records them (``placements``) and, on a switch tree,
measures their locality (``leaf_switches``, ``mean_hops``) like any allocator's grant. Nodes are
not checked against each other: a log in which two jobs shared a node (Slurm's ``OverSubscribe``)
replays as logged. A node id outside the simulated machine raises :class:`RecordedScheduleError`
naming the job. A job without recorded nodes (an SWF trace) starts on no grant (``None``).

**Where the wait comes from:** ``job.attrs["recorded_wait"]`` if present, else the SWF record
(``job.attrs["swf"].wait_time``, field 3) that :func:`~scheduling.workloads.load_swf` attaches. A
wait that is unknown (field 3 = ``-1``, any negative value, or no record at all) is **reported and
skipped**: the job is never started, so it is counted in the result's ``unfinished`` (it is the
only way a ``Recorded`` job stays unfinished) and listed in :attr:`Recorded.unknown`. To compare
schedulers on the same jobs, drop such jobs from every run instead (the ``Trace`` workload
model's ``known_wait = true``).

**Arrival times must be the recorded ones.** A trace whose arrivals were rescaled to an offered
load (or shifted) no longer matches its recorded waits; a job whose arrival differs from its SWF
submit time raises :class:`RecordedScheduleError`.

Decides once per instant (the starts due at ``now``), with one timer per distinct start time.
O(log jobs) per job.

>>> from scheduling import Job, simulate
>>> from topoalloc import FlatPool; from topologies import Flat
>>> jobs = [Job(0, 0.0, 2, 5.0, attrs={"recorded_wait": 3.0}), Job(1, 1.0, 4, 2.0, attrs={"recorded_wait": 0.0}),
...         Job(2, 2.0, 1, 1.0, attrs={"recorded_wait": -1})]
>>> r = simulate(FlatPool(Flat(4)), "Recorded", jobs, jobs=None)
>>> r.start.tolist(), r.end.tolist(), r.unfinished      # jobs 0 and 1 overlap on 6 > 4 processors
([3.0, 1.0], [8.0, 3.0], 1)

With recorded nodes, on a switch tree of two leaf switches of two nodes:

>>> import numpy as np
>>> from topoalloc import FirstFree; from topologies import SwitchTree
>>> job = Job(7, 0.0, 2, 4.0, attrs={"recorded_wait": 1.0, "nodes": np.array([1, 2])})
>>> r = simulate(FirstFree(SwitchTree.uniform((2, 2))), "Recorded", [job], jobs=None, record_placement=True)
>>> r.placements[7].tolist(), r.leaf_switches.tolist()
([1, 2], [2])
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Any

import numpy as np

from ..kernel.actions import Action, Start, Timer
from ..kernel.jobs import Job
from .base import Policy
from .registry import register

__all__ = ["Recorded", "RecordedNodes", "RecordedScheduleError", "recorded_wait"]

_TAG = "recorded-start"


class RecordedScheduleError(ValueError):
    """A job's recorded wait cannot be replayed (its arrival is not the recorded one)."""


def recorded_wait(job: Job) -> float | None:
    """The wait the production scheduler gave ``job`` (seconds), or ``None`` when unknown:
    ``job.attrs["recorded_wait"]`` if present, else SWF field 3 of ``job.attrs["swf"]``; negative
    values (SWF's ``-1``) and non-finite ones are unknown.

    >>> recorded_wait(Job(0, 0.0, 1, 1.0, attrs={"recorded_wait": 12.5})), recorded_wait(Job(1, 0.0, 1, 1.0))
    (12.5, None)
    """
    attrs = job.attrs
    if "recorded_wait" in attrs:
        w = attrs["recorded_wait"]
    else:
        rec = attrs.get("swf")
        w = getattr(rec, "wait_time", None)
    if w is None or isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or w < 0:
        return None
    return float(w)


class RecordedNodes:
    """A recorded grant: the node ids a job ran on (read-only, ascending), as the simulator reads an
    allocation (``nodes``, ``size``). Nothing is allocated: no allocator holds these nodes.

    >>> g = RecordedNodes(np.array([3, 4])); g.size, g
    (2, RecordedNodes([3, 4]))
    """

    __slots__ = ("nodes",)

    def __init__(self, nodes: np.ndarray) -> None:
        self.nodes = nodes

    @property
    def size(self) -> int:
        """The number of nodes."""
        return int(self.nodes.size)

    def __repr__(self) -> str:
        return f"RecordedNodes({self.nodes.tolist()})"


class Recorded(Policy):
    """The trace's own schedule: every job starts at its arrival plus its recorded wait (see the
    module docstring for the semantics). Seed 004 calls the CTC log's schedule EASY-LL."""

    name = "Recorded"
    #: Requests that wait for their leaf switches are accepted: the recorded waits already hold
    #: whatever the production scheduler waited.
    switches_wait = True

    def __init__(self) -> None:
        super().__init__()
        #: Ids of the jobs whose recorded wait is unknown (never started), in arrival order.
        self.unknown: list[int] = []
        self._due: list[tuple[float, int, Job]] = []
        self._seq = itertools.count()
        self._timers: set[float] = set()

    def queue_head(self) -> Job | None:
        """``None``: no job waits for processors (each waits its recorded time), so none is ever
        blocked by the topology."""
        return None

    def reference_size(self, job: Job) -> int:
        """The job's own processor count (``job.size``), else its request as the allocator counts it."""
        return int(job.size) if job.size is not None else self.allocator.request_size(job.request)

    def on_arrival(self, job: Job, now: float) -> None:
        rec = job.attrs.get("swf")
        if "recorded_wait" not in job.attrs and rec is not None and abs(job.arrival - rec.submit_time) > 1e-6:
            raise RecordedScheduleError(
                f"job {job.id} arrives at {job.arrival:g} but was submitted at {rec.submit_time:g} in the log: its "
                "recorded wait belongs to the recorded arrival (replay the trace at its recorded rate)")
        w = recorded_wait(job)
        if w is None:
            self.unknown.append(job.id)
            return
        heapq.heappush(self._due, (job.arrival + w, next(self._seq), job))

    def on_finish(self, job: Job, now: float) -> None:
        return None  # nothing was allocated

    def _grant(self, job: Job) -> RecordedNodes | None:
        """The job's recorded nodes as its grant, or ``None`` when it carries none. O(1)."""
        nodes = job.attrs.get("nodes")
        if nodes is None:
            return None
        nodes = np.asarray(nodes)
        size = self.allocator.size
        if nodes.size and not 0 <= int(nodes[0]) <= int(nodes[-1]) < size:
            raise RecordedScheduleError(
                f"job {job.id} ran on nodes {nodes.tolist()[:8]}{'...' if nodes.size > 8 else ''}, outside the "
                f"simulated machine of {size} nodes: replay it on the topology its nodes were read for")
        return RecordedNodes(nodes)

    def on_timer(self, key: Any, now: float) -> None:
        self._timers.discard(key[1])

    def decide(self, now: float) -> list[Action]:
        out: list[Action] = []
        due = self._due
        while due and due[0][0] <= now:
            _, _, job = heapq.heappop(due)
            n = self.reference_size(job)
            out.append(Start(job, self._grant(job), n, n))
        if due and due[0][0] not in self._timers:
            self._timers.add(due[0][0])
            out.append(Timer(due[0][0], (_TAG, due[0][0])))
        return out


register("Recorded", Recorded, help="the trace's recorded schedule: each job starts at arrival + its recorded wait "
         "(SWF field 3, or an sacct dump's Start - Submit), on its recorded nodes when the trace has them (an sacct "
         "dump replayed on its tree:FILE); no allocator (seed 004's EASY-LL columns)",
         needs="jobs carrying their recorded wait (an SWF trace or an sacct dump); no allocator is used")
