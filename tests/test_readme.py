"""The README's examples run as written, say what they do, and the README stays a front page.

Every ```python block of README.md runs through the runner of :mod:`tests.docs_blocks` (no-run
markers, reduced sizes, claims in comments compared with the values); see there. The README keeps
what a newcomer needs first (at most 300 lines, the two set-up commands byte for byte, the docs build
command, links to the pages, a layout table with one line per folder); everything else is on the
documentation site, whose pages :mod:`tests.test_docs` runs the same way.
"""

from __future__ import annotations

import re

import pytest

from .docs_blocks import (
    README,
    ROOT,
    blocks_of,
    broken_links,
    enter_tmp,
    imports_of,
    missing_paths,
    run_block,
    skip_reason,
)

BLOCKS = blocks_of(README)
CHECKED: dict[int, int] = {}

SETUP = ("python -m pip install . && topoalloc compare", 'python -m pip install -e ".[test]" && python -m pytest')
DOCS_BUILD = 'python -m pip install -e ".[docs]" && python -m sphinx -W --keep-going -n -b html docs docs/_build/html'


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    return enter_tmp(tmp_path, monkeypatch)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_readme_block_runs_and_its_comments_hold(block, in_tmp):
    reason = skip_reason(block)
    if reason:
        pytest.skip(reason)
    CHECKED[block.index] = run_block(block, {}, set())


def test_the_claims_were_really_checked():
    """Run after the blocks (file order): the first example's comments were compared, not skipped as
    prose."""
    if not all(b.index in CHECKED for b in BLOCKS if skip_reason(b) is None):
        pytest.skip("run with the block tests (the whole file)")
    assert CHECKED[0] >= 7  # the allocator block: placement, free/size, fold, shape, pattern, ...
    assert sum(CHECKED.values()) >= 10  # + the simulation's saturation, the tree's level and switch count


def test_the_readme_is_a_front_page():
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    assert len(BLOCKS) == 3  # the three short examples


def test_the_two_setup_commands_are_there():
    text = README.read_text()
    for command in SETUP:
        assert command in text
    ci = (ROOT / ".ci" / "run").read_text()
    assert SETUP[1] in ci


def test_the_docs_build_command_is_given_and_run_by_ci():
    assert DOCS_BUILD in README.read_text()
    assert DOCS_BUILD in (ROOT / ".ci" / "run").read_text()
    assert DOCS_BUILD in (ROOT / "docs" / "conf.py").read_text()


def test_links_and_paths_exist():
    assert broken_links(README) == []
    assert missing_paths(README) == []


def test_the_layout_table_names_every_package_folder():
    """One line per folder of the three packages (sub-packages included), tests/, examples/,
    benchmarks/ and docs/; a new sub-package without a line fails here."""
    text = README.read_text()
    listed = set(re.findall(r"^\| `([\w/]+/)` \|", text, re.M))
    folders = {f"{p.relative_to(ROOT).as_posix()}/" for pkg in ("topologies", "topoalloc", "scheduling")
               for p in [ROOT / pkg, *(ROOT / pkg).rglob("*")]
               if p.is_dir() and (p / "__init__.py").exists()}
    assert folders - listed == set()
    assert {"tests/", "examples/", "benchmarks/", "docs/"} <= listed
    assert all((ROOT / folder).is_dir() for folder in listed), listed


def test_every_python_block_imports_what_it_uses():
    """Each block's import statements run, even where the block itself skips (no trace): a renamed
    API fails here, not in a user's first session."""
    assert len(BLOCKS) >= 3
    for block in BLOCKS:
        exec(imports_of(block.code), {})  # noqa: S102
