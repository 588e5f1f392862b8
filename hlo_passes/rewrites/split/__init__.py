"""The split engine: what MOE001..MOE004 share (``engine.SplitFusion`` and its strategies).

Halves of one array that take the same path apart and meet again are found, checked, priced and
fused here; a rule (``hlo_passes/rewrites/moe_*.py``) is this engine with its collectives and
strategies.
"""
