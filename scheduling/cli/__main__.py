"""``python -m scheduling.cli``: the ``topoalloc`` command line (:mod:`scheduling.cli`)."""

import sys

if __name__ == "__main__":
    from . import main

    sys.exit(main())
