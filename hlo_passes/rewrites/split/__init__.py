"""The split engine: what MOE001..MOE004 share (``engine.SplitFusion`` and its strategies).

Halves of one array that take the same path apart and meet again are found, checked, priced and
fused here; a rule (``hlo_passes/rewrites/moe_*.py``) is this engine with its collectives and
strategies.  Every import inside points down, type-only ones too: the engine on top, its own
steps, the strategies (sources, meetings, the walk down a half, the cost), the shared types
(``types``: ``Chain``, ``Cut``, ``SourcePlan``, ``Meeting``), the readers of the IR at the bottom
(the ``split-layers`` contract in pyproject.toml; docs/architecture.md draws it).
"""
