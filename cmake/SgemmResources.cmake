# The build-time resource report of every kernel (registers, shared memory, spills, SASS mix).
# Filled in by scripts/resource_report.py; see docs/ladder.md.
