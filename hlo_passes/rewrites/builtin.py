"""The built-in rules, in the order ``run_passes`` runs them; ``passes`` registers them.

The rule modules define their rules and register nothing: a rule module is imported for what it
holds, not for a side effect on the registry above it.
"""
from __future__ import annotations

from .moe_gather_fusion import MoeGatherFusion
from .moe_gradient_fusion import MoeGradientFusion

RULES = (MoeGatherFusion(), MoeGradientFusion())
