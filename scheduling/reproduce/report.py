"""Running claims and writing what reproduces: the terminal report, a Markdown table, the document."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .claims import (
    NOT_SIGNIFICANT,
    PAPER_MODULES,
    Claim,
    Outcome,
    Size,
    claims,
    expectation_verdict,
    outcome_verdict,
    run_claim,
)

__all__ = ["Result", "run_claims", "verdict", "reading_verdicts", "format_results", "markdown_table", "document",
           "summary_table", "DOC_PATH"]

#: The reproductions document, relative to the repository root.
DOC_PATH = Path("docs") / "reproductions.md"
_SECTIONS = Path("docs") / "reproductions"


@dataclass(frozen=True)
class Result:
    claim: Claim
    outcome: Outcome
    size: Size = Size()


def verdict(result: Result) -> str:
    """``reproduced``; ``not reproduced`` (a documented non-reproduction); ``not significant`` (an
    ordering whose interval still straddles zero at the replication cap, as asserted); ``not
    significant at this size`` (a reduced-size run that cannot decide: the full-size verdict is the
    claim's); ``REGRESSION`` (a claim the library asserts no longer holds, or is undecided at the
    paper's size); ``reproduced (unexpected)`` (a documented non-reproduction that now holds:
    update its diagnosis); ``skipped`` (an input is missing).
    See :func:`~scheduling.reproduce.claims.outcome_verdict`."""
    return outcome_verdict(result.outcome, result.claim.expects(result.size), quick=result.size.quick)


def reading_verdicts(result: Result) -> list[tuple[str, str]]:
    """``(reading, verdict)`` for each of the claim's readings after the first (the first is the
    claim's own outcome); a reading the run did not report is ``missing``."""
    out = []
    for r in result.claim.readings[1:]:
        o = result.outcome.readings.get(r.name)
        out.append((r.name, "missing" if o is None else
                    outcome_verdict(o, r.expects(result.size), quick=result.size.quick)))
    return out


def _run_one(claim_id: str, quick: bool) -> Outcome:
    return run_claim(claims(ids=[claim_id])[0], Size(quick))


def run_claims(selected: Sequence[Claim], size: Size, workers: int | None = None) -> Iterable[Result]:
    """Run ``selected`` at ``size``, in ``workers`` processes (1: in this process); yields the
    results in the order given as they become available in that order."""
    if workers is None:
        workers = os.cpu_count() or 1
    if workers <= 1 or len(selected) <= 1:
        for c in selected:
            yield Result(c, run_claim(c, size), size)
        return
    from concurrent.futures import ProcessPoolExecutor  # on use: every command line start imports this module

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run_one, c.id, size.quick) for c in selected]
        for c, f in zip(selected, futures, strict=True):
            yield Result(c, f.result(), size)


def _link(claim: Claim) -> str:
    return f"{DOC_PATH.as_posix()}#{claim.id}"


def format_results(result: Result) -> str:
    """One claim's record for the terminal; at reduced size the full-size verdict is printed beside."""
    c, o = result.claim, result.outcome
    shown = verdict(result)
    if result.size.quick:
        shown += f"; full size: {c.verdict}"
    lines = [f"{c.paper}  {c.where}  [{shown}]  {c.id}", f"  claim: {c.statement}"]
    if c.quantity:
        lines.append(f"  compared: {c.quantity}")
    if c.paper_value:
        lines.append(f"  paper: {c.paper_value}")
    lines.append(f"  ours:  {o.ours}")
    for name, v in reading_verdicts(result):
        other = o.readings.get(name)
        lines.append(f"  reading {name!r}: [{v}] {other.ours if other is not None else ''}".rstrip())
    if c.expects(result.size) is not True or not o.holds or c.diagnosis:
        lines.append(f"  diagnosis: {_link(c)}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(results: Sequence[Result]) -> str:
    """The results as a Markdown table: paper, where, claim, quantity, paper's number, ours, verdict."""
    out = ["| paper | where | claim | compared | paper | ours (95% interval over seeds) | verdict |",
           "|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.claim
        shown = verdict(r) + "".join(f"; {n}: {v}" for n, v in reading_verdicts(r))
        out.append(f"| {c.paper} | {_cell(c.where)} | {_cell(c.statement)} | {_cell(c.quantity)} | "
                   f"{_cell(c.paper_value)} | {_cell(r.outcome.ours)} | [{_cell(shown)}]({_link(c)}) |")
    return "\n".join(out) + "\n"


def _demoted(lines: list[str]) -> list[str]:
    """Markdown headings one level down (a section's headings sit below its paper's), code
    blocks untouched."""
    out, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if line.startswith("#") and not fenced else line)
    return out


_VERDICTS = ("reproduced", "not reproduced", NOT_SIGNIFICANT)


def summary_table(selected: Sequence[Claim] | None = None) -> str:
    """Per seed paper, how many claims the library asserts reproduced, not reproduced and not
    significant at the paper's size (claims beyond the papers counted on a line of their own)."""
    selected = claims() if selected is None else selected
    rows: dict[str, dict[str, int]] = {}
    for c in selected:
        key = "beyond the five papers" if c.is_beyond else c.paper
        counts = rows.setdefault(key, dict.fromkeys(_VERDICTS, 0))
        counts[expectation_verdict(c.expects(Size(quick=False)))] += 1
    out = ["| paper | claims | reproduced | not reproduced | not significant |", "|---|---|---|---|---|"]
    for key, counts in rows.items():
        label = f"{key}: {PAPER_MODULES[key][1]}" if key in PAPER_MODULES else key
        out.append(f"| {label} | {sum(counts.values())} | " + " | ".join(str(counts[v]) for v in _VERDICTS) + " |")
    return "\n".join(out) + "\n"


def _claims_table(mine: Sequence[Claim]) -> list[str]:
    out = ["| claim | where | the paper says | quantity compared | paper's number | verdict (full size) "
           "| reduced size |", "|---|---|---|---|---|---|---|"]
    for c in mine:
        out.append(f"| <a id=\"{c.id}\"></a>`{c.id}` | {_cell(c.where)} | {_cell(c.statement)} | "
                   f"{_cell(c.quantity)} | {_cell(c.paper_value)} | {_cell(c.verdict)} | {c.reduced} |")
    out.append("")
    for c in mine:
        if c.readings:
            out += [f"**`{c.id}`, readings.**", ""]
            out += [f"- *{_cell(r.name)}* ({expectation_verdict(r.expected)}): {_cell(r.how)}".rstrip(": ")
                    for r in c.readings]
            out.append("")
        if c.beyond:
            out += [f"**`{c.id}`, why beyond the paper.** {c.beyond.strip()}", ""]
        if c.diagnosis:
            out += [f"**`{c.id}`.** {c.diagnosis.strip()}", ""]
    return out


def document(root: Path | str = ".") -> str:
    """``docs/reproductions.md``: a table of verdicts per paper at the paper's size; then, per seed
    paper, every claim with the section it tests, the quantity compared and the verdict the library
    asserts, and the diagnosis sections of ``docs/reproductions/<paper>.md`` (hand-written, with
    the numbers and the commands that produced them); then the claims beyond the five papers.
    Generated, and checked by a test, so the claim list cannot drift from the code."""
    root = Path(root)
    out = ["# What reproduces", "",
           "Generated by `topoalloc reproduce --doc docs/reproductions.md` from the claim definitions in",
           "`scheduling/reproduce/` (the same definitions the test suite runs at reduced size) and the",
           "diagnosis sections in `docs/reproductions/`. `topoalloc reproduce` runs the claims and prints our",
           "numbers with their 95% intervals; `topoalloc reproduce --full` runs them at the papers' sizes and is",
           "the verdict.", "",
           "Verdicts, at the paper's size: *reproduced* -- the claim holds as the paper states it, every ordering",
           "significant (paired over common random numbers, replicated until the 95% interval of the difference",
           "excludes zero) and every stated magnitude within the tolerance printed beside it; *not reproduced* --",
           "our runs contradict it, and the diagnosis says why; *not significant* -- the difference could not be",
           "told from noise at the stated replication cap. A claim read more than one way gives its verdict under",
           "every reading. The reduced size the test suite runs may only confirm a verdict (or say it cannot",
           "decide it: then `topoalloc reproduce` prints \"not significant at this size\" beside the full-size",
           "verdict).", "",
           "## Summary", "", summary_table()]
    beyond: list[Claim] = []
    for paper, (_, citation) in PAPER_MODULES.items():
        every = claims(paper)
        beyond += [c for c in every if c.is_beyond]
        mine = [c for c in every if not c.is_beyond]
        section = root / _SECTIONS / (f"seed{paper}.md" if paper.isdigit() else f"{paper}.md")
        if not mine and not section.is_file():
            continue
        out += [f"## {paper}: {citation}", ""]
        if mine:
            out += _claims_table(mine)
        if section.is_file():
            text = section.read_text(encoding="utf-8").strip()
            out += _demoted(text.splitlines()) + [""]
    if beyond:
        out += ["## Beyond the five papers", "",
                "Claims that are not statements of the five seed papers: set-ups a paper never used, and papers",
                "outside the seeds. They are checked the same way and counted apart.", ""]
        for paper in dict.fromkeys(c.paper for c in beyond):
            out += [f"### {paper}: {PAPER_MODULES[paper][1]}", ""]
            out += _claims_table([c for c in beyond if c.paper == paper])
    return "\n".join(out).rstrip() + "\n"
