"""The switches wait (Slurm's ``--switches=N@T``), once for every policy that starts jobs from a queue.

A job whose request is ``TreeRequest(n, switches=N, wait=T)`` waits up to ``T`` after its
submission for a placement on at most ``N`` leaf switches; from ``submit + T`` on it takes any
placement (:meth:`topologies.TreeRequest.relaxed`). Without ``wait`` it waits for ever (the
allocator honours ``switches``; nothing is relaxed).

:class:`SwitchesWait` is a mixin for queue policies (FCFS and its folding variants, EASY,
Conservative): at the job's arrival it returns a :class:`~scheduling.kernel.actions.Timer` for
``submit + T``, so the relaxation happens at exactly that instant even when no other event
occurs; until then :meth:`SwitchesWait.request_of` is the constrained request, from then on the
relaxed one; :meth:`SwitchesWait.request_at` answers for a future time (a backfilling reservation
made now for a start after the deadline uses the relaxed request). The policy calls
:meth:`SwitchesWait._waits_arrival` from ``on_arrival``, :meth:`SwitchesWait._waits_timer` from
``on_timer`` and :meth:`SwitchesWait._waits_started` when it starts the job.

**Source.** Slurm's ``--switches`` option (``sbatch`` documentation: "the maximum count of leaf
switches desired for the job allocation and optionally the maximum time to wait for that number of
switches"), and how ``src/plugins/topology/tree/eval_nodes_tree.c`` times the wait: the clock
starts the first time the job is evaluated (``wait4switch_start``), and once ``time_waiting >=
wait4switch`` any allocation is accepted (``best_switch = true``). Interpretations: the wait is
counted from the job's submission (the first evaluation of a job that is eligible at once); Slurm
caps every wait, and gives a wait to a job that names none, with ``SchedulerParameters =
max_switch_wait`` (300 s by default, ``_max_switch_wait`` in ``src/slurmctld/job_mgr.c``); here a
request without ``wait`` waits for ever and no cap applies (:class:`~topologies.TreeRequest`'s
meaning). A policy without the mixin refuses such requests (the simulator checks
:attr:`SwitchesWait.switches_wait`).

Complexity: O(1) per job (a dictionary entry and one timer).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from topologies import TreeRequest

from ..kernel.actions import Action, Timer
from ..kernel.jobs import Job

__all__ = ["SwitchesWait", "WaitOver", "waits_for_switches"]


class WaitOver(NamedTuple):
    """The key of the timer that ends job ``job``'s switches wait."""

    job: int


def waits_for_switches(request: Any) -> bool:
    """Whether ``request`` waits a limited time for its leaf switches (``switches`` and ``wait``).

    >>> waits_for_switches(TreeRequest(8, switches=1, wait=30.0)), waits_for_switches(TreeRequest(8, switches=1))
    (True, False)
    """
    return type(request) is TreeRequest and request.switches is not None and request.wait is not None


class SwitchesWait:
    """Mixin: the switches wait of the module docstring for a queue policy.

    >>> from scheduling import Job
    >>> w = SwitchesWait(); w._waits_init()
    >>> job = Job(0, 10.0, TreeRequest(8, switches=1, wait=30.0), 5.0)
    >>> w._waits_arrival(job, 10.0)
    [Timer(at=40.0, key=WaitOver(job=0))]
    >>> w.request_of(job).switches, w.request_at(job, 40.0).switches
    (1, None)
    >>> w._waits_timer(WaitOver(0), 40.0), w.request_of(job)
    (0, TreeRequest(count=8, required=None, preferred=None, switches=None, wait=None, segment=None))
    """

    #: The simulator runs jobs that wait a limited time for their switches only under policies
    #: that say they implement the wait.
    switches_wait: ClassVar[bool] = True

    def _waits_init(self) -> None:
        #: job id -> (deadline, relaxed request) of queued jobs whose wait has not ended
        self._deadlines: dict[int, tuple[float, TreeRequest]] = {}
        #: job id -> relaxed request of queued jobs whose wait has ended
        self._relaxed: dict[int, TreeRequest] = {}

    def _waits_arrival(self, job: Job, now: float) -> list[Action] | None:
        """Record ``job``'s wait, if it has one; the timer for its end (``None`` if none is needed:
        no wait, or one already over)."""
        r = job.request
        if type(r) is not TreeRequest or r.switches is None or r.wait is None:
            return None
        at = job.arrival + float(r.wait)
        if at <= now:
            self._relaxed[job.id] = r.relaxed()
            return None
        self._deadlines[job.id] = (at, r.relaxed())
        return [Timer(at, WaitOver(job.id))]

    def _waits_timer(self, key: Any, now: float) -> int | None:
        """The id of the job whose wait ends now, if ``key`` is such a timer's and the job still
        waits (then its request is relaxed from now on); else ``None``."""
        if type(key) is not WaitOver:
            return None
        got = self._deadlines.pop(key.job, None)
        if got is None:
            return None
        self._relaxed[key.job] = got[1]
        return key.job

    def _waits_started(self, job: Job) -> None:
        """``job`` left the queue: forget its wait."""
        if self._deadlines:
            self._deadlines.pop(job.id, None)
        if self._relaxed:
            self._relaxed.pop(job.id, None)

    def request_of(self, job: Job) -> Any:
        """The request ``job`` is placed with now: its own, or the relaxed one once its wait is over."""
        if self._relaxed:
            return self._relaxed.get(job.id, job.request)
        return job.request

    def request_at(self, job: Job, t: float) -> Any:
        """The request ``job`` will be placed with at time ``t`` (>= now)."""
        got = self._relaxed.get(job.id)
        if got is not None:
            return got
        pending = self._deadlines.get(job.id)
        return job.request if pending is None or t < pending[0] else pending[1]

    def deadline(self, job: Job) -> float | None:
        """When ``job``'s wait ends, if it is waiting for its switches; else ``None``."""
        pending = self._deadlines.get(job.id)
        return None if pending is None else pending[0]
