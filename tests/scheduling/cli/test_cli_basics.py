"""The command line's surface: ``python -m``, ``--version``, help texts, ``list``, bad numbers and
unknown policy names (one line, no traceback, no wall of names)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import scheduling
import topoalloc
import topologies
from scheduling import policies
from scheduling.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[3]


def _run_module(module: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)


@pytest.mark.parametrize("module", ["topoalloc", "scheduling", "scheduling.cli"])
def test_python_dash_m_runs_the_command_line(module):
    done = _run_module(module, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"topoalloc {scheduling.__version__}"


def test_the_three_packages_share_one_version_and_the_build_reads_it():
    import tomllib

    hatch = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in hatch["project"]["dynamic"]
    source = ROOT / hatch["tool"]["hatch"]["version"]["path"]
    assert source == ROOT / "topologies" / "_version.py"
    assert topoalloc.__version__ == topologies.__version__ == scheduling.__version__
    assert f'__version__ = "{topologies.__version__}"' in source.read_text()


def test_the_installed_metadata_agrees_with_the_code():
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("topoalloc")
    except PackageNotFoundError:
        pytest.skip("topoalloc is not installed (run from a tree on PYTHONPATH)")
    assert installed == topologies.__version__


def _help_texts():
    parser = build_parser()
    yield "topoalloc", parser.format_help()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        yield name, sub.format_help()


def test_help_texts_carry_no_markup():
    for name, text in _help_texts():
        assert "`" not in text, (name, [line for line in text.splitlines() if "`" in line])
        assert ":func:" not in text and ":class:" not in text, name


def test_list_says_what_each_policy_family_needs(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for fam in policies.families():  # as their policies name themselves: DPROP-SM/x, RSR-<int>
        assert (f"{fam.name}/x" if fam.pattern.endswith("-<float>") and f"{fam.name}/x" in out else fam.pattern) \
            in out
    section = out[out.index("policies, by what they need:"):out.index("workload distributions")]
    groups = [line.strip() for line in section.splitlines() if line.startswith("  needs ")]
    assert groups[0] == f"needs {policies.ANY_ALLOCATOR}:"
    assert any("DHCTree" in g for g in groups) and any("Downey" in g and "FlatPool" in g for g in groups)
    gang_group = section[section.index("DHCTree"):]
    assert "Gang-Vanilla" in gang_group.split("needs ")[0]  # the gang families sit under DHCTree


def test_unknown_policy_suggests_instead_of_listing(capsys):
    assert main(["compare", "--policies", "RSR-0,RSR1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown policy 'RSR1'; did you mean RSR-1?" in err and "topoalloc list" in err
    assert len(err) < 300 and "\n" not in err


def test_snapshot_refuses_an_unknown_policy_in_one_line(capsys, tmp_path):
    assert main(["snapshot", "--policy", "Lmit-5", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("topoalloc snapshot: error: --policy: unknown policy 'Lmit-5'; did you mean Limit-5")


@pytest.mark.parametrize("argv, fragment", [
    (["compare", "--loads", "0.3,inf"], "finite numbers > 0, got inf"),
    (["compare", "--loads", "nan"], "finite numbers > 0, got nan"),
    (["compare", "--loads", "-0.5"], "finite numbers > 0, got -0.5"),
    (["snapshot", "--load", "inf"], "--load: expected a finite number > 0, got 'inf'"),
    (["plot", "x.sqlite", "--load", "nan"], "--load: expected a finite number > 0, got 'nan'"),
    (["compare", "--jobs", "1e9"], "expected a positive integer, got '1e9'"),
    (["run", "x.toml", "--seed", "-3"], "expected an integer >= 0, got '-3'"),
])
def test_bad_numbers_on_the_command_line_are_usage_errors(argv, fragment, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert fragment in capsys.readouterr().err
