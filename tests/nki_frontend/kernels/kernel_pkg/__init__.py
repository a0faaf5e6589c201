# A package of kernels as the NKI Library lays them out (issue 44, item 3):
# the kernel file imports its helpers by relative and sibling imports, and
# the packages' __init__ files run when it is loaded.
from .ops import scale  # noqa: F401 (as a library's __init__ does)

LOADED_BY_INIT = True
