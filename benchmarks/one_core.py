"""Import first in every benchmark: one BLAS/OpenMP thread, and ``pin()`` to one CPU.

numpy reads the thread variables when it is imported, so a benchmark imports this module
before anything that imports numpy; timings then compare across machines and runs.
"""

import os

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)
for _variable in THREAD_VARIABLES:
    os.environ[_variable] = "1"


def pin() -> str:
    """Pin this process to one CPU; say which (or why not)."""
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)"
