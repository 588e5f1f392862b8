"""The IR layer: one module graph for HLO and StableHLO, and the only code that changes one.

``module`` holds the graph (``Module``, ``Computation``, ``Instruction``, ``Value``, ``Shape``,
``Sharding``, ``Attributes``), re-exported here: ``from hlo_passes.ir import Module``.
Beside it: ``rewriter`` (``Rewriter``, the one way a pass changes a module), ``analysis`` (what
every rule asks of the graph: callers, same values, dead code and unused functions removed through
a rewriter), ``op_table``
(what is known of each op), ``verify`` (the structural and result-shape checks) and
``device_groups`` (the typed value of ``replica_groups``).  Those import ``module`` directly,
never this package, so importing any of them does not go round through here.
"""
from .module import (ATTRIBUTE_VALUES, CREATED_BY, ELEMENT_BITS, Attributes, Computation, Instruction, Module, Shape,
                     Sharding, Value, fill_graph, is_inside, is_partitioned, tag_created)

__all__ = ["ATTRIBUTE_VALUES", "CREATED_BY", "ELEMENT_BITS", "Attributes", "Computation", "Instruction", "Module",
           "Shape", "Sharding", "Value", "fill_graph", "is_inside", "is_partitioned", "tag_created"]
