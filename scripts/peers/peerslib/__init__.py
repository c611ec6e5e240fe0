"""peers.py's parts, one concern a module (scripts/peers/README.md):
common, sizes, sweep, plan, stats, measure, ops, runners, provenance,
output, merge. peers.py itself keeps the timing backends, the run command
and main, and re-exports the public names, so `peers.NAME` reaches them."""
