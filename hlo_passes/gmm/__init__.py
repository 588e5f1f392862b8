"""Grouped matmuls: what the rewrites and the lowering both need to know of them, below both.

``kernel_calls``: which kernel a call runs, megablox kernel calls (read, spliced, re-emitted,
dropped); ``megablox``: Pallas megablox lowered with jax for one shape (imports jax on first use).
"""
