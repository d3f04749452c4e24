"""``python -m topoalloc``: the ``topoalloc`` command line (:mod:`scheduling.cli`).

This entry point is the one place where :mod:`topoalloc` reaches up into :mod:`scheduling`: the
command line is named after the distribution, and the library itself never imports upward (the
layering test skips this file). The import happens only when the module runs as a program.
"""

import sys

if __name__ == "__main__":
    from scheduling.cli import main  # the one upward import, for the command line only

    sys.exit(main())
