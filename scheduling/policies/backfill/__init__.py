"""Backfilling: EASY (one reservation, for the head of the queue) and Conservative (one per job).

Both are FCFS with backfilling, judged with the users' run-time estimates (``Job.estimate``; the
job's run time when it has none). They work on **every** allocator, not only
:class:`~topoalloc.FlatPool`. Both decide once per instant, after every event of the instant
(the contract of :class:`~scheduling.policies.Policy`).

**How a reservation is represented.** A reservation is a start time plus the *node set* the job
would get then, found by asking the allocator itself. The policy knows, for every node, when it is
expected to be free (now, or the expected end, start + estimate, of the running job holding it); at
each of those times in turn, from now on, it asks the allocator whether it recognises a placement
for the job on the nodes free by then (:meth:`topoalloc.Allocator.place_in`, a what-if on a node
mask that allocates nothing): the first time it does is the reservation's *shadow time*, that
placement's nodes are the *reserved nodes*. (The shadow time is the one releasing the running jobs
in order of expected end on a copy of the allocator and trying the job after each end would find,
without the copy; the reserved nodes are a placement the allocator recognises then, its own choice
where ``place_in`` follows its rule. :meth:`topoalloc.Allocator.earliest_in` asks the whole
question at once.) A job that would otherwise have to wait may start now (be
*backfilled*) only if its allocation (the one the real allocator gives it now) either ends, by its
estimate, no later than the shadow time, or does not touch the reserved nodes. So on a mesh or a
cube a backfilled job never takes the region the head's reservation needs, whatever the allocator's
placement rule: at the shadow time the reserved nodes are free (every running job expected to end
by then has ended, every backfilled job has ended or stayed off them), so an allocator whose
success depends only on which nodes are free, and which never places a request on fewer free nodes
that it could not place on more (all of :mod:`topoalloc`), places the head then, if not earlier. A
candidate that would run past the shadow time takes the first of the allocator's placements, in the
allocator's own order, that stays off the reserved nodes
(:meth:`topoalloc.Allocator.allocate_avoiding`: the placements the allocator offers one after
another while the rejected ones are held; the policy sees only placements the allocator offers).

On an allocator that recognises any free processors (``recognition == "any"``: ``FlatPool``) the
node set is replaced by pure counting, Mu'alem & Feitelson's *shadow time* and *extra processors*:
a candidate may start if it fits now and ends by the shadow time or needs no more than the extra
processors (those free at the shadow time beyond what the head needs). That is the same rule,
since flat processors are interchangeable, at O(running + queue) per instant and no copies.

**Switch-tree requests.** Requests may carry :class:`~topologies.TreeRequest` constraints; the
allocator honours them in every what-if question. A request that waits a limited time for its
leaf switches (Slurm's ``--switches=N@T``, :mod:`~scheduling.policies.waits`) is relaxed at
``submit + T``; a reservation made before then is the earlier of the constrained request's
earliest placement before the deadline and the relaxed request's from the deadline on (the time
the job would start if nothing else did).

**Zero-length jobs.** A job occupies its processors over ``[start, start + run time)``, in the
simulator and in every reservation here: a job of (estimated) length 0 holds nothing, always ends
by the shadow time, and its reservation overlaps no other (it still needs its processors free at
its start to be placed).

**Estimates and overruns.** A running job is expected to end at ``start + estimate``. A job still
running past that (an estimate shorter than its run time, which real traces have) is expected to
end *now*: its end is taken as the current instant, so the head's reservation can move later than
first computed (the guarantees below assume estimates are upper bounds, as in the papers). Jobs
are not killed at their estimate: the trace's run time is what the job gets, and the policies'
references (``tests/scheduling/policies/test_backfilling.py``) are written that way. Each
policy's docstring says when it recomputes what an overrun moves (Conservative: a rebuild, done
as an incremental repair). Simulators that enforce the estimate end the job there instead:
Batsim stops a job that exceeds its ``walltime`` when the workload gives one, and runs it to the
end otherwise (Batsim documentation, "Workload", job definition). To replay a trace that way, cap
the run times before simulating; the policies then never see an overrun:

>>> import dataclasses
>>> from scheduling import Job
>>> jobs = [Job(0, 0.0, 2, 100.0, estimate=60.0), Job(1, 5.0, 2, 30.0, estimate=45.0)]
>>> [dataclasses.replace(j, runtime=min(j.runtime, j.estimate)).runtime for j in jobs]
[60.0, 30.0]

Guarantees (with estimates that are upper bounds of the run times):

* ``EASY``: a job, once at the head of the queue, starts no later than the reservation computed
  when it became the head, which is when FCFS would start it from that state. Other queued jobs
  have no such bound (a backfilled job can delay the jobs behind the head).
* ``Conservative``: no job starts later than the reservation it got on arrival (reservations are
  only ever moved earlier), so a job is never delayed by any job that arrived after it. This is
  exact on counting allocators and where placements of one request never overlap in part (buddy
  cubes and squares, frames, tree partitions: when its time comes, the allocator's own order off
  the other reservations finds the reserved region or another free one); on allocators whose
  placements can overlap in part (Zhu's first and best fit on a mesh, Gray codes, the free list)
  a job whose reserved region the allocator cannot be steered to is re-reserved and listed in
  :attr:`Conservative.displaced`.

**Cost.** The policies avoid the what-if work wherever its answer cannot have changed: a
candidate is first checked against the free processor count (for EASY, when it would run past
the shadow time, against the free processors off the reserved nodes; for Conservative, against a
profile of free processor counts over time, :class:`FreeProfile`); a request that found no
placement is not asked again until something is freed (Conservative also skips the requests it
covers, :meth:`topoalloc.Allocator.covers`); reservations are kept across instants until an early
end, an overrun or a new head can have moved them. None of this changes a decision: on
``FlatPool`` both policies equal from-scratch textbook implementations job for job
(``tests/scheduling/policies/test_backfilling.py``).

**Modules.** :mod:`.profile` holds the free-time profile (:class:`FreeProfile`),
:mod:`.reservations` what both policies share (:class:`Reservation`, the running jobs in order of
expected end, the head's reservation), :mod:`.easy` and :mod:`.conservative` the two policies.
"""

from .conservative import Conservative
from .easy import EASY
from .profile import FreeProfile
from .reservations import Reservation, clone_allocator

__all__ = ["EASY", "Conservative", "Reservation", "FreeProfile", "clone_allocator"]
