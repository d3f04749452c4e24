import pytest

from scheduling import policies
from scheduling.policies import FCFS, RSR, AverageLimit, GreedyLimit, Limit, UnknownPolicyError
from topoalloc import Buddy, FlatPool
from topologies import Flat, Hypercube


def test_names_parse_with_parameters():
    assert policies.get("RSR-3").name == "RSR-3"
    assert policies.get("limit-6").name == "Limit-6"
    assert policies.get("FCFS").name == "FCFS" and policies.get("Greedy").name == "Greedy"
    assert isinstance(policies.get("Average").folding, AverageLimit)
    assert policies.get("RSR-1") is not policies.get("RSR-1")  # fresh objects
    assert "RSR-<int>" in policies.names()


def test_unknown_name_suggests_the_closest_ones():
    with pytest.raises(UnknownPolicyError, match="RSR-<int>"):
        policies.get("RSR")  # a family that takes a number, without it
    with pytest.raises(UnknownPolicyError) as e:
        policies.get("RSR1")
    assert "unknown policy 'RSR1'; did you mean RSR-1?" in str(e.value)
    assert "topoalloc list" in str(e.value) and len(str(e.value)) < 200  # not every name
    with pytest.raises(UnknownPolicyError, match="did you mean Gang-Migrate-Leaves-T-600, "):
        policies.get("gang-migrate-leaves-t600")
    with pytest.raises(UnknownPolicyError) as e:
        policies.get("Nope-3")
    assert "did you mean" not in str(e.value) and "names()" in str(e.value)
    with pytest.raises(ValueError, match="integer"):
        policies.get("RSR-1.5")


def test_every_family_says_what_it_needs():
    needs = {f.name: f.needs for f in policies.families()}
    assert needs["RSR"] == needs["EASY"] == policies.ANY_ALLOCATOR
    assert "DHCTree" in needs["Gang-Vanilla"] and "DHCTree" in needs["Gang-Migrate-Leaves-T"]
    assert "FlatPool" in needs["SEV"] and "Downey" in needs["SEV"] and "Downey" in needs["ASP"]
    assert "FlatPool" in needs["MFFF"] and "flat" in needs["DEQP"] and "flat" in needs["EQUI"]
    assert [f.pattern for f in policies.families()] == policies.names()


def test_rule_parameters_are_validated():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            RSR(bad)
        with pytest.raises(ValueError):
            Limit(bad)


def test_rsr_walks_fold_and_limit_folds_first():
    b = Buddy(Hypercube(4))
    b.allocate(3)
    b.allocate(2)  # 4 free nodes: a 2-cube
    assert RSR(1).place(b, 4) is None
    alloc, folds = RSR(2).place(b, 4)
    assert (alloc.request, folds) == (2, 2)
    b2 = Buddy(Hypercube(4))
    alloc, folds = Limit(2).place(b2, 4)  # folded to the limit even on an empty machine
    assert (alloc.request, folds) == (2, 2)
    assert Limit(2).place(b2, 1)[1] == 0


def test_greedy_and_average_on_a_flat_pool():
    p = FlatPool(Flat(16))
    p.allocate(13)
    alloc, folds = GreedyLimit().place(p, 16)  # 16 -> 8 -> 4 -> 2
    assert (alloc.request, folds) == (2, 3)
    p2 = FlatPool(Flat(16))
    p2.allocate(13)
    assert AverageLimit().place(p2, 16, context=8.0) is None  # would go below the average 8
    assert AverageLimit().place(p2, 16, context=2.0)[0].request == 2


def test_policy_binds_once():
    pol = FCFS()
    pol.bind(FlatPool(Flat(4)))
    with pytest.raises(RuntimeError, match="already bound"):
        pol.bind(FlatPool(Flat(4)))


# -- the lazily imported policy modules -------------------------------------------------------------
def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter (the registry's state is per process); its stdout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(root), os.environ.get("PYTHONPATH")))))
    return subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout


def test_static_table_matches_what_the_policy_modules_register():
    out = _fresh(
        "import json\n"
        "from scheduling.policies import registry as r\n"
        "before = sorted(r._FAMILIES)\n"
        "r.load_all()\n"
        "fams = {k: [f.name, f.param, f.help, f.needs, f.builtin] for k, f in r._FAMILIES.items()}\n"
        "print(json.dumps([before, fams]))\n"
    )
    import json

    from scheduling.policies import registry

    before, fams = json.loads(out)
    assert before == ["AVERAGE", "FCFS", "GREEDY", "LIMIT", "RSR"]  # only the package's own families
    table = {key: [name, param, help, needs, True] for key, (name, _, param, help, needs) in registry._LAZY.items()}
    registered = {k: v for k, v in fams.items() if k not in before}
    missing = sorted(set(registered) - set(table))
    assert not missing, f"families registered by a policy module but not in registry._BUILTIN: {missing}"
    assert registered == table  # every entry: same name, parameter, help, needs, module


def test_names_and_help_without_importing_and_get_imports_one_module():
    out = _fresh(
        "import sys\n"
        "from scheduling import policies\n"
        "mods = lambda: sorted(m for m in sys.modules if m.startswith('scheduling.policies.'))\n"
        "start = mods()\n"
        "names, desc = policies.names(), policies.describe()\n"
        "print('EASY' in names, 'DPROP-SM-<float>' in names, 'backfilling' in desc['Conservative'], mods() == start)\n"
        "print(policies.get('dprop-sm/2').name, [m.rsplit('.', 1)[1] for m in mods() if m not in start])\n"
    )
    first, second = out.splitlines()
    assert first == "True True True True"
    assert second.startswith("DPROP-SM") and second.endswith("['ismail_dynamic']")


def test_lazy_attributes_and_user_registrations_win():
    out = _fresh(
        "from scheduling import policies\n"
        "policies.register('EASY', lambda: policies.FCFS(), help='mine')\n"
        "import scheduling.policies.backfill as bf\n"  # the package's own registration comes later
        "print(policies.get('EASY').name, policies.describe()['EASY'], policies.EASY is bf.EASY)\n"
        "print(policies.get('Conservative').name, policies.Gang.__module__)\n"
        "try:\n    policies.Nope\nexcept AttributeError as exc:\n    print(exc)\n"
    )
    lines = out.splitlines()
    assert lines[0] == "FCFS mine True"
    assert lines[1] == "Conservative scheduling.policies.gang"
    assert "has no attribute 'Nope'" in lines[2]
