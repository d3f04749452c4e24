"""Numbers that are not numbers: every public constructor the registries know (and the other public
entry points with numeric parameters) refuses NaN, infinities, booleans, strings, negative values
and zero where it is invalid with a :class:`ValueError` whose message names the parameter and the
value -- never a hang, a NaN result or a raw ``TypeError`` from deep inside.

The constructors come from the registries (policy families, workload distributions, workload models,
allocators), so a family registered later is checked without touching this file; the parameters
and their kinds come from the constructors' signatures. ``SIGNED`` and ``ZERO_OK`` list the few
parameters for which a negative value or zero is valid.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling import metrics, policies, simulate
from scheduling.experiments import ConfigError, study_from_dict
from scheduling.experiments import registry as reg
from scheduling.experiments.runner import episode_seeds
from scheduling.experiments.snapshots import SnapshotPolicy
from scheduling.kernel.jobs import Job
from scheduling.metrics.downey import simulate_days
from scheduling.models.applications import ApplicationMix, batch_mix
from scheduling.models.downey_speedup import Downey as DowneySpeedup
from scheduling.models.speedup import Amdahl, Tabulated, misp_serial_fraction
from scheduling.policies import RSR, Limit
from scheduling.policies.efficiency import best_size, equal_eff_allocation, opt_eff_allocation
from scheduling.workloads import (
    Downey,
    Exponential,
    Labelled,
    MeshSides,
    Synthetic,
    arrival_rate,
    ismail_dynamic,
    offered_load,
)
from scheduling.workloads.ismail import ismail_workload
from topoalloc import FirstFit, TreeWeights
from topologies import Flat, Hypercube, Mesh, SwitchTree

NAN, INF = float("nan"), float("inf")
#: Not numbers at all, or not the number a parameter means, whatever its range.
GARBAGE = (NAN, INF, -INF, True, False, "1", b"2", [1.0], {"x": 1}, 1 + 2j)
#: (constructor label, parameter) pairs for which a negative value is valid.
SIGNED = {("TruncatedNormal", "mu")}
#: (constructor label, parameter) pairs for which 0 is valid (the others must refuse it).
ZERO_OK = {
    ("CubeDims", "max_dim"), ("Uniform", "low"), ("TruncatedExponential", "low"), ("TruncatedNormal", "mu"),
    ("TruncatedNormal", "low"), ("Downey model", "sigma_max"), ("Downey", "night"), ("Downey", "sigma_max"),
    ("Amdahl", "serial_fraction"), ("Downey speedup", "sigma"), ("simulate", "warmup"), ("simulate", "seed"),
    ("simulate", "until"), ("Hypercube", "dim"), ("RSR", "t"), ("Limit", "k"), ("simulate_days", "seed"),
    ("offered_load", "rate"), ("offered_load", "mean_size"), ("offered_load", "mean_service"),
    ("Labelled", "long_after"), ("Job", "runtime"), ("episode_seeds", "seed"), ("episode_seeds", "count"),
    ("Paging", "size_index"),  # 2^0 x 2^0 pages: single nodes
    ("HeroMix", "p_medium"), ("HeroMix", "p_hero"),  # a mix without medium jobs, or without heroes
}
#: Policy constructor parameters for which 0 is valid (costs, fractions, floors).
POLICY_ZERO_OK = {"overhead", "c", "load", "switch_cost", "rho_floor", "quantum", "r", "long_after"}


@dataclass
class Case:
    """A public constructor (``build(**kwargs)``), valid ``base`` arguments, and the ``params`` to
    spoil with their kind (``"int"``, ``"float"`` or ``"bool"``)."""

    label: str
    build: Callable[..., Any]
    base: dict[str, Any]
    params: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return self.label


def _kind(annotation: Any, value: Any) -> str | None:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    if isinstance(value, bool) or text == "bool":
        return "bool"
    if "tuple" in text or "Sequence" in text or "list" in text:
        return None  # sequences are checked element by element elsewhere
    if "float" in text or isinstance(value, float):
        return "float"
    if "int" in text or isinstance(value, int):
        return "int"
    return None


def _numeric_params(fn: Callable[..., Any], values: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, str]:
    sig = inspect.signature(fn)
    out = {}
    for name, par in sig.parameters.items():
        if name in skip or par.kind not in (par.POSITIONAL_OR_KEYWORD, par.KEYWORD_ONLY):
            continue
        kind = _kind(par.annotation, values.get(name, par.default))
        if kind is not None:
            out[name] = kind
    return out


# -- the registries -------------------------------------------------------------------------------
def _policy_cases() -> list[Case]:
    cases = []
    for fam in policies.families():
        name = fam.name
        if fam.param is not None:
            for example in ("1", "0.5", "2"):
                try:
                    policies.get(f"{fam.name}-{example}")
                except ValueError:
                    continue
                name = f"{fam.name}-{example}"
                break
        current = reg.policy_parameters(name)
        params = _numeric_params(type(policies.get(name)), current)
        if params:
            cases.append(Case(f"policy {name}", lambda name=name, **kw: reg.make_policy(name, kw), {}, params))
    return cases


#: Valid arguments for the distributions without defaults (every registry entry must be buildable).
DISTRIBUTION_BASE = {
    "UniformCount": {"low": 2, "high": 64},
    "TruncatedExponentialCount": {"mean": 15.0, "low": 2, "high": 64},
    "Uniform": {"low": 10.0, "high": 200.0},
    "TruncatedExponential": {"scale": 10.0, "low": 1.0, "high": 100.0},
}


def _distribution_cases() -> list[Case]:
    cases = []
    for name, (ctor, role) in reg.DISTRIBUTIONS.items():
        base = DISTRIBUTION_BASE.get(name, {})
        reg.make_distribution(name, base, role)  # the base is valid
        params = _numeric_params(ctor, base)
        if params:
            cases.append(Case(name, lambda name=name, role=role, **kw: reg.make_distribution(name, kw, role), base,
                              params))
    return cases


#: Valid parameters of the workload models that need some (the Trace model's file is written by the
#: ``traces`` fixture; it is only read when jobs are drawn).
MODEL_BASE = {"Trace": {"file": "tiny"}}


@pytest.fixture(autouse=True, scope="module")
def traces(tmp_path_factory):
    """A traces directory holding ``tiny.swf`` (two jobs), for the Trace model."""
    root = tmp_path_factory.mktemp("traces")
    (root / "tiny.swf").write_text("; MaxProcs: 64\n"
                                   "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"
                                   "2 5 0 10 8 -1 -1 8 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOPOALLOC_TRACES", str(root))
        yield root


def _model_cases() -> list[Case]:
    cases = []
    for name, model in reg.WORKLOAD_MODELS.items():
        base = MODEL_BASE.get(name, {})
        params = _numeric_params(model.factory, base, skip=("load", "machine_size"))

        def build(name=name, base=base, load=0.5, machine_size=64, **kw):
            return reg.make_workload(name, {**base, **kw}, load=load, machine_size=machine_size)

        cases.append(Case(f"{name} model", build, {}, {"load": "float", "machine_size": "int", **params}))
    return cases


TOPOLOGY_FOR = {"mesh": Mesh(8, 8), "cube": Hypercube(4), "flat": Flat(16),
                "tree": SwitchTree.uniform((2, 2, 4), names=("block", "rack", "host"))}


def _allocator_cases() -> list[Case]:
    cases = []
    for name in reg.allocator_names():
        cls = reg.allocator_class(name)
        params = _numeric_params(cls, {}, skip=("topology",))
        if params:
            topo = TOPOLOGY_FOR[reg.allocator_kind(name)]
            cases.append(Case(name, lambda name=name, topo=topo, **kw: reg.make_allocator(name, topo, kw), {}, params))
    return cases


# -- the other public entry points ----------------------------------------------------------------
def _workload() -> Synthetic:
    return Synthetic(MeshSides(8, 8), Exponential(5.0), load=0.5, machine_size=64)


def _simulate(**kw: Any) -> Any:
    return simulate(FirstFit(Mesh(8, 8)), "RSR-1", _workload(), **{"jobs": 50, **kw})


OTHER_CASES = [
    Case("Mesh", Mesh, {"width": 4, "height": 4}, {"width": "int", "height": "int"}),
    Case("Hypercube", Hypercube, {"dim": 4}, {"dim": "int"}),
    Case("Flat", Flat, {"size": 16}, {"size": "int"}),
    Case("TreeWeights", TreeWeights, {"size": 16}, {"size": "int"}),
    Case("RSR", RSR, {"t": 1}, {"t": "int"}),
    Case("Limit", Limit, {"k": 3}, {"k": "int"}),
    Case("Synthetic", lambda **kw: Synthetic(MeshSides(8, 8), Exponential(5.0), **kw),
         {"load": 0.5, "machine_size": 64}, {"load": "float", "machine_size": "int", "chunk": "int"}),
    Case("Synthetic", lambda **kw: Synthetic(MeshSides(8, 8), Exponential(5.0), **kw), {"rate": 0.5},
         {"rate": "float"}),
    Case("Downey", Downey, {}, {"N": "int", "load": "float", "days": "int", "day": "float", "night": "float",
                                "sigma_max": "float", "chunk": "int"}),
    Case("ApplicationMix", ApplicationMix, {"load": 0.5, "machine_size": 64},
         {"load": "float", "machine_size": "int", "chunk": "int"}),
    Case("ApplicationMix", ApplicationMix, {"rate": 0.1}, {"rate": "float"}),
    Case("batch_mix", batch_mix, {"numbers": [1, 6], "repeats": 2}, {"repeats": "int"}),
    Case("ismail_workload", ismail_workload, {}, {"P": "int", "load": "float"}),
    Case("ismail_dynamic", lambda **kw: ismail_dynamic("uniform", **kw), {"load": 0.5},
         {"load": "float", "machine_size": "int"}),
    Case("Labelled", lambda **kw: Labelled(_workload(), **kw), {"long_after": 5.0}, {"long_after": "float"}),
    Case("arrival_rate", arrival_rate, {"load": 0.5, "machine_size": 64, "mean_size": 8.0, "mean_service": 5.0},
         {"load": "float", "machine_size": "int", "mean_size": "float", "mean_service": "float"}),
    Case("offered_load", offered_load, {"rate": 0.5, "machine_size": 64, "mean_size": 8.0, "mean_service": 5.0},
         {"rate": "float", "machine_size": "int", "mean_size": "float", "mean_service": "float"}),
    Case("Amdahl", Amdahl, {"serial_fraction": 0.1}, {"serial_fraction": "float"}),
    Case("misp_serial_fraction", misp_serial_fraction, {"efficiency": 0.5, "n": 8}, {"efficiency": "float",
                                                                                     "n": "int"}),
    Case("Downey speedup", DowneySpeedup, {"A": 4.0, "sigma": 1.0}, {"A": "float", "sigma": "float"}),
    Case("Job", Job, {"id": 0, "arrival": 0.0, "request": 1, "runtime": 1.0}, {"runtime": "float"}),
    Case("simulate", _simulate, {}, {"jobs": "int", "warmup": "int", "seed": "int", "until": "float",
                                     "record_state": "bool"}),
    Case("simulate_days", lambda **kw: simulate_days("SEV", **kw), {"days": 1},
         {"N": "int", "load": "float", "days": "int", "seed": "int"}),
    Case("t_quantile", metrics.t_quantile, {"df": 3}, {"df": "int"}),
    Case("episode_seeds", episode_seeds, {"seed": 1, "count": 2}, {"seed": "int", "count": "int"}),
    Case("replicate_until", lambda **kw: metrics.replicate_until(lambda r: {"mean_turnaround": 1.0 + r}, **kw),
         {"relative": 0.5}, {"relative": "float", "min_runs": "int", "max_runs": "int"}),
    Case("summarize", lambda **kw: _simulate().summary(**kw), {}, {"tau": "float"}),
]

CASES = _policy_cases() + _distribution_cases() + _model_cases() + _allocator_cases() + OTHER_CASES
PARAMS = [(case, p) for case in CASES for p in case.params]


def _bad_values(case: Case, param: str) -> list[Any]:
    """Values ``param`` must refuse: garbage, a negative number unless it is signed, 0 where 0 is
    invalid; for a boolean anything but ``True`` and ``False``."""
    kind = case.params[param]
    if kind == "bool":
        return [NAN, 1, 0, "yes", None]
    out = list(GARBAGE)
    if kind == "int":
        out += [2.5, 3.0]  # an integral parameter takes no floats, not even whole ones
    if (case.label, param) not in SIGNED:
        out.append(-1 if kind == "int" else -0.5)
    zero_ok = param in POLICY_ZERO_OK if case.label.startswith("policy ") else (case.label, param) in ZERO_OK
    if not zero_ok:
        out.append(0 if kind == "int" else 0.0)
    return out


def _shown(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    return str(value) if isinstance(value, int) else repr(float(value))


@contextlib.contextmanager
def _no_hang(seconds: int = 20):
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - not on POSIX
        yield
        return

    def hung(*_: Any) -> None:
        raise AssertionError(f"no answer within {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _refused(case: Case, param: str, value: Any) -> None:
    with _no_hang():
        try:
            got = case.build(**{**case.base, param: value})
        except ValueError as exc:  # ParameterError, TopologyError, GangError, ConfigError ... all are ValueErrors
            msg = str(exc)
            assert param in msg or (param == "N" and "N" in msg), f"{case}: {param} not named in {msg!r}"
            assert _shown(value) in msg, f"{case}: value {value!r} not shown in {msg!r}"
            return
        except Exception as exc:  # noqa: BLE001 - the point: nothing but a ValueError naming the parameter
            raise AssertionError(f"{case}({param}={value!r}) raised {type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{case}({param}={value!r}) was accepted: {got!r}")


def test_the_registries_are_all_covered():
    labels = {c.label for c in CASES}
    # Linear and CubeDiscreteNormal take nothing; BoxSides takes one sequence, whose elements
    # tests/scheduling/workloads/test_box_sides.py spoils one by one
    assert set(reg.DISTRIBUTIONS) - {"Linear", "CubeDiscreteNormal", "BoxSides"} <= labels
    assert {f"{name} model" for name in reg.WORKLOAD_MODELS} <= labels
    assert {"GrayCode", "FirstFit", "BestFit"} <= labels
    assert sum(c.label.startswith("policy ") for c in CASES) >= 50
    assert len(PARAMS) >= 150


def test_the_base_arguments_are_valid():
    for case in CASES:
        with _no_hang():
            case.build(**case.base)


@pytest.mark.parametrize("case, param", PARAMS, ids=[f"{c.label}:{p}" for c, p in PARAMS])
def test_every_numeric_parameter_refuses_what_is_not_its_number(case, param):
    for value in _bad_values(case, param):
        _refused(case, param, value)


def _garbage_for(kind: str) -> st.SearchStrategy:
    common = st.sampled_from(GARBAGE) | st.text(max_size=3) | st.lists(st.integers(), max_size=2)
    if kind == "bool":
        return st.sampled_from([NAN, 1, 0, "true", None, 2.0])
    if kind == "int":
        return common | st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not float(x).is_integer())
    return common


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_garbage_is_refused_by_name(data):
    case, param = data.draw(st.sampled_from(PARAMS), label="parameter")
    value = data.draw(_garbage_for(case.params[param]), label="value")
    _refused(case, param, value)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_negative_numbers_are_refused(data):
    choices = [(c, p) for c, p in PARAMS if c.params[p] != "bool" and (c.label, p) not in SIGNED]
    case, param = data.draw(st.sampled_from(choices), label="parameter")
    if case.params[param] == "int":
        value = data.draw(st.integers(max_value=-1), label="value")
    else:
        value = data.draw(st.floats(max_value=-1e-9, allow_infinity=False), label="value")
    _refused(case, param, value)


# -- sequences, checked element by element -------------------------------------------------------
@pytest.mark.parametrize("build, fragment", [
    (lambda: reg.make_distribution("CubeDims", {"max_dim": 2, "probs": [0.5, NAN, 0.5]}), "probs[1]"),
    (lambda: reg.make_distribution("CubeDims", {"max_dim": 2, "probs": [0.5, INF, 0.5]}), "probs[1]"),
    (lambda: reg.make_distribution("CubeDims", {"max_dim": 1, "probs": [True, 0.5]}), "probs[0]"),
    (lambda: reg.make_distribution("CubeDims", {"max_dim": 1, "probs": [0.0, 0.0]}), "not all be 0"),
    (lambda: reg.make_workload("Applications", {"weights": [1.0, NAN]}, load=0.5, machine_size=64), "weights"),
    (lambda: reg.make_workload("Applications", {"numbers": [1, True]}, load=0.5, machine_size=64), "numbers"),
    (lambda: ApplicationMix(numbers=(1, 2), weights=(1.0, -1.0), load=0.5, machine_size=64), "weights[1]"),
    (lambda: ApplicationMix(numbers=(True,), load=0.5, machine_size=64), "1..30, got True"),
    (lambda: Tabulated((1.0, NAN)), "efficiencies[1]"),
    (lambda: Tabulated(()), "non-empty"),
    (lambda: Downey(log_lifetime=(2.0, NAN)), "log_lifetime"),
    (lambda: Downey(log_lifetime=(2.0, 1000.0)), "log_lifetime"),
    (lambda: reg.make_workload("Trace", {"file": "x", "window": [0, NAN]}, load=None, machine_size=64), "window"),
    (lambda: metrics.fairness(_simulate().table, bins=[0, NAN, 10]), "bins"),
    (lambda: SnapshotPolicy("FCFS", [1.0, NAN]), "times[1]"),
])
def test_sequence_parameters_are_checked_element_by_element(build, fragment):
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        build()


# -- the issue's repros --------------------------------------------------------------------------
def test_nan_and_infinite_loads_no_longer_reach_a_simulation():
    for load in (NAN, INF):
        with pytest.raises(ValueError, match=f"load must be a finite number > 0, got {load!r}"):
            Synthetic(MeshSides(32, 32), Exponential(5.0), load=load, machine_size=1024)
    with pytest.raises(ValueError, match="Downey workload: load must be a finite number > 0, got inf"):
        Downey(load=INF)  # arrivals at rate inf used to loop forever inside day 0


def test_a_valid_run_gives_numbers_not_nan():
    s = _simulate(seed=3).summary()
    assert all(math.isfinite(s[k]) for k in ("mean_turnaround", "mean_wait", "utilization", "effectiveness"))


# -- experiment files ------------------------------------------------------------------------------
BASE_TOML = {"topology": "cube:4", "allocators": ["Buddy"], "policies": ["FCFS"], "loads": [0.5]}


@pytest.mark.parametrize("change, key, shown", [
    ({"loads": [0.5, NAN]}, "loads", "nan"),
    ({"loads": [INF]}, "loads", "inf"),
    ({"loads": [True]}, "loads", "True"),
    ({"jobs": INF}, "jobs", "inf"),
    ({"jobs": True}, "jobs", "True"),
    ({"warmup": 1.5}, "warmup", "1.5"),
    ({"replications": NAN}, "replications", "nan"),
    ({"seed": -1}, "seed", "-1"),
    ({"target": {"relative": INF}}, "target.relative", "inf"),
    ({"target": {"relative": NAN}}, "target.relative", "nan"),
    ({"target": {"min": True}}, "target.min", "True"),
    ({"plots": [{"kind": "fairness", "load": NAN}]}, "plots[0].load", "nan"),
    ({"topology": {"kind": "cube", "dim": NAN}}, "topology", "nan"),
    ({"topology": {"kind": "mesh", "width": 4.5, "height": 4}}, "topology", "4.5"),
    ({"topology": {"kind": "mesh", "width": True, "height": 4}}, "topology", "True"),
    ({"allocators": [{"name": "GrayCode", "codes": NAN}]}, "allocators[0]", "nan"),
    ({"allocators": [{"name": "GrayCode", "colour": 1}]}, "allocators[0].colour", "allowed: codes"),
    ({"topology": "mesh:8x8", "allocators": [{"name": "FirstFit", "rotate": 1}]}, "allocators[0]", "1"),
    ({"topology": "mesh:24x24", "allocators": ["Buddy2D"]}, "allocators[0]", "power-of-two"),
    ({"policies": [{"name": "DEQP", "overhead": INF}]}, "policies[0]", "inf"),
    ({"topology": "flat:64", "allocators": ["DHCTree"], "policies": [{"name": "Gang-Vanilla", "cycle": NAN}]},
     "policies[0]", "nan"),
    ({"workload": {"service": {"name": "Exponential", "mean": NAN}}}, "workload.service", "nan"),
    ({"workload": {"service": {"name": "Uniform", "low": -INF, "high": 1.0}}}, "workload.service", "-inf"),
    ({"workload": {"sizes": {"name": "CubeDims", "max_dim": 2.0}}}, "workload.sizes", "2.0"),
    ({"workload": {"speedup": {"name": "MISP", "high": INF}}}, "workload.speedup", "inf"),
    ({"topology": "flat:64", "allocators": ["FlatPool"], "workload": {"model": {"name": "Downey", "days": NAN}}},
     "workload.model.days", "nan"),
    ({"topology": "flat:64", "allocators": ["FlatPool"], "workload": {"model": {"name": "Downey",
                                                                               "sigma_max": INF}}},
     "workload.model.sigma_max", "inf"),
    ({"topology": "flat:64", "allocators": ["FlatPool"], "workload": {"model": {"name": "BatchMix",
                                                                               "repeats": True}}},
     "workload.model.repeats", "True"),
])
def test_experiment_files_refuse_numbers_that_are_not_numbers(change, key, shown):
    with pytest.raises(ConfigError) as info:
        study_from_dict({**BASE_TOML, **change}, file="bad.toml")
    msg = str(info.value)
    assert info.value.key == key, msg
    assert shown in msg, msg


def test_toml_literals_nan_and_inf_are_refused(tmp_path):
    from scheduling.experiments import load_study

    for text, key in (("loads = [nan]", "loads"), ("loads = [0.5]\njobs = inf", "jobs"),
                      ("loads = [0.5]\n[target]\nrelative = -inf", "target.relative")):
        path = tmp_path / "bad.toml"
        path.write_text('topology = "cube:4"\nallocators = ["Buddy"]\npolicies = ["FCFS"]\n' + text + "\n")
        with pytest.raises(ConfigError) as info:
            load_study(path)
        assert info.value.key == key and "bad.toml" in str(info.value)


@pytest.mark.parametrize("call, fragment", [
    (lambda: opt_eff_allocation([Amdahl(0.1)], [4], NAN), "total"),
    (lambda: equal_eff_allocation([Amdahl(0.1)], [4], 4.0), "total"),
    (lambda: equal_eff_allocation([Amdahl(0.1)], [4], 4, max_steps=True), "max_steps"),
    (lambda: best_size(Amdahl(0.1), INF), "limit"),
])
def test_the_efficiency_functions_refuse_counts_that_are_not_counts(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()
