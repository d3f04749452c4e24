"""The papers whose claims :mod:`scheduling.reproduce` runs: paper id -> (the module that
registers its claims, a short citation). A module of its own so that the command line can list
the papers without importing the claims' machinery."""

from __future__ import annotations

__all__ = ["PAPER_MODULES"]

#: Paper id -> (module with its claims, short citation).
PAPER_MODULES: dict[str, tuple[str, str]] = {
    "000": ("scheduling.reproduce.seed000", "Ismail, PhD thesis, Iowa State 1995"),
    "001": ("scheduling.reproduce.seed001", "Downey, UCB/CSD-96-922"),
    "002": ("scheduling.reproduce.seed002", "Chang & Mohapatra, Iowa State"),
    "003": ("scheduling.reproduce.seed003", "Nguyen, Vaswani & Zahorjan"),
    "004": ("scheduling.reproduce.seed004", "Wang, Papaefthymiou & Squillante"),
    "lo97": ("scheduling.reproduce.noncontig",
             "Lo, Windisch, Liu & Nitzberg, IEEE TPDS 1997; Leung et al., IEEE Cluster 2002"),
    "pollard18": ("scheduling.reproduce.pollard18", "Pollard, Jain, Herbein & Bhatele, SC18"),
    "tori": ("scheduling.reproduce.tori",
             "RIKEN, Fugaku Users Guide §3.4.1; NCSA, Blue Waters Topology Aware Scheduling (Enos et al., CUG 2014)"),
}
