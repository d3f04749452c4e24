"""Readers of switch-tree files: Slurm topology.conf / topology.yaml, node-label tables, and their errors."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from topologies import SwitchTree, TopologyError
from topologies.tree_files import (
    SlurmBlocks,
    TreeFileError,
    read_node_labels_csv,
    read_slurm_block_conf,
    read_slurm_block_yaml,
    read_slurm_topology_conf,
    read_slurm_topology_yaml,
    read_tree_file,
)

DATA = Path(__file__).parent / "data"


# -- topology.conf, tree form ---------------------------------------------------------------------
def test_slurm_man_page_tree_example():
    """topology.conf(5), EXAMPLE section, topology/tree file (Slurm's doc/man/man5/topology.conf.5)."""
    t = read_slurm_topology_conf(DATA / "slurm_man_tree.conf")
    assert t.switch_names == ("s3", "s0", "s1", "s2")
    assert t.node_names == tuple(f"dev{i}" for i in range(18))
    assert t.levels == ("cluster", "level1", "node")
    assert not t.virtual_root and t.source == "slurm_man_tree.conf"
    assert t.domains("level1")[0].tolist() == [0, 6, 12]
    assert t.distance(0, 5) == 2 and t.distance(5, 6) == 4


def test_slurm_guide_binary_tree_example():
    """Slurm Topology Guide (doc/html/topology.shtml), first topology.conf example: eight nodes, every
    switch with two children."""
    t = read_slurm_topology_conf(DATA / "slurm_guide_binary.conf")
    assert t.switch_names == ("s6", "s4", "s0", "s1", "s5", "s2", "s3")
    assert t.levels == ("cluster", "level1", "level2", "node")
    assert t == SwitchTree.from_switches({"s6": ["s4", "s5"], "s4": ["s0", "s1"], "s5": ["s2", "s3"]},
                                         {f"s{i}": [f"tux{2 * i}", f"tux{2 * i + 1}"] for i in range(4)},
                                         levels=("cluster", "level1", "level2", "node"))
    assert [t.distance(0, b) for b in (1, 2, 7)] == [2, 4, 6]


def test_slurm_guide_parallel_spines_are_one_bundle():
    """Slurm Topology Guide, second example: four leaf switches each under four spine switches
    s4..s7 (every spine lists s[0-3]); the spines are one switch of the tree, named by their hostlist."""
    t = read_slurm_topology_conf(DATA / "slurm_guide_spines.conf")
    assert t.switch_names == ("s[4-7]", "s0", "s1", "s2", "s3")
    assert t.node_names == tuple(f"tux{i}" for i in range(16))
    assert t.parent.tolist() == [-1, 0, 0, 0, 0]
    assert not t.virtual_root


def test_slurm_guide_switches_without_common_parent_get_a_virtual_root():
    """Slurm Topology Guide: "it is legal to remove the line SwitchName=s4 Switches=s[0-3]"; the leaf
    switches then have no common parent."""
    t = read_slurm_topology_conf(DATA / "slurm_guide_no_top.conf")
    assert t.virtual_root and t.switch_names == ("", "s0", "s1", "s2", "s3")
    assert t.levels == ("cluster", "level1", "node")
    assert t.common_switch([0, 4]) == 0


def test_multi_level_parallel_switches_merge_bottom_up():
    text = ("SwitchName=l0 Nodes=n[0-1]\nSwitchName=l1 Nodes=n[2-3]\nSwitchName=l2 Nodes=n[4-5]\n"
            "SwitchName=l3 Nodes=n[6-7]\nSwitchName=a0 Switches=l[0-1]\nSwitchName=a1 Switches=l[0-1]\n"
            "SwitchName=a2 Switches=l[2-3]\nSwitchName=a3 Switches=l[2-3]\nSwitchName=t0 Switches=a[0-3]\n"
            "SwitchName=t1 Switches=a[0-3]\n")
    t = read_slurm_topology_conf(text)
    assert t.switch_names == ("t[0-1]", "a[0-1]", "l0", "l1", "a[2-3]", "l2", "l3")
    assert t.parent.tolist() == [-1, 0, 1, 1, 0, 4, 4]
    assert t.source is None


def test_configuration_syntax_as_slurm_reads_it():
    """Slurm's parse_config.c rules: keys in any case, `#` comments, quoted values with spaces, a
    trailing backslash continues the line, `\\#` is a literal `#`, spaces around `=`."""
    t = read_slurm_topology_conf(DATA / "syntax.conf")
    assert t.switch_names == ("spine#1", "leaf-a", "leaf-b")
    assert t.node_names == ("rack1-n01", "rack1-n02", "rack1-n03", "rack2-n1", "rack2-n2", "rack3-n1", "rack3-n2")


def test_hostlist_expressions():
    t = read_slurm_topology_conf("SwitchName=a Nodes=node[001-003,070]\nSwitchName=b Nodes=tux[1-2]-ib\n"
                                 "SwitchName=c Nodes=rack[1-2]-node[01-02]\nSwitchName=top Switches=a,b,c\n")
    assert t.node_names == ("node001", "node002", "node003", "node070", "tux1-ib", "tux2-ib", "rack1-node01",
                            "rack1-node02", "rack2-node01", "rack2-node02")


def test_one_leaf_switch_is_the_root():
    t = read_slurm_topology_conf("SwitchName=only Nodes=n[1-3]\n")
    assert t.levels == ("cluster", "node") and t.switch_names == ("only",) and t.size == 3


# -- topology.conf, block form --------------------------------------------------------------------
def test_slurm_man_page_block_example():
    """topology.conf(5), EXAMPLE section, topology/block file: four 32-node blocks, BlockSizes=30,120."""
    blocks = read_slurm_block_conf(DATA / "slurm_man_block.conf")
    assert isinstance(blocks, SlurmBlocks)
    tree, sizes = blocks
    assert sizes == (30, 120) and blocks.levels == (1, 4)
    assert tree.levels == ("cluster", "block", "node")
    assert tree.switch_names == ("cluster", "block1", "block2", "block3", "block4")
    assert tree.node_names == tuple(f"node{i}" for i in range(1, 129))
    assert not tree.virtual_root
    assert read_slurm_topology_conf(DATA / "slurm_man_block.conf") == tree
    assert read_tree_file(DATA / "slurm_man_block.conf") == tree


@pytest.mark.parametrize("blocks, sizes_line, want", [
    (4, "", (32, 64, 128)),  # no BlockSizes: 1, 2, 4, 8, 16 base blocks, up to the first covering all
    (19, "", (32, 64, 128, 256, 512)),
    (4, "BlockSizes=32,128,512\n", (32, 128)),  # the level beyond the one spanning every block is dropped
    (4, "BlockSizes=16,64,32\n", (16, 32, 64)),  # Slurm's parser takes any order after the base
    (2, "BlockSizes=32\n", (32,)),
])
def test_block_sizes_in_force(blocks, sizes_line, want):
    """block_record.c (block_record_validate, _read_topo_file): default levels 0..4 and the level list
    cut after the first level that spans every base block."""
    text = "".join(f"BlockName=b{i} Nodes=n[{32 * i}-{32 * i + 31}]\n" for i in range(blocks)) + sizes_line
    assert read_slurm_block_conf(text).block_sizes == want


def test_block_reader_refuses_a_tree_file():
    with pytest.raises(TreeFileError, match=r"slurm_man_tree.conf, line 5: is a topology/tree file"):
        read_slurm_block_conf(DATA / "slurm_man_tree.conf")


# -- topology.conf errors -------------------------------------------------------------------------
CONF_ERRORS = [
    # (text, line, bad value, what the message says)
    ("SwitchName=leaf Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n", 2, "'a', 'b'", "loop"),
    ("SwitchName=leaf Nodes=n1\nSwitchName=a Switches=b,leaf\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n",
     2, "'a', 'b', 'c'", "loop"),
    ("SwitchName=a Switches=a\n", 1, "'a'", "itself"),
    ("SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[2-3]\n", 2, "'n2'", "under two switches"),
    ("SwitchName=s0 Nodes=n1,n1\n", 1, "'n1'", "twice"),
    ("SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s0,s9\n", 2, "'s9'", "unknown switch"),
    ("SwitchName=s0 Nodes=n1\nSwitchName=empty\n", 2, "'empty'", "empty"),
    ('SwitchName=s0 Nodes=""\n', 1, "'s0'", "empty"),
    ("SwitchName=s0 Nodes=node[5-1]\n", 1, "'node[5-1]'", "bad hostlist"),
    ("SwitchName=s0 Nodes=node[1-\n", 1, "'node[1-'", "bad hostlist"),
    ("SwitchName=s0 Switches=s[x-y]\n", 1, "'s[x-y]'", "bad hostlist"),
    ("SwitchName=s0 Nodes=n1 Speed=3\n", 1, "'Speed'", "unknown key"),
    ("# a comment\nFrobnicate=yes\n", 2, "'Frobnicate'", "unknown key"),
    ("SwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n", 2, "'s0'", "defined twice"),
    ("SwitchName=s0 Nodes=n1 Switches=s1\n", 1, "'s0'", "both"),
    ("SwitchName=s0 Nodes=n1 Nodes=n2\n", 1, "Nodes", "twice"),
    ("SwitchName=s0 Nodes=n1 LinkSpeed=fast\n", 1, "'fast'", "LinkSpeed"),
    ("SwitchName=s0 Nodes= LinkSpeed=3\n", 1, "'LinkSpeed=3'", "no value"),
    (f"SwitchName={'x' * 65} Nodes=n1\n", 1, "x" * 65, "64"),
    ("SwitchName=s0 Nodes=n1\nthis is not a key\n", 2, "'this is not a key'", "Key=value"),
    ("Include /etc/slurm/more.conf\n", 1, "more.conf", "one file"),
    ("RingName=ring0 Nodes=n[1-8]\n", 1, "'ring0'", "ring"),
    ("Nodes=n[1-2]\n", 1, "'n[1-2]'", "must follow"),
    ("SwitchName=l0 Nodes=n1\nSwitchName=l1 Nodes=n2\nSwitchName=a Switches=l0\nSwitchName=b Switches=l0,l1\n",
     4, "'l0'", "do not list the same switches"),
    ("SwitchName=s0 Nodes=n1\n\nBlockName=b1 Nodes=n2\n", 3, "BlockName", "topology/tree file (line 1)"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,6\n", 2, "6", "multiple"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=2,6\n", 2, "6", "power-of-two"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=0,4\n", 2, "0", "positive"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,x\n", 2, "'x'", "positive"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=1,65536\n", 2, "65536", "base blocks"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=70000\n", 2, "70000", "65535"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockSizes=2\nBlockSizes=4\n", 3, "BlockSizes", "twice (first on line 2)"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-6]\nBlockSizes=4\n", 2, "'b2'", "fewer than the base"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-6]\n", 2, "'b2'", "fewer than the base"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockName=b2\n", 2, "'b2'", "empty"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[4-7]\n", 2, "'n4'", "two blocks"),
    ("BlockName=b1 Nodes=n[1-4]\nBlockName=b1 Nodes=n[5-8]\n", 2, "'b1'", "defined twice"),
    ("BlockName=cluster Nodes=n[1-4]\n", 1, "'cluster'", "root"),
    ("BlockSizes=4\n", 1, "BlockName", "no block"),
]


@pytest.mark.parametrize("text, line, value, says", CONF_ERRORS)
def test_conf_errors_name_file_line_and_value(tmp_path, text, line, value, says):
    path = tmp_path / "topology.conf"
    path.write_text(text)
    with pytest.raises(TreeFileError) as got:
        read_tree_file(path)
    message = str(got.value)
    assert message.startswith(f"{path}, line {line}: "), message
    assert value in message and says in message, message
    assert got.value.file == str(path) and got.value.line == line
    assert isinstance(got.value, TopologyError)


def test_errors_without_a_line_and_the_error_pickles(tmp_path):
    path = tmp_path / "empty.conf"
    path.write_text("# nothing here\n\n")
    with pytest.raises(TreeFileError, match=r"empty.conf: has no SwitchName= or BlockName= line") as got:
        read_slurm_topology_conf(path)
    assert got.value.line is None
    again = pickle.loads(pickle.dumps(got.value))
    assert str(again) == str(got.value) and again.line is None and again.file == got.value.file


def test_text_input_is_named_text_and_a_path_must_exist(tmp_path):
    with pytest.raises(TreeFileError, match=r"^<text>, line 1: switch 'a' is empty"):
        read_slurm_topology_conf("SwitchName=a\n")
    with pytest.raises(FileNotFoundError):
        read_slurm_topology_conf(str(tmp_path / "missing.conf"))
    with pytest.raises(TopologyError, match=r"got b'x' \(bytes\)"):
        read_slurm_topology_conf(b"x")


# -- topology.yaml --------------------------------------------------------------------------------
def test_slurm_man_page_yaml_example():
    """topology.yaml(5), EXAMPLE section (Slurm's doc/man/man5/topology.yaml.5), transcribed: the
    cluster default is the tree topo1; topo2 is a block topology with block_sizes 4, 16."""
    t = read_slurm_topology_yaml(DATA / "slurm_man.yaml")
    assert t.switch_names == ("sw_root", "s1", "s2")
    assert t.node_names == ("node01", "node02", "node03", "node04")
    assert t.levels == ("cluster", "level1", "node") and t.source == "slurm_man.yaml"
    assert read_tree_file(DATA / "slurm_man.yaml") == t
    tree, sizes = read_slurm_block_yaml(DATA / "slurm_man.yaml", "topo2")
    assert sizes == (4, 16) and tree.switch_names == ("cluster", "b1", "b2", "b3", "b4") and tree.size == 16
    assert read_tree_file(DATA / "slurm_man.yaml", topology="topo2") == tree


@pytest.mark.parametrize("name, line, kind", [("topo3", 27, "flat"), ("topo3a", 30, "flat"), ("topo4", 34, "ring"),
                                              ("topo5", 42, "torus3d")])
def test_yaml_topologies_without_switches_are_refused(name, line, kind):
    with pytest.raises(TreeFileError, match=rf"slurm_man.yaml, line {line}: topology '{name}' is a {kind} "):
        read_slurm_topology_yaml(DATA / "slurm_man.yaml", name)


def test_yaml_block_reader_refuses_a_tree_topology():
    with pytest.raises(TreeFileError, match=r"line 2: topology 'topo1' is a tree topology, not a block one"):
        read_slurm_block_yaml(DATA / "slurm_man.yaml")


def test_yaml_picks_the_first_default_else_the_only_one():
    two = ("- topology: a\n  flat: true\n- topology: b\n  cluster_default: true\n  tree:\n    switches:\n"
           "      - switch: s\n        nodes: n[1-2]\n- topology: c\n  cluster_default: true\n  flat: true\n")
    assert read_slurm_topology_yaml(two).switch_names == ("s",)
    one = "- topology: only\n  block:\n    blocks:\n      - block: b\n        nodes: n[1-3]\n"
    assert read_slurm_block_yaml(one).block_sizes == (3,)


YAML_ERRORS = [
    ("- topology: a\n  tree: {switches: [\n", 3, "not valid YAML", "YAML"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n        link_speed: 9\n",
     6, "'link_speed'", "unknown key"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n        nodes: n2\n",
     6, "'nodes'", "twice"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: [n1, n2]\n", 5, "a list", "string"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n      - switch: s\n"
     "        nodes: n2\n", 6, "'s'", "defined twice"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n1\n      - switch: t\n"
     "        nodes: n1\n", 6, "'n1'", "under two switches"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        children: t\n", 4, "'t'", "unknown switch"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        nodes: n[3-1]\n", 5, "'n[3-1]'", "hostlist"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n", 4, "'s'", "empty"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: s\n        children: t\n      - switch: t\n"
     "        children: s\n      - switch: u\n        nodes: n1\n", 4, "'s', 't'", "loop"),
    ("- topology: a\n  block:\n    block_sizes: [2, 6]\n    blocks:\n      - block: b\n        nodes: n[1-2]\n",
     3, "6", "power-of-two"),
    ("- topology: a\n  block:\n    block_sizes: [two]\n    blocks:\n      - block: b\n        nodes: n[1-2]\n",
     3, "'two'", "integer"),
    ("- topology: a\n  cluster_default: yes please\n  flat: true\n", 2, "'yes please'", "true or false"),
    ("- topology: a\n  tree: {}\n  flat: true\n", 1, "tree, flat", "exactly one"),
    ("- topology: a\n  mesh: {}\n", 2, "'mesh'", "unknown key"),
    ("- cluster_default: true\n  flat: true\n", 1, "'topology:'", "no"),
    ("- topology: a\n  flat: true\n- topology: a\n  flat: true\n", 3, "'a'", "defined twice"),
    ("topology: a\nflat: true\n", 1, "a mapping", "list"),
    ("- topology: a\n  tree:\n    switches:\n      - switch: ''\n        nodes: n1\n", 4, "''", "empty name"),
    ("- topology: a\n  block:\n    blocks:\n      - block: ''\n        nodes: n1\n", 4, "''", "empty name"),
]


@pytest.mark.parametrize("text, line, value, says", YAML_ERRORS)
def test_yaml_errors_name_file_line_and_value(tmp_path, text, line, value, says):
    path = tmp_path / "topology.yaml"
    path.write_text(text)
    with pytest.raises(TreeFileError) as got:
        read_tree_file(path)
    message = str(got.value)
    assert message.startswith(f"{path}, line {line}: "), message
    assert value in message and says in message, message


def test_yaml_choice_errors_name_the_topologies(tmp_path):
    path = tmp_path / "topology.yml"
    path.write_text("- topology: a\n  flat: true\n- topology: b\n  flat: true\n")
    with pytest.raises(TreeFileError, match=r"topology.yml: has several topologies \('a', 'b'\) and none is "
                                            r"cluster_default"):
        read_tree_file(path)
    with pytest.raises(TreeFileError, match=r"has no topology 'c' \(it has 'a', 'b'\)"):
        read_tree_file(path, topology="c")
    with pytest.raises(TreeFileError, match=r"is empty"):
        read_slurm_topology_yaml("")


# -- node labels ----------------------------------------------------------------------------------
def test_kueue_style_node_labels():
    """A table of the node labels Kueue's topology-aware scheduling reads (a Topology's levels, e.g.
    cloud.provider.com/topology-block and -rack): racks named alike in different blocks are different
    domains (Kueue's pkg/util/tas DomainID: the values from the top joined by commas)."""
    t = read_node_labels_csv(DATA / "kueue_labels.csv")
    assert t.levels == ("cluster", "block", "rack", "node")
    assert t.switch_names == ("cluster", "b1", "b1,r1", "r2", "b2", "b2,r1", "r3")
    assert t.node_names == tuple(f"gpu-00{i}" for i in range(1, 9))
    assert t.domains("rack")[0].tolist() == [0, 2, 4, 6] and t.domains("block")[0].tolist() == [0, 4]
    assert not t.virtual_root and t.source == "kueue_labels.csv"
    assert read_tree_file(DATA / "kueue_labels.csv") == t


def test_node_label_columns_can_be_chosen():
    text = "host,zone,block,rack\nh1,z1,b1,r1\nh2,z1,b1,r2\nh3,z1,b2,r1\n"
    t = read_node_labels_csv(text, levels=("block",))
    assert t.levels == ("cluster", "block", "host") and t.switch_names == ("cluster", "b1", "b2")
    t = read_node_labels_csv(text, levels=["rack"])  # the same rack label in two blocks: one domain now
    assert t.switch_names == ("cluster", "r1", "r2") and t.node_names == ("h1", "h3", "h2")
    flat = read_node_labels_csv("host\nh1\nh2\n")
    assert flat.levels == ("cluster", "host") and flat.size == 2


CSV_ERRORS = [
    ("node,block\nh1,b1\nh1,b2\n", 3, "'h1'", "twice (first on line 2)"),
    ("node,block,rack\nh1,b1,\n", 2, "'rack'", "no"),
    ("node,block\nh1,b1,x\n", 2, "'h1,b1,x'", "3 cells"),
    ('node,block\nh1,"b,1"\n', 2, "'b,1'", "comma"),
    ("node,block,block\n", 1, "'block'", "twice"),
    ("# comment\n\nnode,cluster\nh1,b1\n", 3, "'cluster'", "root level"),
    ("node,block\nh1,cluster\n", 2, "'cluster'", "root switch"),
    ("node,block\n,b1\n", 2, "no node name", "node"),
    ("node,block\n", 1, "no node row", "header"),
]


@pytest.mark.parametrize("text, line, value, says", CSV_ERRORS)
def test_csv_errors_name_file_line_and_value(tmp_path, text, line, value, says):
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(TreeFileError) as got:
        read_tree_file(path)
    message = str(got.value)
    assert message.startswith(f"{path}, line {line}: "), message
    assert value in message and says in message, message


def test_csv_levels_must_be_label_columns():
    with pytest.raises(TreeFileError, match=r"<text>, line 1: levels names column 'rack', which is not a label "
                                            r"column of the header \(block\)"):
        read_node_labels_csv("node,block\nh1,b1\n", levels=["rack"])
    with pytest.raises(TopologyError, match=r"levels must be a sequence of column names, got 'block' \(str\)"):
        read_node_labels_csv("node,block\nh1,b1\n", levels="block")
    with pytest.raises(TreeFileError, match=r"is empty \(no header\)"):
        read_node_labels_csv("")


# -- by suffix ------------------------------------------------------------------------------------
def test_read_tree_file_picks_the_reader_by_suffix(tmp_path):
    upper = tmp_path / "TOPOLOGY.CONF"
    upper.write_text((DATA / "slurm_man_tree.conf").read_text())
    assert read_tree_file(upper) == SwitchTree.from_switches(
        {"s3": ["s0", "s1", "s2"]}, {f"s{i}": [f"dev{j}" for j in range(6 * i, 6 * i + 6)] for i in range(3)},
        levels=("cluster", "level1", "node"), source="TOPOLOGY.CONF")
    assert read_tree_file(str(DATA / "kueue_labels.csv")).size == 8
    with pytest.raises(TreeFileError, match=r"machine.txt: unknown topology file suffix '.txt' \(known: .conf"):
        read_tree_file(tmp_path / "machine.txt")
    with pytest.raises(TreeFileError, match=r"slurm_man_tree.conf: topology='x' names a topology of a "):
        read_tree_file(DATA / "slurm_man_tree.conf", topology="x")
    with pytest.raises(TopologyError, match=r"must be a path, got None"):
        read_tree_file(None)


def test_read_trees_pickle_and_compare_equal():
    for name in ("slurm_guide_binary.conf", "slurm_guide_no_top.conf", "slurm_man.yaml", "kueue_labels.csv"):
        t = read_tree_file(DATA / name)
        again = pickle.loads(pickle.dumps(t))
        assert again == t and hash(again) == hash(t) and again.source == name
        assert repr(t).startswith(f"SwitchTree({name!r}")
