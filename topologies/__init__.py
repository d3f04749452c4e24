"""Machine models: geometry only, no state.

``Mesh`` (any dimension; ``Torus`` when every dimension wraps), ``Hypercube``, ``Flat`` and
``SwitchTree`` number their processors with integer ids, measure hop distances, convert to networkx
graphs with the same ids, and turn a processor count into the request a job makes on them
(``request_for``). ``Submesh``, ``Box`` and ``Subcube`` are the region values contiguous allocators
hand out.
"""

from ._version import __version__
from .base import Network, Topology
from .errors import FileLineError, ParameterError, RequestError, RequestSizeError, RequestTypeError, TopologyError
from .flat import Flat
from .grid import Box
from .hypercube import MAX_CUBE_DIM, Hypercube
from .mesh import Mesh, Torus
from .regions import Subcube, Submesh
from .tree import MAX_TREE_NODES, SwitchTree
from .tree_files import (
    SlurmBlocks,
    TreeFileError,
    read_node_labels_csv,
    read_slurm_block_conf,
    read_slurm_block_yaml,
    read_slurm_topology_conf,
    read_slurm_topology_yaml,
    read_tree_file,
)
from .tree_request import TreeRequest

__all__ = [
    "__version__",
    "Topology",
    "Network",
    "Mesh",
    "Torus",
    "Box",
    "Hypercube",
    "Flat",
    "SwitchTree",
    "TreeRequest",
    "MAX_TREE_NODES",
    "TreeFileError",
    "SlurmBlocks",
    "read_tree_file",
    "read_slurm_topology_conf",
    "read_slurm_topology_yaml",
    "read_slurm_block_conf",
    "read_slurm_block_yaml",
    "read_node_labels_csv",
    "Submesh",
    "Subcube",
    "MAX_CUBE_DIM",
    "ParameterError",
    "FileLineError",
    "TopologyError",
    "RequestError",
    "RequestSizeError",
    "RequestTypeError",
]
