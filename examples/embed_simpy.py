"""Drive a topoalloc allocator and policy from a SimPy model.

The policy is engine-agnostic (see :class:`scheduling.Policy`): it is told "a job arrived" / "a job
finished" / "a timer fired", and once every event of an instant has been delivered it is asked for
its decision (``decide(now)``), returning actions. It owns every call to the allocator. Here SimPy
owns time: one process feeds arrivals, one process per started job waits out its run time and
reports the finish, and one "decider" process runs at the end of each instant at which something
happened.

    pip install simpy        # or: pip install -e ".[examples]"
    python examples/embed_simpy.py

This example handles the static actions (``Start`` and ``Timer``); dynamic and gang policies also
return ``Resize`` / ``Suspend`` / ``Resume``, which a SimPy model would implement with interrupts.
"""

from __future__ import annotations

from collections.abc import Iterable

import simpy

from scheduling import Job, Policy, Start, Timer
from topoalloc import Allocator


def run_with_simpy(allocator: Allocator, policy: Policy, jobs: Iterable[Job]) -> list[tuple[int, float, float, int]]:
    """Simulate ``jobs`` in SimPy; return ``(id, start, end, processors)`` per job, by job id."""
    env = simpy.Environment()
    policy.bind(allocator)
    schedule: dict[int, tuple[int, float, float, int]] = {}
    deciding = False  # a decider is waiting for the end of the current instant

    def apply(actions) -> None:
        for action in actions or ():
            if isinstance(action, Start):
                env.process(run_job(action))
            elif isinstance(action, Timer):
                env.process(timer(action))
            else:
                raise NotImplementedError(f"this example drives static policies only, got {action!r}")

    def deliver(actions) -> None:
        """After an event's callback: carry out what a per-event policy returned, and make sure the
        policy decides once this instant is over."""
        nonlocal deciding
        apply(actions)
        if not deciding:
            deciding = True
            env.process(decider())

    def decider():
        nonlocal deciding
        # SimPy runs the events of one time in the order they were scheduled: step behind every
        # event still pending at this instant, so the policy decides after all of them.
        while env.peek() == env.now:
            yield env.timeout(0)
        deciding = False
        apply(policy.decide(env.now))

    def run_job(start: Start):
        began = env.now
        duration = start.job.time_on(start.processors, start.reference)
        yield env.timeout(start.delay + duration)
        schedule[start.job.id] = (start.job.id, began, env.now, start.processors)
        deliver(policy.on_finish(start.job, env.now))

    def timer(t: Timer):
        yield env.timeout(t.at - env.now)
        deliver(policy.on_timer(t.key, env.now))

    def arrivals():
        for job in jobs:
            yield env.timeout(job.arrival - env.now)
            deliver(policy.on_arrival(job, env.now))

    env.process(arrivals())
    env.run()
    return [schedule[k] for k in sorted(schedule)]


def main() -> None:
    from scheduling import policies, simulate
    from scheduling.workloads import CubeDims, Exponential, Synthetic
    from topoalloc import Buddy
    from topologies import Hypercube

    workload = Synthetic(CubeDims(7), Exponential(5.0), load=0.7, machine_size=256)
    jobs = workload.take(5000, seed=1)
    ours = simulate(Buddy(Hypercube(8)), "RSR-1", jobs, jobs=None)
    theirs = run_with_simpy(Buddy(Hypercube(8)), policies.get("RSR-1"), jobs)
    same = ours.schedule() == theirs
    turnaround = sum(end - j.arrival for j, (_, _, end, _) in zip(jobs, theirs, strict=True)) / len(jobs)
    print(f"SimPy-driven RSR-1 on an 8-cube with buddy: {len(theirs)} jobs, mean turnaround {turnaround:.3f}")
    print(f"identical schedule to the built-in simulator: {same}")


if __name__ == "__main__":
    main()
