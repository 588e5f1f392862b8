"""The passes: the registry of built-in rules and plugins (``registry``, re-exported here:
``from hlo_passes.passes import run_passes``), the ``Pipeline`` every face runs (re-exported from
``hlo_passes.pipeline_driver``, below the rules and the lowering, which run one-stage pipelines
of their own: passes in order, each to a fixed point, the invariant checker after a changed
pass, crash isolation) and the conservative text scan that skips modules no rule can match
(``prescan``).
"""
from .registry import (CHECK_INVARIANTS_ENV, Pipeline, Result, Rule, available_passes, builtin_names, default_passes,
                       load_plugin, loaded_plugins, opt_in_passes, pipeline, register, resolve_passes, rule_meta,
                       run_passes, unregister)

__all__ = ["CHECK_INVARIANTS_ENV", "Pipeline", "Result", "Rule", "available_passes", "builtin_names",
           "default_passes", "load_plugin", "loaded_plugins", "opt_in_passes", "pipeline", "register",
           "resolve_passes", "rule_meta", "run_passes", "unregister"]
