"""The passes: the registry of built-in rules and plugins (``registry``, re-exported here:
``from hlo_passes.passes import run_passes``), the ``Pipeline`` every face runs
(``pass_pipeline``: passes in order, each to a fixed point, the invariant checker after a changed
pass, crash isolation) and the conservative text scan that skips modules no rule can match
(``prescan``).

The pipeline's module is not called ``pipeline``: that is the registry's function re-exported
here (``passes.pipeline(names)``), which a submodule of the same name would hide or be hidden by.
"""
from .registry import (CHECK_INVARIANTS_ENV, Pipeline, Result, Rule, available_passes, builtin_names, default_passes,
                       load_plugin, loaded_plugins, opt_in_passes, pipeline, register, resolve_passes, rule_meta,
                       run_passes, unregister)

__all__ = ["CHECK_INVARIANTS_ENV", "Pipeline", "Result", "Rule", "available_passes", "builtin_names",
           "default_passes", "load_plugin", "loaded_plugins", "opt_in_passes", "pipeline", "register",
           "resolve_passes", "rule_meta", "run_passes", "unregister"]
