"""The documentation site's pages: their code blocks run and say what they do, their links hold.

Every ```python block of every hand-written page under ``docs/`` runs through the runner of
:mod:`tests.docs_blocks` (no-run markers, reduced sizes, claims in comments compared with the
values); the generated report (``docs/reproductions.md``, ``docs/reproductions/``) is left to the
reproduction tests. Comments in prose are checked by :data:`PROSE_CLAIMS`, per page.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np
import pytest

from .docs_blocks import (
    DOCS,
    GENERATED,
    PROSE,
    ROOT,
    Block,
    ProseClaims,
    blocks_of,
    broken_links,
    claim_of,
    doc_pages,
    enter_tmp,
    imports_of,
    missing_extras,
    missing_paths,
    reduced,
    run_block,
    same,
    skip_reason,
)

PAGES = doc_pages()
BLOCKS = [block for page in PAGES for block in blocks_of(page)]


def _simulate_sizes(code: str) -> tuple[int, int]:
    m = re.search(r"jobs=(\d+), warmup=(\d+)", code)
    assert m is not None, code
    return int(m.group(1)), int(m.group(2))


SUMMARY_KEYS = {"mean_turnaround", "mean_wait", "utilization", "effectiveness", "mean_folding_factor",
                "fraction_folded", "mean_slowdown", "mean_bounded_slowdown", "p50_turnaround", "p90_turnaround",
                "p99_turnaround", "jobs"}


def _check_summary(value: Any, ns: dict[str, Any], code: str) -> None:
    jobs, warmup = _simulate_sizes(code)
    assert SUMMARY_KEYS <= value.keys()
    assert value["jobs"] == jobs - warmup  # the page's 'jobs': 50000 for jobs=50_500, warmup=500


def _check_static_metrics(value: Any, ns: dict[str, Any], code: str) -> None:
    assert {"folding_fragmentation", "system_efficiency"} <= value.keys()
    assert 0 < value["folding_fragmentation"] < 1 and 0 < value["system_efficiency"] < 1
    # the paragraph after the block: the reconstruction's effectiveness differs from summary()'s in
    # the fourth digit, not more
    assert value["effectiveness"] == pytest.approx(ns["r"].summary()["effectiveness"], abs=2e-3)


def _check_dynamic_workload(value: Any, ns: dict[str, Any], code: str) -> None:
    assert ns["w"].workload.machine_size == 64  # §4.4.1: P = 64


def _fail_unless(ok: bool, what: Any) -> None:
    if not ok:
        pytest.fail(str(what))


#: Checks of comments in prose, per page (relative to docs/), keyed by (a unique part of) the line
#: they comment on; each gets the line's value (the expression's, or the assigned name's), the
#: block's namespace and its code.
PROSE_CLAIMS: dict[str, ProseClaims] = {
    "simulating.md": {
        "r.summary()   # {'mean_turnaround'": _check_summary,
        "r.fairness()  # mean turnaround by requested size": lambda v, ns, code: _fail_unless(
            {"size", "mean_turnaround", "jobs"} <= v.keys() and len(v["size"]) > 10, v),
        "r.table       # per-job records": lambda v, ns, code: _fail_unless(
            {"arrival", "start", "end", "requested", "granted", "folds", "changes", "runtime"}
            <= set(v.dtype.names), v.dtype),
    },
    "policies.md": {
        "static_metrics(r, w.take(": _check_static_metrics,
        'w = ismail_dynamic("uniform", load=0.8, speedup="misp")': _check_dynamic_workload,
        "pol = DEQP(overhead=1.0)                                     # C = 1": lambda v, ns, code: _fail_unless(
            ns["pol"].overhead == 1.0, "C"),
        "summarize_days(simulate_days(": lambda v, ns, code: _fail_unless(
            {"load_average", "utilization", "mean_turnaround", "mean_queue_time", "mean_cluster_size",
             "cv_cluster_size", "p90_slowdown"} <= v.keys(), sorted(v)),
    },
    "howto/replay-a-trace.md": {
        'trace = load_swf(trace_path("lublin_256"))': lambda v, ns, code: _fail_unless(
            v.report.jobs == len(v) > 0 and isinstance(v.report.counts, dict), v.report),
    },
}
USED: set[str] = set()
CHECKED: dict[str, int] = {}


def _page_key(block: Block) -> str:
    return block.page.relative_to(DOCS).as_posix()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    return enter_tmp(tmp_path, monkeypatch)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_page_block_runs_and_its_comments_hold(block, in_tmp):
    reason = skip_reason(block)
    if reason:
        pytest.skip(reason)
    CHECKED[block.id] = run_block(block, PROSE_CLAIMS.get(_page_key(block), {}), USED)


def test_the_mechanism_checks_what_it_should():
    """Run after the blocks (file order): claims were really checked, every prose key still matches a
    line of its page and was used."""
    runnable = [b for b in BLOCKS if skip_reason(b) is None]
    if not all(b.id in CHECKED for b in runnable):
        pytest.skip("run with the block tests (the whole file)")
    allocators = [b for b in BLOCKS if _page_key(b) == "allocators.md"]
    assert CHECKED[allocators[0].id] >= 7  # the allocator block: placement, free/size, fold, shape, ...
    for page, claims in PROSE_CLAIMS.items():
        text = (DOCS / page).read_text()
        for key in claims:
            assert key in text, f"{page}: no line has {key!r} any more"
    needs_trace = {k for claims in PROSE_CLAIMS.values() for k in claims if "trace" in k}
    every = {k for claims in PROSE_CLAIMS.values() for k in claims}
    assert every - needs_trace <= USED, (every - needs_trace) - USED


def test_every_python_block_imports_what_it_uses():
    """Each block's import statements run, even where the block itself skips (no trace): a renamed
    API fails here. Optional extras that are not installed are left out."""
    for block in BLOCKS:
        if missing_extras(block.code):
            continue
        exec(imports_of(block.code), {})  # noqa: S102


def test_the_pages_are_the_site():
    """The pages a newcomer is sent to exist and hold runnable examples; the generated report is
    included but not run as examples."""
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"index.md", "getting-started.md", "allocators.md", "switch-trees.md", "simulating.md", "policies.md",
            "placement.md", "experiments.md", "reproducing.md", "benchmarks.md", "about.md",
            "howto/write-an-allocator.md", "howto/write-a-policy.md", "howto/replay-a-trace.md",
            "howto/embed-in-simpy.md", "howto/sweep-on-dask.md"} <= names
    assert not any(n == g or n.startswith(g) for n in names for g in GENERATED)
    assert (DOCS / "reproductions.md").exists()
    for page in ("getting-started.md", "howto/write-an-allocator.md", "howto/write-a-policy.md",
                 "howto/replay-a-trace.md", "howto/embed-in-simpy.md", "howto/sweep-on-dask.md"):
        assert blocks_of(DOCS / page), page


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_links_and_paths_exist(page):
    assert broken_links(page) == []
    assert missing_paths(page) == []


def test_the_api_reference_covers_the_public_packages():
    """Each package of conf.py's ``public_api_packages`` that exists has its page (the build fails
    otherwise too), and each page documents a package that exists."""
    import importlib.util

    conf = ast.parse((DOCS / "conf.py").read_text())
    listed = next(ast.literal_eval(node.value) for node in conf.body
                  if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "public_api_packages")
    index = (DOCS / "api" / "index.md").read_text()
    for package in listed:
        exists = importlib.util.find_spec(package) is not None
        page = DOCS / "api" / f"{package}.rst"
        assert page.exists() == exists, package
        assert (re.search(rf"^{re.escape(package)}$", index, re.M) is not None) == exists, package
        if exists:
            assert f".. public-api:: {package}" in page.read_text()


# -- the runner itself ---------------------------------------------------------------------------------
def test_user_allocator_example_is_checked_by_the_machine():
    text = (DOCS / "howto" / "write-an-allocator.md").read_text()
    at = text.index("<!-- user-allocator-example -->")
    code = re.search(r"```python\n(.*?)```", text[at:], re.S).group(1)
    ns: dict = {}
    exec(compile(code, "write-an-allocator.md", "exec"), ns)  # noqa: S102
    case = ns["TestRowMajorScan"]("runTest")
    case.runTest()  # raises if the state machine finds a violation


def test_reduced_sizes_only_shrink_long_runs():
    assert reduced("jobs=50_500, warmup=500") == "jobs=2970, warmup=29"
    assert reduced("jobs=5500, warmup=500") == "jobs=2750, warmup=250"
    assert reduced("jobs=2000, warmup=100, days=20, limit=500") == "jobs=2000, warmup=100, days=3, limit=200"
    assert reduced("summarize_days(simulate_days(\"SEV\", N=64, load=0.75, days=2))").endswith("days=2))")


def test_claims_are_parsed_from_values_not_prose():
    ns = {"Submesh": tuple, "array": np.array}
    assert claim_of(" 1012, 1024", ns) == (1012, 1024)
    assert claim_of(" (2, 3): halve the longer side", ns) == (2, 3)
    assert claim_of(" '00000***'", ns) == "00000***"
    assert claim_of(" int | None; a count", {"int": int}) == int | None
    for prose in (" trace.report: jobs kept", " folding fragmentation, system efficiency", " C = 1",
                  " mean turnaround by requested size", " x: the variable", " §4.4.1: P = 64"):
        assert claim_of(prose, {"trace": object(), "x": 3}) is PROSE
    assert same((np.arange(3), 2.0), (np.array([0, 1, 2]), 2.0)) and not same(np.arange(3), np.arange(4))
    assert same({"a": 1, "b": 2}, {"a": ...}) and not same(3, 4) and same(None, int | None)


def test_a_false_claim_fails(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```python\nx = 2 + 2\nx  # 5\n```\n")
    with pytest.raises(AssertionError, match="gives 4"):
        run_block(blocks_of(page)[0], {}, set())


def test_a_no_run_marker_is_read(tmp_path):
    page = tmp_path / "R.md"
    page.write_text("x\n<!-- no-run: needs a GPU -->\n```python\nraise SystemExit\n```\n```python\ny = 1\n```\n")
    assert [(b.no_run, b.line) for b in blocks_of(page)] == [("needs a GPU", 3), (None, 6)]


def test_links_and_paths_are_checked(tmp_path, monkeypatch):
    page = tmp_path / "p.md"
    page.write_text("[a](missing.md) [b](p.md#top) [c](https://example.org) `examples/nothing_here.toml` "
                    "`examples/<file>.toml` `scheduling/reproduce/seedNNN.py` `examples/tree_blocks.toml`\n")
    assert broken_links(page) == ["missing.md"]
    assert missing_paths(page) == ["examples/nothing_here.toml"]
    assert ROOT.joinpath("examples", "tree_blocks.toml").exists()
