"""NKI front end: traces unmodified NKI kernel source into a trnbench
workload spec (docs/nki-source.md)."""
