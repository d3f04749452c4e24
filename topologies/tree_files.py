r"""Switch trees from topology files: Slurm's ``topology.conf`` and ``topology.yaml``, node-label tables.

Every reader returns a :class:`~topologies.SwitchTree` built with
:meth:`~topologies.SwitchTree.from_switches`, its switch and node names those of the file, its
``source`` the file's name. A file that does not describe one valid tree raises
:class:`TreeFileError` naming the file, the line and the bad value; nothing is ever half built.

* :func:`read_slurm_topology_conf` -- Slurm ``topology.conf``, ``topology/tree`` form
  (``SwitchName=s0 Nodes=tux[0-5]``, ``SwitchName=s3 Switches=s[0-2]``) or ``topology/block`` form
  (``BlockName=b1 Nodes=node[1-32]``, ``BlockSizes=32,128``); :func:`read_slurm_block_conf` also
  returns the block sizes in force.
* :func:`read_slurm_topology_yaml` -- Slurm ``topology.yaml`` (Slurm 25.05 and later: a list of named
  topologies, one of them the cluster default); :func:`read_slurm_block_yaml` for a block topology's sizes.
* :func:`read_node_labels_csv` -- a table of Kubernetes-style node labels (``node,block,rack``), one row
  per node, as Kueue's topology-aware scheduling reads them from the nodes.
* :func:`read_tree_file` -- any of them, picked by the file's suffix (``.conf``, ``.yaml``/``.yml``,
  ``.csv``): what the command line and experiment files call.

Hostlist expressions (``tux[0-3,12]``, ``tux[1-3]-ib``, ``rack[1-2]-node[01-02]``) are expanded by the
``python-hostlist`` package; its errors are reported as :class:`TreeFileError`. ``topology.yaml`` is
parsed by PyYAML. Both are imported when a file needs them.

Sources: ``topology.conf(5)`` and ``topology.yaml(5)`` (Slurm's ``doc/man/man5``), the Topology Guide
(``doc/html/topology.shtml``), Slurm's configuration syntax (``src/common/parse_config.c``), its
switch and block checks (``src/plugins/topology/tree/switch_record.c`` ``switch_record_validate``,
``src/plugins/topology/block/block_record.c`` ``block_record_validate``); Kueue's topology domains
(``pkg/util/tas/tas.go`` ``DomainID``). Read to learn the formats and rules; the code here is this
module's own.

Interpretations, where Slurm itself warns or goes on: a node under two switches, a switch with
neither nodes nor switches, a switch under two parents that do not list the same switches, and a
block smaller than the base block size are errors; nodes take the order of the file (Slurm orders
them by ``slurm.conf``); ``LinkSpeed`` is checked and not used (Slurm does not use it either);
``Include`` lines are refused. Complexity: O(lines + nodes + switches) dictionary work, plus, for
Slurm switch files, the merging of parallel switches, O(S x links) at worst.

>>> tree = read_slurm_topology_conf("SwitchName=s0 Nodes=tux[0-1]\nSwitchName=s1 Nodes=tux[2-3]\n"
...                                 "SwitchName=top Switches=s[0-1]\n")
>>> tree.levels, tree.switch_names, tree.node_names
(('cluster', 'level1', 'node'), ('top', 's0', 's1'), ('tux0', 'tux1', 'tux2', 'tux3'))
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ._validate import shown
from .errors import FileLineError, TopologyError
from .tree import SwitchTree

__all__ = [
    "TreeFileError",
    "SlurmBlocks",
    "read_tree_file",
    "read_slurm_topology_conf",
    "read_slurm_block_conf",
    "read_slurm_topology_yaml",
    "read_slurm_block_yaml",
    "read_node_labels_csv",
]

#: Name of the root switch the block and node-label readers put above their top switches.
ROOT_NAME = "cluster"
#: Slurm's limit on a switch name (``HOST_NAME_MAX``; ``topology.conf(5)``: "cannot be longer than 64
#: characters").
MAX_SWITCH_NAME = 64
#: Slurm keeps the base block's node count in 16 bits and at most 16 block levels
#: (``src/plugins/topology/block/block_record.h``: ``uint16_t bblock_node_cnt``, ``MAX_BLOCK_LEVELS 16``).
MAX_BASE_BLOCK = (1 << 16) - 1
MAX_BLOCK_LEVELS = 16
#: Block levels Slurm enforces when a file gives no BlockSizes: 1, 2, 4, 8 and 16 base blocks.
DEFAULT_BLOCK_LEVELS = (0, 1, 2, 3, 4)
_TEXT = "<text>"


class TreeFileError(FileLineError, TopologyError):
    """A topology file does not describe one valid switch tree. The message names the file, the
    line (when the problem has one) and the bad value: ``topology.conf, line 4: switch 's3' lists
    unknown switch 's9'``. ``file``, ``line`` and ``problem`` hold the parts."""


class SlurmBlocks(NamedTuple):
    """A ``topology/block`` description: the tree (levels ``cluster -> block -> node``, one leaf
    switch per base block, in file order) and the block sizes Slurm enforces, in nodes, ascending
    (``block_sizes[0]`` is the base block's node count). Unpacks as ``tree, block_sizes``."""

    tree: SwitchTree
    block_sizes: tuple[int, ...]

    @property
    def levels(self) -> tuple[int, ...]:
        """The block sizes in base blocks (``1, 2, 4, ...``): the aggregated block levels."""
        return tuple(s // self.block_sizes[0] for s in self.block_sizes)


# -- input --------------------------------------------------------------------------------------
def _load(path_or_text: Any) -> tuple[str, str, str | None]:
    """``(text, name for messages, source name)`` of a path (``os.PathLike``, or a ``str`` without a
    newline) or of the text itself (a ``str`` holding a newline)."""
    if isinstance(path_or_text, str) and ("\n" in path_or_text or not path_or_text):
        return path_or_text, _TEXT, None
    if not isinstance(path_or_text, str | os.PathLike):
        raise TopologyError(f"a topology file must be a path or the file's text, got {shown(path_or_text)}")
    path = Path(path_or_text)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise TreeFileError(os.fspath(path_or_text), None, f"is not UTF-8 text ({e.reason} at byte {e.start})"
                            ) from None
    return text, os.fspath(path_or_text), path.name


def _expand(expr: str, where: str, line: int | None, what: str) -> list[str]:
    """The names of a Slurm hostlist expression, in order, duplicates kept (commas and whitespace
    separate items)."""
    try:
        import hostlist
    except ImportError as e:  # pragma: no cover - the dependency is declared
        raise ImportError("reading topology files needs the python-hostlist package "
                          "(pip install python-hostlist)") from e
    joined = ",".join(expr.split())
    try:
        names = hostlist.expand_hostlist(joined, allow_duplicates=True)
    except hostlist.BadHostlist as e:
        raise TreeFileError(where, line, f"bad hostlist {expr!r} in {what}: {e}") from None
    return [str(n) for n in names]


# -- the tree form: switches by name ------------------------------------------------------------
@dataclass
class _Switch:
    name: str
    line: int | None
    children: list[str] | None = None
    nodes: list[str] | None = None
    group: int = -1  # index of the switch's group (parallel switches merged), set by _build_switch_tree


def _by_name(records: Sequence[Any], kind: str, where: str) -> dict[str, Any]:
    """``records`` (switches or blocks, each with a ``name`` and a ``line``) by name; an empty or a
    repeated name is a :class:`TreeFileError` naming both lines."""
    out: dict[str, Any] = {}
    for r in records:
        if not r.name:
            raise TreeFileError(where, r.line, f"a {kind} has an empty name ''")
        if r.name in out:
            raise TreeFileError(where, r.line, f"{kind} {r.name!r} is defined twice (first on line {out[r.name].line})")
        out[r.name] = r
    return out


def _build_switch_tree(switches: list[_Switch], where: str, source: str | None) -> SwitchTree:
    """The tree of Slurm switch records, checked record by record so that every error names its line.

    Parallel switches -- several switches listing the same child switches, as the redundant spine
    switches of a fat tree do (``doc/html/topology.shtml``'s second example: ``s4`` .. ``s7`` each
    with ``Switches=s[0-3]``) -- are one switch of the tree (their bundle of links), named by their
    hostlist (``s[4-7]``). A switch under two parents that do not list the same switches is an error."""
    if not switches:
        raise TreeFileError(where, None, "defines no switch")
    by_name = _by_name(switches, "switch", where)
    node_at: dict[str, _Switch] = {}
    parents: dict[str, list[_Switch]] = {}
    for sw in switches:
        if not sw.children and not sw.nodes:
            raise TreeFileError(where, sw.line, f"switch {sw.name!r} is empty (no node and no switch below it)")
        for nd in sw.nodes or ():
            if nd in node_at:
                other = node_at[nd]
                if other is sw:
                    raise TreeFileError(where, sw.line, f"node {nd!r} is listed twice under switch {sw.name!r}")
                raise TreeFileError(where, sw.line, f"node {nd!r} is under two switches ({other.name!r} on line "
                                                    f"{other.line} and {sw.name!r})")
            node_at[nd] = sw
        seen: set[str] = set()
        for kid in sw.children or ():
            if kid == sw.name:
                raise TreeFileError(where, sw.line, f"switch {sw.name!r} lists itself (a loop)")
            if kid not in by_name:
                raise TreeFileError(where, sw.line, f"switch {sw.name!r} lists unknown switch {kid!r}")
            if kid in seen:
                raise TreeFileError(where, sw.line, f"switch {kid!r} is listed twice under switch {sw.name!r}")
            seen.add(kid)
            parents.setdefault(kid, []).append(sw)

    # groups of parallel switches: union-find over the records, merged until every group has one parent group
    up = list(range(len(switches)))
    index = {sw.name: i for i, sw in enumerate(switches)}

    def find(i: int) -> int:
        while up[i] != i:
            up[i] = up[up[i]]
            i = up[i]
        return i

    def kid_groups(i: int) -> frozenset[int]:
        return frozenset(find(index[k]) for k in switches[i].children or ())

    changed = True
    while changed:
        changed = False
        members: dict[int, list[int]] = {}
        for i in range(len(switches)):
            members.setdefault(find(i), []).append(i)
        for _g, ms in sorted(members.items()):
            ps = sorted({find(index[p.name]) for m in ms for p in parents.get(switches[m].name, ())})
            if len(ps) < 2:
                continue
            want = kid_groups(ps[0])
            for p in ps[1:]:
                if kid_groups(p) != want:
                    a, b = switches[ps[0]], switches[p]
                    raise TreeFileError(where, b.line, f"switch {switches[ms[0]].name!r} is under two switches "
                                                       f"({a.name!r} on line {a.line} and {b.name!r}) that do not "
                                                       f"list the same switches")
            for p in ps[1:]:
                up[find(p)] = find(ps[0])
            changed = True
    groups: dict[int, list[int]] = {}
    for i in range(len(switches)):
        groups.setdefault(find(i), []).append(i)
    order = sorted(groups)  # by each group's first record (a group's root is its earliest member)
    gid = {g: k for k, g in enumerate(order)}
    for i, sw in enumerate(switches):
        sw.group = gid[find(i)]
    names: list[str] = []
    for g in order:
        ms = groups[g]
        if len(ms) == 1:
            names.append(switches[ms[0]].name)
            continue
        import hostlist

        merged = str(hostlist.collect_hostlist([switches[m].name for m in ms]))
        if merged in by_name:
            raise TreeFileError(where, switches[ms[0]].line, f"parallel switches {merged!r} are merged under a "
                                                             f"name another switch has")
        names.append(merged)
    kids: list[list[int]] = [[] for _ in order]
    parent = [-1] * len(order)
    for k, g in enumerate(order):
        head = switches[groups[g][0]]
        for c in head.children or ():
            cg = by_name[c].group
            if cg not in kids[k]:
                kids[k].append(cg)
                parent[cg] = k
    # loops: every group has at most one parent group now; the ones no top reaches lie on or below a cycle
    tops = [k for k in range(len(order)) if parent[k] < 0]
    depth = [-1] * len(order)
    stack = [(k, 0) for k in tops]
    while stack:
        k, d = stack.pop()
        depth[k] = d
        stack.extend((c, d + 1) for c in kids[k])
    lost = [k for k in range(len(order)) if depth[k] < 0]
    if lost:
        k = lost[0]
        path: list[int] = []
        while k not in path:
            path.append(k)
            k = parent[k]
        cycle = sorted(path[path.index(k):])  # in file order
        first = cycle[0]
        line = switches[order[first]].line
        raise TreeFileError(where, line, f"switches {', '.join(repr(names[c]) for c in cycle)} form a loop")
    leaf_depth = max(depth[k] for k in range(len(order)) if not kids[k])
    n_levels = leaf_depth + 2 + (1 if len(tops) > 1 else 0)
    levels = (ROOT_NAME, *(f"level{d}" for d in range(1, n_levels - 1)), "node")
    switch_map = {names[k]: [names[c] for c in kids[k]] for k in range(len(order))}
    node_map = {names[k]: list(switches[order[k]].nodes or ()) for k in range(len(order)) if not kids[k]}
    return _from_switches(switch_map, node_map, levels, where, source)


def _from_switches(switch_map: dict[str, list[str]], node_map: dict[str, list[str]], levels: Sequence[str],
                   where: str, source: str | None) -> SwitchTree:
    try:
        return SwitchTree.from_switches(switch_map, node_map, levels=levels, source=source)
    except TopologyError as e:  # checked above; kept so that no TopologyError escapes without the file's name
        raise TreeFileError(where, None, str(e)) from None


# -- the block form -----------------------------------------------------------------------------
@dataclass
class _Block:
    name: str
    line: int | None
    nodes: list[str] = field(default_factory=list)


def _block_sizes(sizes: Sequence[int] | None, line: int | None, n_blocks: int, first_count: int,
                 where: str) -> tuple[int, ...]:
    """The block sizes Slurm enforces, in nodes: the base block size and its power-of-two multiples
    given (or 1, 2, 4, 8, 16 base blocks by default), ascending, up to the first that covers every
    block (``block_record.c``: ``block_record_validate`` and ``_read_topo_file``)."""
    if sizes is None:
        base, levels = first_count, set(DEFAULT_BLOCK_LEVELS)
    else:
        if not sizes:
            raise TreeFileError(where, line, "BlockSizes is empty")
        base = sizes[0]
        levels = set()
        for s in sizes:
            if s <= 0:
                raise TreeFileError(where, line, f"BlockSizes value {s} is not a positive node count")
        if base > MAX_BASE_BLOCK:
            raise TreeFileError(where, line, f"BlockSizes base block size {base} is larger than Slurm's "
                                             f"{MAX_BASE_BLOCK}")
        for s in sizes:
            if s % base:
                raise TreeFileError(where, line, f"BlockSizes value {s} is not a multiple of the base block "
                                                 f"size {base} (the first value)")
            k = s // base
            if k & (k - 1):
                raise TreeFileError(where, line, f"BlockSizes value {s} is not a power-of-two multiple of the "
                                                 f"base block size {base}")
            if k.bit_length() - 1 >= MAX_BLOCK_LEVELS:
                raise TreeFileError(where, line, f"BlockSizes value {s} is {k} base blocks, more than Slurm's "
                                                 f"{1 << (MAX_BLOCK_LEVELS - 1)}")
            levels.add(k.bit_length() - 1)
    out = []
    for lv in sorted(levels):
        out.append(base << lv)
        if 1 << lv >= n_blocks:
            break
    return tuple(out)


def _build_block_tree(blocks: list[_Block], sizes: Sequence[int] | None, sizes_line: int | None, where: str,
                      source: str | None) -> SlurmBlocks:
    if not blocks:
        raise TreeFileError(where, sizes_line, "defines no block (no BlockName)")
    _by_name(blocks, "block", where)  # empty and repeated names
    node_at: dict[str, _Block] = {}
    for b in blocks:
        if b.name == ROOT_NAME:
            raise TreeFileError(where, b.line, f"block name {b.name!r} is the name this reader gives the root "
                                               f"switch above the blocks")
        if not b.nodes:
            raise TreeFileError(where, b.line, f"block {b.name!r} is empty (no node)")
        for nd in b.nodes:
            if nd in node_at:
                other = node_at[nd]
                if other is b:
                    raise TreeFileError(where, b.line, f"node {nd!r} is listed twice in block {b.name!r}")
                raise TreeFileError(where, b.line, f"node {nd!r} is in two blocks ({other.name!r} on line "
                                                   f"{other.line} and {b.name!r})")
            node_at[nd] = b
    block_sizes = _block_sizes(sizes, sizes_line, len(blocks), len(blocks[0].nodes), where)
    for b in blocks:  # topology.conf(5): "Each block must have at least the planning base block size count of nodes"
        if len(b.nodes) < block_sizes[0]:
            raise TreeFileError(where, b.line, f"block {b.name!r} has {len(b.nodes)} nodes, fewer than the base "
                                               f"block size {block_sizes[0]}")
    switch_map = {ROOT_NAME: [b.name for b in blocks], **{b.name: [] for b in blocks}}
    node_map = {b.name: b.nodes for b in blocks}
    tree = _from_switches(switch_map, node_map, (ROOT_NAME, "block", "node"), where, source)
    return SlurmBlocks(tree, block_sizes)


# -- topology.conf -------------------------------------------------------------------------------
def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Slurm's configuration lines (``src/common/parse_config.c``, ``_get_next_line``): everything after
    an unescaped ``#`` is a comment, a line ending in an odd number of backslashes continues on the
    next one, then ``\\x`` stands for ``x``. Each line comes with the number of its first physical line."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        body = line.rstrip()
        slashes = len(body) - len(body.rstrip("\\"))
        if not pending:
            start = number
        if slashes % 2:
            pending.append(body[:-1])
            continue
        pending.append(line)
        out.append((start, _unescape("".join(pending))))
        pending = []
    if pending:
        out.append((start, _unescape("".join(pending))))
    return [(n, s) for n, s in out if s.strip()]


def _strip_comment(line: str) -> str:
    slashes = 0
    for i, ch in enumerate(line):
        if ch == "#" and slashes % 2 == 0:
            return line[:i]
        slashes = slashes + 1 if ch == "\\" else 0
    return line


def _unescape(line: str) -> str:
    return re.sub(r"\\(.)", r"\1", line)


_PAIR = re.compile(r'\s*([A-Za-z0-9_.]+)\s*=\s*(?:"([^"]*)"|([^\s"]+))(?=\s|$)')


def _pairs(line: str, number: int, where: str) -> list[tuple[str, str, str]]:
    """``(lower-case key, key as written, value)`` of each ``Key=value`` of a line (values quoted with
    ``"`` may hold spaces)."""
    out = []
    pos = 0
    while line[pos:].strip():
        m = _PAIR.match(line, pos)
        if not m:
            bad = line[pos:].strip()
            raise TreeFileError(where, number, f"cannot read {bad!r} (expected Key=value)")
        value = m.group(2) if m.group(2) is not None else m.group(3)
        if m.group(3) is not None and "=" in value:
            raise TreeFileError(where, number, f"{m.group(1)}= has no value (next comes {value!r})")
        out.append((m.group(1).lower(), m.group(1), value))
        pos = m.end()
    return out


_CONF_KEYS = {"switchname": ("nodes", "switches", "linkspeed"), "blockname": ("nodes",), "blocksizes": ()}


def _parse_conf(text: str, where: str) -> tuple[list[_Switch], list[_Block], list[int] | None, int | None]:
    switches: list[_Switch] = []
    blocks: list[_Block] = []
    sizes: list[int] | None = None
    sizes_line: int | None = None
    form: tuple[str, int] | None = None  # the file's form and the line that set it
    for number, line in _logical_lines(text):
        if re.match(r"\s*include\s", line, re.IGNORECASE):
            raise TreeFileError(where, number, f"{line.split()[0]} {' '.join(line.split()[1:])!r}: another file is "
                                               f"not read; give the whole topology in one file")
        pairs = _pairs(line, number, where)
        kind, key0, value0 = pairs[0]
        if kind not in _CONF_KEYS:
            if kind in ("ringname", "nodes", "switches", "linkspeed"):
                why = ("a topology/ring file is not a tree" if kind == "ringname"
                       else f"{key0}= must follow SwitchName= or BlockName= on its line")
                raise TreeFileError(where, number, f"{key0}={value0!r}: {why}")
            raise TreeFileError(where, number, f"unknown key {key0!r} (topology.conf takes SwitchName=, "
                                               f"BlockName= and BlockSizes= lines)")
        this = "tree" if kind == "switchname" else "block"
        if form is None:
            form = (this, number)
        elif form[0] != this:
            raise TreeFileError(where, number, f"{key0}= is a topology/{this} line in a topology/{form[0]} file "
                                               f"(line {form[1]})")
        if kind != "blocksizes" and not value0:
            raise TreeFileError(where, number, f"{key0}= needs a name")
        given: dict[str, str] = {}
        for k, key, value in pairs[1:]:
            if k not in _CONF_KEYS[kind]:
                allowed = ", ".join(f"{a}=" for a in ("Nodes", "Switches", "LinkSpeed")
                                    if a.lower() in _CONF_KEYS[kind]) or "nothing else"
                raise TreeFileError(where, number, f"unknown key {key!r} on a {key0}= line (it takes {allowed})")
            if k in given:
                raise TreeFileError(where, number, f"{key}= is given twice on one line")
            given[k] = value
        if kind == "switchname":
            if len(value0) > MAX_SWITCH_NAME:
                raise TreeFileError(where, number, f"switch name {value0!r} is longer than Slurm's "
                                                   f"{MAX_SWITCH_NAME} characters")
            if "nodes" in given and "switches" in given:
                raise TreeFileError(where, number, f"switch {value0!r} has both Nodes= and Switches=")
            speed = given.get("linkspeed")
            if speed is not None and not (re.fullmatch(r"\d+", speed) and int(speed) < 1 << 32):
                raise TreeFileError(where, number, f"LinkSpeed={given['linkspeed']!r} is not an unsigned "
                                                   f"32-bit integer")
            sw = _Switch(value0, number)
            if "nodes" in given:
                sw.nodes = _expand(given["nodes"], where, number, f"the Nodes of switch {value0!r}")
            if "switches" in given:
                sw.children = _expand(given["switches"], where, number, f"the Switches of switch {value0!r}")
            switches.append(sw)
        elif kind == "blockname":
            nodes = _expand(given["nodes"], where, number, f"the Nodes of block {value0!r}") if "nodes" in given else []
            blocks.append(_Block(value0, number, nodes))
        else:
            if sizes is not None:
                raise TreeFileError(where, number, f"BlockSizes is given twice (first on line {sizes_line})")
            items = [s.strip() for s in value0.split(",")]
            for s in items:
                if not re.fullmatch(r"\d+", s):
                    raise TreeFileError(where, number, f"BlockSizes value {s!r} is not a positive node count")
            sizes, sizes_line = [int(s) for s in items], number
    return switches, blocks, sizes, sizes_line


def read_slurm_topology_conf(path_or_text: str | os.PathLike[str]) -> SwitchTree:
    r"""The switch tree of a Slurm ``topology.conf`` (``topology.conf(5)``, Slurm's ``doc/man/man5``;
    the Topology Guide ``doc/html/topology.shtml``), in either form:

    * ``topology/tree``: ``SwitchName=NAME Nodes=HOSTLIST`` for a leaf switch, ``SwitchName=NAME
      Switches=HOSTLIST`` for a switch above switches, optional ``LinkSpeed=N`` (checked, unused:
      Slurm says its units are arbitrary and it is not used). The top switch is the root; several top
      switches hang under a virtual root (``virtual_root``: Slurm runs no job across them). Levels
      ``cluster, level1, ..., node`` by depth from the root. Parallel switches listing the same
      switches are one switch named by their hostlist (``s[4-7]``).
    * ``topology/block``: ``BlockName=NAME Nodes=HOSTLIST`` per base block and an optional
      ``BlockSizes=N,...``: a root switch ``cluster`` above one leaf switch per block, levels
      ``cluster, block, node``. :func:`read_slurm_block_conf` also returns the block sizes.

    Syntax as Slurm reads it (``src/common/parse_config.c``): keys in any case, ``#`` starts a
    comment, a trailing ``\`` continues a line, values may be quoted, node and switch lists are
    hostlist expressions. Node ids follow the file: leaf switches depth first, children in the order
    listed, nodes in the order of their hostlist (Slurm orders nodes by ``slurm.conf``, which this
    reader does not see).

    ``path_or_text``: a path, or the file's text itself (a string holding a newline). Raises
    :class:`TreeFileError` (file, line, value) for an unknown key, a duplicate switch, an unknown
    child switch, a loop, a node under two switches, an empty switch, a bad hostlist, invalid
    BlockSizes; ``Include`` lines are refused.

    >>> t = read_slurm_topology_conf("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\n")
    >>> t.levels, t.switch_names, t.size
    (('cluster', 'block', 'node'), ('cluster', 'b1', 'b2'), 8)
    """
    text, where, source = _load(path_or_text)
    switches, blocks, sizes, sizes_line = _parse_conf(text, where)
    if switches:
        return _build_switch_tree(switches, where, source)
    if blocks or sizes is not None:
        return _build_block_tree(blocks, sizes, sizes_line, where, source).tree
    raise TreeFileError(where, None, "has no SwitchName= or BlockName= line")


def read_slurm_block_conf(path_or_text: str | os.PathLike[str]) -> SlurmBlocks:
    r"""A ``topology/block`` ``topology.conf`` (see :func:`read_slurm_topology_conf`) as
    ``SlurmBlocks(tree, block_sizes)``: the block sizes Slurm enforces, in nodes, ascending.

    Slurm's rules (``topology.conf(5)``; ``src/plugins/topology/block/block_record.c``): the first
    ``BlockSizes`` value is the base block's node count, every value a power-of-two multiple of it
    (at most 2^15 base blocks), every block at least the base size; without ``BlockSizes`` the base
    is the first block's node count and the levels are 1, 2, 4, 8 and 16 base blocks. Levels above
    the first that spans every block are dropped, as Slurm drops them. Interpretation: the values
    after the first may come in any order (Slurm's parser accepts that; its manual asks for
    ascending ones); they are returned sorted.

    >>> read_slurm_block_conf("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\nBlockSizes=2,4\n").block_sizes
    (2, 4)
    """
    text, where, source = _load(path_or_text)
    switches, blocks, sizes, sizes_line = _parse_conf(text, where)
    if switches:
        raise TreeFileError(where, switches[0].line, "is a topology/tree file (SwitchName=), not topology/block")
    return _build_block_tree(blocks, sizes, sizes_line, where, source)


# -- topology.yaml -------------------------------------------------------------------------------
class _Yaml:
    """Reading a composed PyYAML node graph with line numbers for the messages."""

    def __init__(self, text: str, where: str) -> None:
        try:
            import yaml
        except ImportError as e:  # pragma: no cover - PyYAML comes with the test dependencies
            raise ImportError("reading topology.yaml needs the PyYAML package (pip install pyyaml)") from e
        self.yaml = yaml
        self.where = where
        try:
            self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
            problem = getattr(e, "problem", None) or str(e)
            raise TreeFileError(where, mark.line + 1 if mark is not None else None,
                                f"is not valid YAML: {problem}") from None
        self._loader = yaml.SafeLoader("")

    @staticmethod
    def line(node: Any) -> int:
        return int(node.start_mark.line) + 1

    def fail(self, node: Any, problem: str) -> TreeFileError:
        return TreeFileError(self.where, self.line(node) if node is not None else None, problem)

    def kind(self, node: Any) -> str:
        y = self.yaml
        if isinstance(node, y.MappingNode):
            return "a mapping"
        if isinstance(node, y.SequenceNode):
            return "a list"
        return repr(node.value) if node.tag != "tag:yaml.org,2002:null" else "nothing"

    def mapping(self, node: Any, what: str, keys: Sequence[str]) -> dict[str, Any]:
        """The value nodes of a mapping by key; unknown and repeated keys refused."""
        if not isinstance(node, self.yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping, got {self.kind(node)}")
        out: dict[str, Any] = {}
        for k, v in node.value:
            key = k.value if isinstance(k, self.yaml.ScalarNode) else None
            if key is None or key not in keys:
                raise self.fail(k, f"unknown key {key if key is not None else self.kind(k)!r} in {what} "
                                   f"(it takes {', '.join(keys)})")
            if key in out:
                raise self.fail(k, f"key {key!r} is given twice in {what}")
            out[key] = v
        return out

    def sequence(self, node: Any, what: str) -> list[Any]:
        if not isinstance(node, self.yaml.SequenceNode):
            raise self.fail(node, f"{what} must be a list, got {self.kind(node)}")
        return list(node.value)

    def text(self, node: Any, what: str) -> str:
        """A scalar's text (Slurm reads these fields as strings); null refused."""
        if not isinstance(node, self.yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
            raise self.fail(node, f"{what} must be a string, got {self.kind(node)}")
        return str(node.value)

    def boolean(self, node: Any, what: str) -> bool:
        if not isinstance(node, self.yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:bool":
            raise self.fail(node, f"{what} must be true or false, got {self.kind(node)}")
        return bool(self._loader.construct_object(node))

    def integer(self, node: Any, what: str) -> int:
        if not isinstance(node, self.yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:int":
            raise self.fail(node, f"{what} must be an integer, got {self.kind(node)}")
        return int(self._loader.construct_object(node))


_KINDS = ("tree", "block", "flat", "ring", "torus3d")


def _yaml_topology(path_or_text: Any, topology: str | None) -> tuple[_Yaml, str, Any, Any, str | None, str]:
    """The chosen topology of a ``topology.yaml``: ``(reader, kind, its node, the topology's node,
    source, name)``."""
    text, where, source = _load(path_or_text)
    y = _Yaml(text, where)
    if topology is not None and not isinstance(topology, str):
        raise TopologyError(f"topology must be the name of a topology of the file, got {shown(topology)}")
    if y.root is None:
        raise TreeFileError(where, None, "is empty (no topology)")
    entries = y.sequence(y.root, "the file (the list of topologies)")
    found: list[tuple[str, bool, str, Any, Any]] = []
    names: dict[str, int] = {}
    for entry in entries:
        fields = y.mapping(entry, "a topology", ("topology", "cluster_default", *_KINDS))
        if "topology" not in fields:
            raise y.fail(entry, "a topology has no 'topology:' name")
        name = y.text(fields["topology"], "topology")
        if name in names:
            raise y.fail(fields["topology"], f"topology {name!r} is defined twice (first on line {names[name]})")
        names[name] = y.line(fields["topology"])
        default = y.boolean(fields["cluster_default"], "cluster_default") if "cluster_default" in fields else False
        kinds = [k for k in _KINDS if k in fields]
        if len(kinds) != 1:
            raise y.fail(entry, f"topology {name!r} must have exactly one of {', '.join(_KINDS)}, got "
                                f"{', '.join(kinds) or 'none'}")
        found.append((name, default, kinds[0], fields[kinds[0]], entry))
    if not found:
        raise TreeFileError(where, y.line(y.root), "lists no topology")
    if topology is not None:
        pick = [f for f in found if f[0] == topology]
        if not pick:
            raise TreeFileError(where, None, f"has no topology {topology!r} (it has {', '.join(map(repr, names))})")
    else:  # topology.yaml(5): "The first topology defined with cluster_default: true will be used"
        pick = [f for f in found if f[1]][:1] or (found if len(found) == 1 else [])
        if not pick:
            raise TreeFileError(where, None, f"has several topologies ({', '.join(map(repr, names))}) and none is "
                                             f"cluster_default: name the one to read")
    name, _, kind, node, entry = pick[0]
    if kind not in ("tree", "block"):
        raise y.fail(entry, f"topology {name!r} is a {kind} topology, not a tree or block one")
    return y, kind, node, entry, source, name


def _yaml_switches(y: _Yaml, node: Any, name: str) -> list[_Switch]:
    body = y.mapping(node, f"topology {name!r}'s tree", ("switches",))
    if "switches" not in body:
        raise y.fail(node, f"topology {name!r}'s tree has no 'switches:' list")
    out = []
    for item in y.sequence(body["switches"], "switches"):
        f = y.mapping(item, "a switch", ("switch", "children", "nodes"))
        if "switch" not in f:
            raise y.fail(item, "a switch has no 'switch:' name")
        sname = y.text(f["switch"], "switch")
        line = y.line(f["switch"])
        if len(sname) > MAX_SWITCH_NAME:
            raise y.fail(f["switch"], f"switch name {sname!r} is longer than Slurm's {MAX_SWITCH_NAME} characters")
        if "children" in f and "nodes" in f:
            raise y.fail(item, f"switch {sname!r} has both children and nodes")
        sw = _Switch(sname, line)
        if "nodes" in f:
            sw.nodes = _expand(y.text(f["nodes"], f"the nodes of switch {sname!r}"), y.where, y.line(f["nodes"]),
                               f"the nodes of switch {sname!r}")
        if "children" in f:
            sw.children = _expand(y.text(f["children"], f"the children of switch {sname!r}"), y.where,
                                  y.line(f["children"]), f"the children of switch {sname!r}")
        out.append(sw)
    return out


def _yaml_blocks(y: _Yaml, node: Any, name: str, source: str | None) -> SlurmBlocks:
    body = y.mapping(node, f"topology {name!r}'s block", ("block_sizes", "blocks"))
    if "blocks" not in body:
        raise y.fail(node, f"topology {name!r}'s block has no 'blocks:' list")
    blocks = []
    for item in y.sequence(body["blocks"], "blocks"):
        f = y.mapping(item, "a block", ("block", "nodes"))
        if "block" not in f:
            raise y.fail(item, "a block has no 'block:' name")
        bname = y.text(f["block"], "block")
        nodes = (_expand(y.text(f["nodes"], f"the nodes of block {bname!r}"), y.where, y.line(f["nodes"]),
                         f"the nodes of block {bname!r}") if "nodes" in f else [])
        blocks.append(_Block(bname, y.line(f["block"]), nodes))
    sizes = None
    sizes_line = None
    if "block_sizes" in body:
        bs = body["block_sizes"]
        sizes_line = y.line(bs)
        items = y.sequence(bs, "block_sizes") if not isinstance(bs, y.yaml.ScalarNode) else [bs]
        sizes = [y.integer(v, "a block_sizes value") for v in items]
    return _build_block_tree(blocks, sizes, sizes_line, y.where, source)


def read_slurm_topology_yaml(path_or_text: str | os.PathLike[str], topology: str | None = None) -> SwitchTree:
    r"""The switch tree of one topology of a Slurm ``topology.yaml`` (``topology.yaml(5)``, Slurm
    25.05 and later; parsed by ``src/plugins/data_parser``'s ``TOPOLOGY_CONF`` schema).

    The file is a list of topologies, each a mapping with ``topology: NAME``, an optional
    ``cluster_default: BOOL`` and exactly one of ``tree: {switches: [{switch, children | nodes}]}``,
    ``block: {block_sizes: [N, ...], blocks: [{block, nodes}]}``, ``flat``, ``ring`` or ``torus3d``;
    ``children`` and ``nodes`` are hostlist strings. ``topology`` names the one to read; by default
    the first ``cluster_default: true`` one, else the only one. A tree topology reads as
    :func:`read_slurm_topology_conf` reads ``SwitchName`` lines, a block topology as its
    ``BlockName`` lines (sizes: :func:`read_slurm_block_yaml`); flat, ring and torus3d topologies are
    refused (no switch tree). Unknown and repeated keys are refused with their line.

    >>> text = ("- topology: topo1\n  cluster_default: true\n  tree:\n    switches:\n"
    ...         "      - switch: sw_root\n        children: s[1-2]\n      - switch: s1\n        nodes: node[01-02]\n"
    ...         "      - switch: s2\n        nodes: node[03-04]\n")
    >>> read_slurm_topology_yaml(text).switch_names
    ('sw_root', 's1', 's2')
    """
    y, kind, node, _, source, name = _yaml_topology(path_or_text, topology)
    if kind == "block":
        return _yaml_blocks(y, node, name, source).tree
    return _build_switch_tree(_yaml_switches(y, node, name), y.where, source)


def read_slurm_block_yaml(path_or_text: str | os.PathLike[str], topology: str | None = None) -> SlurmBlocks:
    """One block topology of a ``topology.yaml`` (chosen as :func:`read_slurm_topology_yaml` chooses)
    as ``SlurmBlocks(tree, block_sizes)``, the sizes checked and completed as
    :func:`read_slurm_block_conf` does."""
    y, kind, node, entry, source, name = _yaml_topology(path_or_text, topology)
    if kind != "block":
        raise y.fail(entry, f"topology {name!r} is a {kind} topology, not a block one")
    return _yaml_blocks(y, node, name, source)


# -- node labels ---------------------------------------------------------------------------------
def read_node_labels_csv(path_or_text: str | os.PathLike[str], levels: Sequence[str] | None = None) -> SwitchTree:
    r"""The switch tree of a table of node labels: a header ``node,block,rack`` (the first column the
    node names, each other column one level's label, the top level first), then one row per node.

    The shape of Kueue's topology-aware scheduling (``kueue.x-k8s.io`` ``Topology``: an ordered list
    of node labels such as ``cloud.provider.com/topology-block``, ``.../topology-rack``,
    ``kubernetes.io/hostname``): a domain of a level is identified by the label values from the top
    down to it (Kueue's ``pkg/util/tas`` ``DomainID`` joins them with commas), so two racks ``r1``
    in different blocks are different switches. ``levels`` picks and orders the label columns to use
    (default: all of them, in header order).

    The tree: a root switch ``cluster``, one switch per domain of each level, the nodes under the
    last level's domains; levels ``("cluster", *label columns, <first column's header>)``. Switches
    and nodes come in the order of their first row. A switch is named by its label value if no other
    switch of the tree has that value, else by its domain id (``b1,r1``). Blank lines and lines
    starting with ``#`` are skipped; cells are stripped of surrounding spaces.

    Raises :class:`TreeFileError` (file, line, value) for a short or long row, an empty cell, a label
    holding a comma, a node listed twice, a repeated or reserved column name, an unknown ``levels``
    column.

    >>> t = read_node_labels_csv("node,block,rack\nh1,b1,r1\nh2,b1,r2\nh3,b2,r1\n")
    >>> t.levels, t.switch_names
    (('cluster', 'block', 'rack', 'node'), ('cluster', 'b1', 'b1,r1', 'r2', 'b2', 'b2,r1'))
    """
    text, where, source = _load(path_or_text)
    rows = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    header_line = 1
    cols: list[int] = []
    paths: dict[tuple[str, ...], int] = {}  # every domain (label path) -> line of its first row
    leaves: dict[tuple[str, ...], list[str]] = {}
    node_line: dict[str, int] = {}
    for row in rows:
        number = rows.line_num
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if header is None:
            header, header_line = cells, number
            for i, h in enumerate(header):
                if not h:
                    raise TreeFileError(where, number, f"column {i + 1} of the header has no name")
                if h in header[:i]:
                    raise TreeFileError(where, number, f"column name {h!r} is used twice in the header")
                if h == ROOT_NAME:
                    raise TreeFileError(where, number, f"column name {h!r} is the name of the root level")
            if levels is None:
                cols = list(range(1, len(header)))
            else:
                if isinstance(levels, str) or not isinstance(levels, Sequence):
                    raise TopologyError(f"levels must be a sequence of column names, got {shown(levels)}")
                for lv in levels:
                    if lv not in header[1:]:
                        raise TreeFileError(where, number, f"levels names column {lv!r}, which is not a label "
                                                           f"column of the header ({', '.join(header[1:])})")
                    if list(levels).count(lv) > 1:
                        raise TopologyError(f"levels names column {lv!r} twice")
                cols = [header.index(lv) for lv in levels]
            continue
        if len(cells) != len(header):
            raise TreeFileError(where, number, f"row {','.join(row)!r} has {len(cells)} cells, the header "
                                               f"{len(header)}")
        node = cells[0]
        if not node:
            raise TreeFileError(where, number, "row has no node name")
        if node in node_line:
            raise TreeFileError(where, number, f"node {node!r} is listed twice (first on line {node_line[node]})")
        node_line[node] = number
        path: tuple[str, ...] = ()
        for c in cols:
            value = cells[c]
            if not value:
                raise TreeFileError(where, number, f"node {node!r} has no {header[c]!r} label")
            if "," in value:
                raise TreeFileError(where, number, f"{header[c]!r} label {value!r} of node {node!r} holds a comma "
                                                   f"(label values may not)")
            path = (*path, value)
            paths.setdefault(path, number)
        leaves.setdefault(path, []).append(node)
    if header is None:
        raise TreeFileError(where, None, "is empty (no header)")
    if not node_line:
        raise TreeFileError(where, header_line, "has a header but no node row")
    counts: dict[str, int] = {}
    for p in paths:
        counts[p[-1]] = counts.get(p[-1], 0) + 1
    counts[ROOT_NAME] = counts.get(ROOT_NAME, 0) + 1

    def name(p: tuple[str, ...]) -> str:
        return p[-1] if counts[p[-1]] == 1 else ",".join(p)

    for p in paths:
        if len(p) == 1 and p[0] == ROOT_NAME:
            raise TreeFileError(where, paths[p], f"top label {p[0]!r} is the name of the root switch")
    switch_map: dict[str, list[str]] = {ROOT_NAME: []}
    for p in paths:
        switch_map[name(p)] = []
        switch_map[name(p[:-1]) if len(p) > 1 else ROOT_NAME].append(name(p))
    node_map = {name(p) if p else ROOT_NAME: ns for p, ns in leaves.items()}
    level_names = (ROOT_NAME, *(header[c] for c in cols), header[0])
    return _from_switches(switch_map, node_map, level_names, where, source)


# -- by suffix ----------------------------------------------------------------------------------
_SUFFIXES = {".conf": "Slurm topology.conf", ".yaml": "Slurm topology.yaml", ".yml": "Slurm topology.yaml",
             ".csv": "node labels"}


def read_tree_file(path: str | os.PathLike[str], *, topology: str | None = None) -> SwitchTree:
    """The switch tree of a topology file, read by the reader its suffix names: ``.conf``
    (:func:`read_slurm_topology_conf`, tree or block form), ``.yaml`` / ``.yml``
    (:func:`read_slurm_topology_yaml`, ``topology`` picking one of its topologies), ``.csv``
    (:func:`read_node_labels_csv`). A block file gives its tree (the sizes:
    :func:`read_slurm_block_conf`). Other suffixes raise :class:`TreeFileError` naming them.

    >>> read_tree_file("m.txt")
    Traceback (most recent call last):
    ...
    topologies.tree_files.TreeFileError: m.txt: unknown topology file suffix '.txt' (known: .conf, .yaml, .yml, .csv)
    """
    if not isinstance(path, str | os.PathLike):
        raise TopologyError(f"a topology file must be a path, got {shown(path)}")
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise TreeFileError(os.fspath(path), None, f"unknown topology file suffix {Path(path).suffix!r} "
                                                   f"(known: {', '.join(_SUFFIXES)})")
    if topology is not None and suffix not in (".yaml", ".yml"):
        raise TreeFileError(os.fspath(path), None, f"topology={topology!r} names a topology of a topology.yaml "
                                                   f"file; a {suffix} file has one")
    if suffix == ".conf":
        return read_slurm_topology_conf(Path(path))
    if suffix == ".csv":
        return read_node_labels_csv(Path(path))
    return read_slurm_topology_yaml(Path(path), topology)

