"""``python -m scheduling``: the ``topoalloc`` command line (:mod:`scheduling.cli`)."""

import sys

if __name__ == "__main__":
    from .cli import main

    sys.exit(main())
