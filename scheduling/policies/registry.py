"""Policies by the names the papers use.

``get("RSR-1")`` returns a fresh policy object; parameterised names (``RSR-3``, ``Limit-6``,
``DPROP-SM/2``) are parsed as a family plus a number after the last ``-`` or ``/``. Every policy
module registers its families here with :func:`register`, saying what each needs (``needs``: the
allocator or topology, and what the jobs must carry), which :func:`families` and ``topoalloc
list`` show. An unknown name raises :class:`UnknownPolicyError` suggesting the closest names.

>>> get("RSR1")
Traceback (most recent call last):
...
scheduling.policies.registry.UnknownPolicyError: unknown policy 'RSR1'; did you mean RSR-1? \
(scheduling.policies.names() lists every family; on the command line: topoalloc list)

The policy modules are imported on first use, not with the package (importing them all costs more
than the rest of :mod:`scheduling`): :data:`_BUILTIN` lists every family a built-in module
registers, with its parameter kind and help (and :data:`_BUILTIN_NEEDS` what the module's policies
need), so :func:`names`, :func:`describe` and :func:`suggest` need no import, and :func:`get`
imports a family's module the first time it is asked for. A test checks that the table matches what
the modules register; a family added to a policy module must be added to it. A name registered with
:func:`register` by the user replaces the built-in family of that name, even when the built-in
module is imported later.
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from .base import Policy

__all__ = ["register", "get", "names", "describe", "families", "suggest", "PolicyFamily", "UnknownPolicyError",
           "ANY_ALLOCATOR"]

#: What most policies need: nothing beyond the allocator surface.
ANY_ALLOCATOR = "any allocator (mesh, cube, switch tree, DHC tree or flat pool)"


class UnknownPolicyError(KeyError):
    """No registered policy has this name; the message suggests the closest names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class PolicyFamily:
    """A registered family: its ``name``, ``factory``, the number its name takes (``param``:
    ``"int"``, ``"float"`` or ``None``), a one-line ``help`` and what it ``needs`` to run (the
    allocator or topology, and any job attributes)."""

    name: str
    factory: Callable[..., Policy]
    param: str | None
    help: str
    needs: str = ANY_ALLOCATOR
    builtin: bool = False  # registered by the built-in module that _BUILTIN assigns the name to

    @property
    def pattern(self) -> str:
        """The name as :func:`names` lists it (``RSR-<int>`` for a parameterised family)."""
        return _pattern(self.name, self.param)


def _pattern(name: str, param: str | None) -> str:
    return name if param is None else f"{name}-<{param}>"


_FAMILIES: dict[str, PolicyFamily] = {}

#: The families each lazily imported policy module (``scheduling.policies.<module>``) registers:
#: ``(name, param, help)`` as the module passes them to :func:`register`.
_BUILTIN: dict[str, tuple[tuple[str, str | None, str], ...]] = {
    "backfill.easy": (
        ("EASY", None, "FCFS with EASY backfilling: a reservation for the head (seed 004 §2.2)"),
    ),
    "backfill.conservative": (
        ("Conservative", None, "FCFS with conservative backfilling: a reservation for every job"),
    ),
    "downey": (
        ("PWS", None, "Downey PWS, greedy (seed 001 §5-6)"),
        ("PWS-greedy", None, "Downey PWS, greedy (seed 001 §5-6)"),
        ("PWS-stubborn", None, "Downey PWS, stubborn (seed 001 §5-6)"),
        ("PWS-hybrid", "float", "Downey PWS, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("AVG", None, "Downey AVG, greedy (seed 001 §5-6)"),
        ("AVG-greedy", None, "Downey AVG, greedy (seed 001 §5-6)"),
        ("AVG-stubborn", None, "Downey AVG, stubborn (seed 001 §5-6)"),
        ("AVG-hybrid", "float", "Downey AVG, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("MAX", None, "Downey MAX, greedy (seed 001 §5-6)"),
        ("MAX-greedy", None, "Downey MAX, greedy (seed 001 §5-6)"),
        ("MAX-stubborn", None, "Downey MAX, stubborn (seed 001 §5-6)"),
        ("MAX-hybrid", "float", "Downey MAX, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("SEV", None, "Downey SEV, greedy (seed 001 §5-6)"),
        ("SEV-greedy", None, "Downey SEV, greedy (seed 001 §5-6)"),
        ("SEV-stubborn", None, "Downey SEV, stubborn (seed 001 §5-6)"),
        ("SEV-hybrid", "float", "Downey SEV, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("3/2 AVG", None, "Downey 3/2 AVG, greedy (seed 001 §5-6)"),
        ("3/2 AVG-greedy", None, "Downey 3/2 AVG, greedy (seed 001 §5-6)"),
        ("3/2 AVG-stubborn", None, "Downey 3/2 AVG, stubborn (seed 001 §5-6)"),
        ("3/2 AVG-hybrid", "float",
         "Downey 3/2 AVG, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("Simplified SEV", None, "Downey Simplified SEV, greedy (seed 001 §5-6)"),
        ("Simplified SEV-greedy", None, "Downey Simplified SEV, greedy (seed 001 §5-6)"),
        ("Simplified SEV-stubborn", None, "Downey Simplified SEV, stubborn (seed 001 §5-6)"),
        ("Simplified SEV-hybrid", "float",
         "Downey Simplified SEV, hybrid with minimum fraction c of the ideal size (seed 001 §6.4)"),
        ("ASP", None, "Downey's adaptive static partitioning (seed 001 §5.4)"),
    ),
    "ismail_dynamic": (
        ("DEQP", None, "dynamic equipartitioning (seed 000 §4.3)"),
        ("DPROP", None, "dynamic proportional allocation (seed 000 §4.3)"),
        ("DFCFS", None, "dynamic first come first served (seed 000 §4.3)"),
        ("DSMJF", None, "dynamic smallest job first (seed 000 §4.3)"),
        ("DPROP-SM", "float", "DPROP with priority to small jobs, x (seed 000 §4.5)"),
        ("DPROP-SH", "float", "DPROP with priority to short jobs, x (seed 000 §4.5)"),
    ),
    "efficiency": (
        ("EQUI", None, "dynamic equipartition (seed 003 §4.1)"),
        ("AP-EQUI", None, "equipartition capped at each job's best size, a priori (seed 003 §4.1)"),
        ("ST-EQUI", None, "equipartition with self-tuning by golden sections (seed 003 §4.2)"),
        ("EQUAL-EFF", None, "equal extrapolated efficiency, greedy (seed 003 §5.1)"),
        ("OPT-EFF", None, "maximum sum of efficiencies by dynamic programming (seed 003 §5.2)"),
        ("ST-EQUAL-EFF", None, "EQUAL-EFF with self-tuning (seed 003 §5.3)"),
    ),
    "gang": (
        ("Gang-Vanilla", None,
         "vanilla DHC gang scheduling (seed 004 §2.3); T = 1000 s, switch cost 1 s, uniform quanta"),
        ("Gang-Vanilla-Weight", None, "vanilla DHC gang scheduling (seed 004 §2.3), weight-oriented assignment (§3)"),
        ("Gang-Vanilla-Rho", None, "vanilla DHC gang scheduling (seed 004 §2.3), rho-based quanta (§7.2)"),
        ("Gang-Vanilla-T", "float", "vanilla DHC gang scheduling (seed 004 §2.3) with timeplexing cycle T seconds"),
        ("Gang-PushDown", None,
         "DHC gang scheduling with push-down (seed 004 §2.4); T = 1000 s, switch cost 1 s, uniform quanta"),
        ("Gang-PushDown-Weight", None,
         "DHC gang scheduling with push-down (seed 004 §2.4), weight-oriented assignment (§3)"),
        ("Gang-PushDown-Rho", None, "DHC gang scheduling with push-down (seed 004 §2.4), rho-based quanta (§7.2)"),
        ("Gang-PushDown-T", "float",
         "DHC gang scheduling with push-down (seed 004 §2.4) with timeplexing cycle T seconds"),
        ("Gang-Migrate-Root", None,
         "DHC gang scheduling, migration from the root (seed 004 §2.5); T = 1000 s, switch cost 1 s, "
         "uniform quanta"),
        ("Gang-Migrate-Root-Weight", None,
         "DHC gang scheduling, migration from the root (seed 004 §2.5), weight-oriented assignment (§3)"),
        ("Gang-Migrate-Root-Rho", None,
         "DHC gang scheduling, migration from the root (seed 004 §2.5), rho-based quanta (§7.2)"),
        ("Gang-Migrate-Root-T", "float",
         "DHC gang scheduling, migration from the root (seed 004 §2.5) with timeplexing cycle T seconds"),
        ("Gang-Migrate-Leaves", None,
         "DHC gang scheduling, migration from the leaves (seed 004 §2.5); T = 1000 s, switch cost 1 s, "
         "uniform quanta"),
        ("Gang-Migrate-Leaves-Weight", None,
         "DHC gang scheduling, migration from the leaves (seed 004 §2.5), weight-oriented assignment (§3)"),
        ("Gang-Migrate-Leaves-Rho", None,
         "DHC gang scheduling, migration from the leaves (seed 004 §2.5), rho-based quanta (§7.2)"),
        ("Gang-Migrate-Leaves-T", "float",
         "DHC gang scheduling, migration from the leaves (seed 004 §2.5) with timeplexing cycle T seconds"),
    ),
    "recorded": (
        ("Recorded", None,
         "the trace's recorded schedule: each job starts at arrival + its recorded wait (SWF field 3, or an sacct "
         "dump's Start - Submit), on its recorded nodes when the trace has them (an sacct dump replayed on its "
         "tree:FILE); no allocator (seed 004's EASY-LL columns)"),
    ),
    "ismail_static": (
        ("FF", None, "no folding first fit, queue by arrival (seed 000 §2.2.1)"),
        ("FFDS", None, "no folding first fit, queue by -n (seed 000 §2.2.1)"),
        ("FFIS", None, "no folding first fit, queue by n (seed 000 §2.2.1)"),
        ("FFITD", None, "no folding first fit, queue by n * t(n) (seed 000 §2.4)"),
        ("FF+FIFO", None, "unlimited folding, queue by arrival, first fit first (seed 000 §2.2.2)"),
        ("FFDS+FIFO", None, "unlimited folding, queue by -n, first fit first (seed 000 §2.2.2)"),
        ("FFIS+FIFO", None, "unlimited folding, queue by n, first fit first (seed 000 §2.2.2)"),
        ("FCFSUF", None, "unlimited folding, queue by arrival (seed 000 §2.2.2)"),
        ("STDFUF", None, "unlimited folding, queue by n * t(n) (seed 000 §2.4)"),
        ("SHJFUF", None, "unlimited folding, queue by t(n) (seed 000 §2.4)"),
        ("LOJFUF", None, "unlimited folding, queue by -t(n) (seed 000 §2.4)"),
        ("EPFP", None, "even partitioning of free processors, eager (seed 000 §2.2.2)"),
        ("FFCFS", None, "adaptive limited folding (fcfs scan, queue by arrival) (seed 000 §3.2), FF_max = f1max"),
        ("FFCFS-f2max", None,
         "adaptive limited folding (fcfs scan, queue by arrival) (seed 000 §3.2), FF_max = f2max with r = "
         "2/3"),
        ("FFCFS-fixed", "float",
         "adaptive limited folding (fcfs scan, queue by arrival) (seed 000 §3.2), fixed FF_max = the "
         "number"),
        ("FFF", None, "adaptive limited folding (first_fit scan, queue by arrival) (seed 000 §3.2), FF_max = f1max"),
        ("FFF-f2max", None,
         "adaptive limited folding (first_fit scan, queue by arrival) (seed 000 §3.2), FF_max = f2max "
         "with r = 2/3"),
        ("FFF-fixed", "float",
         "adaptive limited folding (first_fit scan, queue by arrival) (seed 000 §3.2), fixed FF_max = the "
         "number"),
        ("FSJF", None, "adaptive limited folding (first_fit scan, queue by n) (seed 000 §3.2), FF_max = f1max"),
        ("FSJF-f2max", None,
         "adaptive limited folding (first_fit scan, queue by n) (seed 000 §3.2), FF_max = f2max with r = "
         "2/3"),
        ("FSJF-fixed", "float",
         "adaptive limited folding (first_fit scan, queue by n) (seed 000 §3.2), fixed FF_max = the "
         "number"),
        ("MFFF", None, "adaptive limited folding (multi scan, queue by arrival) (seed 000 §3.2), FF_max = f1max"),
        ("MFFF-f2max", None,
         "adaptive limited folding (multi scan, queue by arrival) (seed 000 §3.2), FF_max = f2max with r "
         "= 2/3"),
        ("MFFF-fixed", "float",
         "adaptive limited folding (multi scan, queue by arrival) (seed 000 §3.2), fixed FF_max = the "
         "number"),
        ("MFSJF", None, "adaptive limited folding (multi scan, queue by n) (seed 000 §3.2), FF_max = f1max"),
        ("MFSJF-f2max", None,
         "adaptive limited folding (multi scan, queue by n) (seed 000 §3.2), FF_max = f2max with r = 2/3"),
        ("MFSJF-fixed", "float",
         "adaptive limited folding (multi scan, queue by n) (seed 000 §3.2), fixed FF_max = the number"),
        ("MFSTDF", None, "adaptive limited folding (multi scan, queue by n * t(n)) (seed 000 §3.4), FF_max = f1max"),
        ("MFSTDF-f2max", None,
         "adaptive limited folding (multi scan, queue by n * t(n)) (seed 000 §3.4), FF_max = f2max with r "
         "= 2/3"),
        ("MFSTDF-fixed", "float",
         "adaptive limited folding (multi scan, queue by n * t(n)) (seed 000 §3.4), fixed FF_max = the "
         "number"),
        ("MFSHJF", None, "adaptive limited folding (multi scan, queue by t(n)) (seed 000 §3.4), FF_max = f1max"),
        ("MFSHJF-f2max", None,
         "adaptive limited folding (multi scan, queue by t(n)) (seed 000 §3.4), FF_max = f2max with r = "
         "2/3"),
        ("MFSHJF-fixed", "float",
         "adaptive limited folding (multi scan, queue by t(n)) (seed 000 §3.4), fixed FF_max = the number"),
        ("MFLOJF", None, "adaptive limited folding (multi scan, queue by -t(n)) (seed 000 §3.4), FF_max = f1max"),
        ("MFLOJF-f2max", None,
         "adaptive limited folding (multi scan, queue by -t(n)) (seed 000 §3.4), FF_max = f2max with r = "
         "2/3"),
        ("MFLOJF-fixed", "float",
         "adaptive limited folding (multi scan, queue by -t(n)) (seed 000 §3.4), fixed FF_max = the "
         "number"),
    ),
}

#: What the policies of each lazily imported module need (the ``needs`` they register with).
_BUILTIN_NEEDS: dict[str, str] = {
    "downey": "FlatPool, and jobs carrying Downey's A and sigma (the Downey workload model, or a Downey speedup "
              "per job)",
    "ismail_dynamic": "a flat machine (FlatPool; processor-count requests); resizes running jobs",
    "efficiency": "a flat machine (FlatPool; processor-count requests) and jobs with speedup curves; resizes running "
                  "jobs",
    "gang": "DHCTree (a flat machine as a forest of buddy partitions; processor-count requests)",
    "recorded": "jobs carrying their recorded wait (an SWF trace or an sacct dump); no allocator is used",
    "ismail_static": "FlatPool (a flat machine; processor-count requests)",
}

_PACKAGE = __name__.rsplit(".", 1)[0]
#: Upper-case family name -> (name, module, param, help, needs) of every built-in family.
_LAZY: dict[str, tuple[str, str, str | None, str, str]] = {
    name.upper(): (name, f"{_PACKAGE}.{module}", param, help, _BUILTIN_NEEDS.get(module, ANY_ALLOCATOR))
    for module, families in _BUILTIN.items() for name, param, help in families
}


def register(name: str, factory: Callable[..., Policy], *, param: str | None = None, help: str = "",
             needs: str = ANY_ALLOCATOR) -> None:
    """Register a policy family. ``param`` is ``"int"`` or ``"float"`` if the name takes a number
    (``RSR-<int>``), else ``None``; ``needs`` says what it runs on (default: any allocator).
    Re-registering a name replaces it (a built-in module imported after a user registered one of its
    names leaves the user's family in place)."""
    if param not in (None, "int", "float"):
        raise ValueError(f"param must be None, 'int' or 'float', got {param!r}")
    key = name.upper()
    lazy = _LAZY.get(key)
    builtin = lazy is not None and sys._getframe(1).f_globals.get("__name__") == lazy[1]
    old = _FAMILIES.get(key)
    if builtin and old is not None and not old.builtin:
        return  # the user's family of this name stands
    _FAMILIES[key] = PolicyFamily(name, factory, param, help, needs, builtin)


def _family(key: str) -> PolicyFamily | None:
    """The registered family ``key`` (upper case), importing its built-in module if need be."""
    fam = _FAMILIES.get(key)
    if fam is None and key in _LAZY:
        importlib.import_module(_LAZY[key][1])
        fam = _FAMILIES.get(key)
    return fam


def load_all() -> None:
    """Import every built-in policy module (so that all families are registered objects)."""
    for module in dict.fromkeys(entry[1] for entry in _LAZY.values()):
        importlib.import_module(module)


def families() -> list[PolicyFamily]:
    """The registered families, sorted by name (case-insensitive); imports every policy module."""
    load_all()
    return sorted(_FAMILIES.values(), key=lambda f: f.name.upper())


def _entries() -> dict[str, tuple[str, str | None, str]]:
    """Upper-case name -> (name, param, help) of every family, imported or not."""
    out = {key: (name, param, help) for key, (name, _, param, help, _) in _LAZY.items()}
    out.update({key: (fam.name, fam.param, fam.help) for key, fam in _FAMILIES.items()})
    return out


def names() -> list[str]:
    """The registered families, as written (parameterised ones with a placeholder: ``RSR-<t>``)."""
    return sorted((_pattern(name, param) for name, param, _ in _entries().values()), key=str.upper)


def describe() -> dict[str, str]:
    """Family name -> one-line description."""
    return {name: help for name, _, help in _entries().values()}


_NUMBER = re.compile(r"^(?P<family>.+?)[-/](?P<value>\d+(?:\.\d+)?)$")
_TRAILING = re.compile(r"^(?P<family>.*?)[-/ ]?(?P<value>\d+(?:\.\d+)?)$")


def suggest(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` registered names closest to ``name`` (``"RSR1"`` -> ``["RSR-1"]``), keeping a
    number the name ends with for the families that take one.

    >>> suggest("rsr1"), suggest("limit 5"), suggest("MFF")
    (['RSR-1'], ['Limit-5'], ['MFFF', 'FF', 'MFSJF'])
    """
    text = str(name).strip()
    m = _TRAILING.match(text)
    number = m.group("value") if m and m.group("family") else None
    if number is not None and "." in number:
        number_int = None
    else:
        number_int = number
    candidates: dict[str, str] = {}
    for fam_name, param, _ in _entries().values():
        if param is None:
            candidates[fam_name.upper()] = fam_name
            continue
        value = number if param == "float" else number_int
        spelled = f"{fam_name}-{value}" if value is not None else _pattern(fam_name, param)
        candidates[spelled.upper()] = spelled
    found = difflib.get_close_matches(text.upper(), list(candidates), n=n, cutoff=0.6)
    return [candidates[c] for c in found]


def get(name: str) -> Policy:
    """A fresh policy for ``name`` (case-insensitive); :class:`UnknownPolicyError` (suggesting the
    closest names) if there is none, :class:`ValueError` if the parameter is bad."""
    if isinstance(name, Policy):
        return name
    if not isinstance(name, str):
        raise TypeError(f"a policy name must be a string, got {name!r}")
    fam = _family(name.strip().upper())
    if fam is not None and fam.param is None:
        return fam.factory()
    m = _NUMBER.match(name.strip())
    if m:
        fam = _family(m.group("family").upper())
        if fam is not None and fam.param is not None:
            raw = m.group("value")
            if fam.param == "int" and "." in raw:
                raise ValueError(f"policy {name!r}: {fam.name} takes an integer, got {raw}")
            return fam.factory(int(raw) if fam.param == "int" else float(raw))
    if fam is not None and fam.param is not None:  # the family without its number
        raise UnknownPolicyError(f"policy {fam.name} takes a number: {fam.pattern} (e.g. {fam.name}-1)")
    close = suggest(name)
    hint = ""
    if close:
        hint = f"; did you mean {close[0] if len(close) == 1 else ', '.join(close[:-1]) + ' or ' + close[-1]}?"
    raise UnknownPolicyError(f"unknown policy {name!r}{hint} (scheduling.policies.names() lists every family; "
                             "on the command line: topoalloc list)")
