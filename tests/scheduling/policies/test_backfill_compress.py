"""Conservative's compression: the freed log read once per stamp and instant
(``Conservative._log_since``), and the free-time profile's searches (``FreeProfile``).

The compression searches a job only where room was freed since its last search. The jobs last
searched at the same point of the log share what they read there; these tests check that the
shared answer is, entry for entry, what reading the job's own part of the log gives, that
schedules are the same as with the log read per job and as with no log at all (``_skip = False``),
and that a shared answer missing what was logged during the instant is caught. The profile's
searches are checked against a brute-force reading of the same step function."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import Job, simulate
from scheduling.policies import Conservative
from scheduling.policies.backfill import FreeProfile

from .test_backfilling import CASES, _mixed_estimates, synthetic

#: allocators on node sets (the log is kept only there; the flat machine counts)
NODE_CASES = [c for c in CASES if c != "flat"]


def _jobs(case: str, seed: int, n: int = 200) -> list[Job]:
    """Jobs that end well before their estimates (run x U(1, 3)), with some overruns and some
    zero-length jobs: many compressions, moves and repairs."""
    _, topology, _, _ = CASES[case]
    return _mixed_estimates(synthetic(n, 64, seed, load=0.95, over=3.0, topology=topology), seed)


def _run(policy: Conservative, case: str, jobs: list[Job]):
    """The schedule and every job's nodes."""
    result = simulate(CASES[case][0](), policy, jobs, jobs=None, record_placement=True)
    return result.schedule(), {k: v.tolist() for k, v in result.placements.items()}


class PerJob(Conservative):
    """The log read for each job on its own (the reading before it was shared): every entry from
    the job's stamp on that lasts past now and that a start before the limit can use."""

    def _fresh(self, jid, now, limit):
        if not self._skip or self._counting:
            return None
        stamp = self._stamp.get(jid)
        if stamp is None:
            return None
        d = self._info[jid][1]
        out = [(a, b, bits) for a, b, bits in self._freed[stamp - self._base:] if b > now and a - d < limit]
        return out, max([now] + [b for _, b, _ in out])


class Checked(Conservative):
    """Conservative that compares each shared answer with a direct reading of the job's part of
    the log: the same entries (those a start before the limit cannot use aside) and a latest end
    no earlier than theirs."""

    checked = 0
    with_tail = 0  # answers holding entries logged during the instant (by moves before the job's turn)

    def _fresh(self, jid, now, limit):
        got = super()._fresh(jid, now, limit)
        stamp = self._stamp.get(jid)
        if got is not None and stamp is not None:
            direct = [e for e in self._freed[stamp - self._base:] if e[1] > now]
            assert got[0] == direct
            assert got[1] == max([now] + [e[1] for e in direct])
            type(self).checked += 1
            assert self._since is not None
            type(self).with_tail += bool(self._since[4])
        return got


@pytest.mark.parametrize("case", NODE_CASES)
def test_the_shared_log_is_each_jobs_own_part(case):
    """On every node-set allocator of the backfilling tests, every answer the compression gets
    from the shared reading is the job's own part of the log, in order."""
    Checked.checked = Checked.with_tail = 0
    _run(Checked(), case, _jobs(case, 7))
    assert Checked.checked > 200 and Checked.with_tail > 10


@pytest.mark.parametrize("case", NODE_CASES)
def test_shared_log_per_job_log_and_no_log_give_the_same_schedule(case):
    """The same schedule and nodes with the log shared, read per job (with the filter by the
    job's limit), and not used at all (every job searched at every compression)."""
    jobs = _jobs(case, 8)
    shared = _run(Conservative(), case, jobs)
    assert shared == _run(PerJob(), case, jobs)
    none = Conservative()
    none._skip = False
    assert shared == _run(none, case, jobs)


def test_a_shared_log_without_the_instants_tail_is_caught():
    """The comparison above can fail: a shared reading that forgets what was logged during the
    instant (the room a job's move frees for the jobs behind it) starts jobs later than the full
    compression."""

    class Forgetful(Conservative):
        def _log_since(self, stamp, now):
            super()._log_since(stamp, now)  # fills the memo of the instant
            assert self._since is not None
            _, base, size0, parts, _, _ = self._since
            k = stamp - base
            return parts[k] if k < size0 else ([], now)

    case = "cube"
    jobs = _jobs(case, 7, 300)
    assert _run(Forgetful(), case, jobs) != _run(Conservative(), case, jobs)


def test_a_search_that_reads_the_log_later_than_logged_is_caught():
    """The search uses a logged entry ``(from, until)`` for a start ``t`` when
    ``from <= t + estimate and t < until`` (the window ``[t, t + estimate)`` meets the freed room);
    entries read an hour later than logged make it miss room that windows meet, and moves."""

    class Early(Conservative):
        def _log_since(self, stamp, now):
            entries, last = super()._log_since(stamp, now)
            # entries pushed one hour later than logged: the test then misses room in a window
            return [(a + 3600.0, b, bits) for a, b, bits in entries], last

    case = "cube"
    jobs = _jobs(case, 7, 300)
    assert _run(Early(), case, jobs) != _run(Conservative(), case, jobs)


# -- the profile's searches against a brute-force reading -----------------------------------------

def _brute_free(p: FreeProfile, t: float) -> int:
    return p.free[max(i for i, x in enumerate(p.times) if x <= t)]


def _brute_first(p: FreeProfile, n: int, d: float, now: float, limit: float, lift: int, until: float):
    """The earliest start in [now, min(limit, until)), at now or at a breakpoint, whose window
    [start, start + d) has n free at every step it meets (lift added from limit on)."""
    cands = sorted({now} | {x for x in p.times if now < x})
    for t in cands:
        if t >= min(limit, until):
            return None
        pts = [t] + [x for x in p.times if t < x < t + d]
        if all(_brute_free(p, x) + (lift if x >= limit else 0) >= n for x in pts):
            return t
    return None


def _brute_held(p: FreeProfile, start: float, end: float, since: float, but: int) -> int:
    i = max(k for k, x in enumerate(p.times) if x <= start)
    bits = 0
    for k in range(i, len(p.times)):
        if k > i and p.times[k] >= end:
            break
        bits |= p.held[k] & ~but if p.times[k] >= since else p.held[k]
    return bits


@settings(max_examples=150, deadline=None)
@given(rects=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 12), st.integers(1, 4), st.integers(0, 7)),
                      min_size=1, max_size=10),
       queries=st.lists(st.tuples(st.integers(1, 8), st.integers(0, 15), st.integers(0, 30), st.integers(0, 45),
                                  st.integers(0, 8), st.integers(0, 50), st.integers(0, 255)),
                        min_size=1, max_size=8))
def test_profile_searches_match_a_brute_force_reading(rects, queries):
    """Rectangles taken from an 8-processor profile (each with its own node), then the earliest
    start (with a lift from a limit and a bound on the start) and the nodes held over an
    interval (from a time on, but some nodes) against a reading of every step."""
    p = FreeProfile(8)
    taken = []
    for start, length, n, node in rects:
        bits = 1 << node
        if any(b & bits and s < start + length and start < s + ln for s, ln, _, b in taken):
            continue  # reservations that overlap in time never share a node
        p.change(float(start), float(start + length), -n, bits)
        taken.append((start, length, n, bits))
    assert p.times == sorted(set(p.times))
    for n, d, now, limit, lift, until, but in queries:
        args = (n, float(d), float(now), float(limit), lift, float(until))
        assert p.first(*args) == _brute_first(p, *args)
        for since in (math.inf, float(limit)):
            assert p.held_over(float(now), float(now + d), since, but) == _brute_held(p, now, now + d, since, but)
    for start, length, n, bits in taken:  # giving every rectangle back leaves one step, all free
        p.change(float(start), float(start + length), n, bits)
    assert (p.times, p.free, p.held) == ([-math.inf], [8], [0])
