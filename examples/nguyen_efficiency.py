"""Nguyen, Vaswani & Zahorjan (seed 003): efficiency-driven dynamic allocation, simulated.

    python examples/nguyen_efficiency.py                 # the batch mixes, then the extra tables
    python examples/nguyen_efficiency.py --part 5.2      # the batch mixes, then only §5.2's tables
    python examples/nguyen_efficiency.py --part none     # only the batch mixes

**Through the machinery** (``topoalloc run``; results stored in ``results/*.sqlite`` -- re-running
resumes -- figures drawn when matplotlib is installed): ``seed003_fig6_batch.toml`` -- EQUI, AP-EQUI,
ST-EQUI, EQUAL-EFF, ST-EQUAL-EFF and OPT-EFF on closed batches of Ismail's Table 4.1/4.2
applications (the ``BatchMix`` workload model), and below its table the system efficiencies
normalised to OPT-EFF's, as Fig. 6 (§5.2's claim: EQUAL-EFF within 10%). Arguments other than
``--part`` go to ``topoalloc run`` (``--workers``, ``--store``, ``--no-plots``, ...).

**Extra output** (standalone: the paper's experiments are not load sweeps, so they stay direct
computations, printed below the machinery's table; ``--part`` picks them):

* **§5.2, Fig. 5** -- system efficiency (sum of processor efficiencies) of EQUAL-EFF's greedy
  equal-efficiency fixed point against OPT-EFF's dynamic program, as the machine grows, for static
  mixes of Ismail's Table 4.1/4.2 applications (seed 000 §4.2), of smooth Amdahl curves (the paper's
  "smooth theoretical speedup curves") and of Downey's model (seed 001; outside the paper's claim,
  see ``docs/reproductions/seed003.md``).
* **§4.5, Figs. 2–4** -- interactive static mixes at multiprogramming levels 2, 3, 4 on a
  50-processor machine: response times of EQUI and ST-EQUI normalised to AP-EQUI.
* **§5.3, Fig. 6 and Table 1** -- batch mixes (multiprogramming level 3, each job replaced by one
  of the same kind when it finishes): system efficiency of EQUI, EQUAL-EFF, ST-EQUI and
  ST-EQUAL-EFF normalised to OPT-EFF, and the job throughput of each kind.

The paper's three representative applications (Barnes: good speedup; FLO52: poor speedup with
slowdown; MP3D: erratic, several local maxima) were measured on a KSR-2 and their curves (Fig. 1)
are not in the text we have: the curves below are **illustrative shapes of the three classes of
§4.3**, not the measurements. Each job is 100 iterations; a self-tuning probe costs one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from scheduling import Job, Simulator, Tabulated
from scheduling.cli import main as topoalloc
from scheduling.cli import stored_run
from scheduling.models.applications import application
from scheduling.models.speedup import Amdahl
from scheduling.policies import get
from scheduling.policies.efficiency import (
    equal_eff_allocation,
    equipartition,
    opt_eff_allocation,
    system_efficiency,
)
from topoalloc import FlatPool
from topologies import Flat

P = 50  # the KSR-2 of §4.3
HERE = Path(__file__).resolve().parent
TOML = "seed003_fig6_batch.toml"


# -- through the machinery ----------------------------------------------------------------------------

def normalised_efficiency(run_args: list[str]) -> None:
    """System efficiency of each policy relative to OPT-EFF's, per mix, from the stored batches."""
    eff: dict[str, dict[str, float]] = {}
    for s in stored_run(HERE / TOML, run_args).summaries:
        eff.setdefault(s.experiment.split("/")[-1], {})[s.policy] = s["system_efficiency"].mean
    names = list(dict.fromkeys(p for row in eff.values() for p in row))
    print("\nFig. 6 on Table 4.1 application mixes: system efficiency normalised to OPT-EFF's "
          "(§5.2's claim: EQUAL-EFF within 10%)")
    print(f"{'mix':22}" + "".join(f"{n:>14}" for n in names))
    for mix, row in eff.items():
        opt = row.get("OPT-EFF")
        print(f"{mix:22}" + "".join(f"{row[n] / opt:14.3f}" if opt and n in row else f"{'n/a':>14}" for n in names))


def _curve(values: list[float]) -> Tabulated:
    return Tabulated(tuple(s / p for p, s in enumerate(values, start=1)))


def representative(P: int = P) -> dict[str, tuple[Tabulated, float]]:
    """Illustrative speedup curves of §4.3's three classes and their sequential times."""
    ps = np.arange(1, P + 1, dtype=float)
    barnes = ps / (1 + 0.015 * (ps - 1))                                     # good, mostly monotone
    flo52 = np.where(ps <= 8, 1 + 3.0 * (ps - 1) / 7, 4.0 * (8 / ps) ** 0.7)  # poor, slows down past 8
    mp3d = np.where(ps <= 12, 1 + 6.0 * (ps - 1) / 11,                        # erratic: peak at 12,
                    7.0 - 1.5 * np.sin((ps - 12) * np.pi / 12) - 0.05 * (ps - 12))  # dip, second bump near 24
    return {"Barnes": (_curve(barnes.tolist()), 3000.0), "FLO52": (_curve(flo52.tolist()), 600.0),
            "MP3D": (_curve(mp3d.tolist()), 1500.0)}


def _job(jid: int, kind: str, curves: dict, slot: int | None = None) -> Job:
    speedup, t1 = curves[kind]
    attrs = {"kind": kind, "iterations": 100}
    if slot is not None:
        attrs["slot"] = slot
    return Job(jid, 0.0, P, t1 / speedup.speedup(P), speedup, attrs=attrs)


def part_5_2() -> None:
    print("\n§5.2 / Fig. 5: system efficiency (sum of processor efficiencies), EQUAL-EFF vs OPT-EFF")
    mixes = {"apps 1+6+9": [1, 6, 9], "apps 2+7+18": [2, 7, 18], "apps 3+16+26": [3, 16, 26],
             "apps 6+6+11+21": [6, 6, 11, 21]}
    for label, nums in mixes.items():
        apps = [application(k) for k in nums]
        sp, lim = [a.speedup for a in apps], [a.max_processors for a in apps]
        print(f"\n{label}:   P   EQUAL-EFF   OPT-EFF   ratio      EQUI   ratio")
        for total in (4, 8, 16, 24, 32, 48, 64, 96, 128):
            if total < len(nums):
                continue
            eq = system_efficiency(sp, equal_eff_allocation(sp, lim, total))
            op = system_efficiency(sp, opt_eff_allocation(sp, lim, total))
            ei = system_efficiency(sp, equipartition([min(n, total) for n in lim], total))
            print(f"{'':>14}{total:4d} {eq:10.2f} {op:9.2f} {eq / op:7.3f} {ei:9.2f} {ei / op:7.3f}")
    rng = np.random.default_rng(11)
    smooth: dict[int, list[float]] = {4: [], 8: [], 16: [], 32: [], 64: [], 128: []}
    for _ in range(200):
        sp = [Amdahl(float(f)) for f in rng.uniform(0.0, 0.5, 3)]
        for total in smooth:
            smooth[total].append(system_efficiency(sp, equal_eff_allocation(sp, [total] * 3, total)) /
                                 system_efficiency(sp, opt_eff_allocation(sp, [total] * 3, total)))
    print("\nSmooth curves (§5.2: 'even smaller differences'): 3 Amdahl jobs, serial fractions uniform on "
          "[0, 0.5], EQUAL-EFF / OPT-EFF:")
    for total, r in smooth.items():
        r = np.array(r)
        print(f"  P={total:4d}: mean {r.mean():.3f}, min {r.min():.3f}, below 0.9: {(r < 0.9).mean():.0%}")
    try:
        from scheduling.models.downey_speedup import Downey
    except ImportError:  # pragma: no cover
        return
    rng = np.random.default_rng(1)
    ratios = {8: [], 32: [], 64: [], 128: []}
    for _ in range(200):
        sp = [Downey(float(np.exp(rng.uniform(0, np.log(64)))), float(rng.uniform(0, 2))) for _ in range(3)]
        for total in ratios:
            ratios[total].append(system_efficiency(sp, equal_eff_allocation(sp, [total] * 3, total)) /
                                 system_efficiency(sp, opt_eff_allocation(sp, [total] * 3, total)))
    print("\nDowney mixes (outside §5.2's claim: curves with slope breaks; 3 jobs, A uniform-log on [1, 64], "
          "sigma uniform on [0, 2]), EQUAL-EFF / OPT-EFF:")
    for total, r in ratios.items():
        r = np.array(r)
        print(f"  P={total:4d}: mean {r.mean():.3f}, 5th percentile {np.percentile(r, 5):.3f}, min {r.min():.3f}, "
              f"below 0.9: {(r < 0.9).mean():.0%}")


def part_4_5() -> None:
    curves = representative()
    print("\n§4.5 / Figs. 2–4: interactive static mixes, mean response time normalised to AP-EQUI")
    for level in (2, 3, 4):
        print(f"\nmultiprogramming level {level}:{'EQUI':>30}{'ST-EQUI':>10}")
        seen = set()
        for mix in _mixes(level):
            if mix in seen:
                continue
            seen.add(mix)
            rt = {}
            for name in ("AP-EQUI", "EQUI", "ST-EQUI"):
                jobs = [_job(i, k, curves) for i, k in enumerate(mix)]
                rt[name] = Simulator(FlatPool(Flat(P)), name, jobs).run().summary()["mean_turnaround"]
            print(f"  {'-'.join(mix):38}{rt['EQUI'] / rt['AP-EQUI']:6.2f}{rt['ST-EQUI'] / rt['AP-EQUI']:10.2f}")


def _mixes(level: int):
    kinds = ["Barnes", "FLO52", "MP3D"]
    import itertools

    for combo in itertools.combinations_with_replacement(kinds, level):
        if len(set(combo)) > 1:
            yield combo


def part_5_3() -> None:
    curves = representative()
    mixes = [("Barnes", "Barnes", "FLO52"), ("Barnes", "Barnes", "MP3D"), ("Barnes", "FLO52", "FLO52"),
             ("Barnes", "MP3D", "MP3D"), ("Barnes", "FLO52", "MP3D")]
    names = ["EQUI", "EQUAL-EFF", "ST-EQUI", "ST-EQUAL-EFF", "OPT-EFF"]
    print("\n§5.3 / Fig. 6: batch, multiprogramming level 3 -- system efficiency normalised to OPT-EFF")
    print(f"{'mix':28}" + "".join(f"{n:>14}" for n in names))
    table1 = {}
    for mix in mixes:
        eff, thr = {}, {}
        for name in names:
            pol = get(name)
            jobs = [_job(r * 3 + s, k, curves, slot=s) for r in range(200) for s, k in enumerate(mix)]
            res = Simulator(FlatPool(Flat(P)), pol, jobs, jobs=150).run()
            end = res.window[1]
            eff[name] = pol.system_efficiency((0.0, end))
            kinds = [jobs[i].attrs["kind"] for i in res.table["id"]]
            thr[name] = {k: kinds.count(k) / end * 1000 for k in sorted(set(mix))}
        table1["-".join(mix)] = thr
        print(f"{'-'.join(mix):28}" + "".join(f"{eff[n] / eff['OPT-EFF']:14.3f}" for n in names))
    print("\nTable 1: job throughput (jobs per 1000 time units)")
    print(f"{'mix':28}{'job':>8}" + "".join(f"{n:>14}" for n in names[:4]))
    for mix, thr in table1.items():
        for k in thr["EQUI"]:
            print(f"{mix:28}{k:>8}" + "".join(f"{thr[n][k]:14.2f}" for n in names[:4]))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--part", choices=["4.5", "5.2", "5.3", "none"], action="append", default=None)
    ap.add_argument("-h", "--help", action="store_true")
    own, run_args = ap.parse_known_args(argv)
    if own.help:
        print(__doc__)
        return 0
    code = topoalloc(["run", str(HERE / TOML), *run_args])
    if code:
        return code
    normalised_efficiency(run_args)
    parts = own.part or ["5.2", "4.5", "5.3"]
    if any(p != "none" for p in parts):
        print("\n# Extra output: the paper's static and batch experiments (direct computations, not the machinery)")
    if "5.2" in parts:
        part_5_2()
    if "4.5" in parts:
        part_4_5()
    if "5.3" in parts:
        part_5_3()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
