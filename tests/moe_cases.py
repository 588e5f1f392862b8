"""Helpers the rewrite tests share: lowered texts (cached), running a text, tolerances."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import hlo_passes
from examples import moe
from examples.moe import MoEConfig, ProgramSpec
from hlo_passes import _jax_compat as compat
from hlo_passes import runtime
from hlo_passes.passes import run_passes

DIALECTS = ["hlo", "stablehlo"]


def tolerance(cfg: MoEConfig) -> dict:
    """Fused GMMs and reductions are wider ops that XLA may block differently:
    results agree to rounding, not bit for bit."""
    if "bfloat16" in (cfg.dtype, cfg.param_dtype):
        return dict(rtol=2e-2, atol=2e-2)
    return dict(rtol=1e-5, atol=1e-5)


@functools.lru_cache(maxsize=None)
def lowered_text(spec: ProgramSpec, dialect: str) -> str:
    return moe.lower(spec).as_text(dialect=dialect)


def run_text(text: str, spec: ProgramSpec) -> tuple[runtime.Executable, list[np.ndarray]]:
    """Compile ``text`` for the spec's devices and run it on the spec's inputs (as f32)."""
    exe = runtime.compile_text(text, num_devices=spec.num_devices)
    return exe, [np.asarray(a, dtype=np.float32) for a in exe.run(*moe.host_inputs(spec))]


def count(exe: runtime.Executable, opcode: str) -> int:
    return runtime.count_ops(exe.compiled_text)[opcode]


def check_one_site_preserves_results(spec: ProgramSpec, dialect: str, rule: str) -> None:
    """The rule rewrites exactly one site, the rewritten module computes the same
    numbers as the original, and a second run finds nothing."""
    text = lowered_text(spec, dialect)
    result = run_passes(hlo_passes.parse(text), [rule])
    assert len(result.sites) == 1 and result.near_misses == []
    new_text = result.module.to_text()
    _, want = run_text(text, spec)
    _, got = run_text(new_text, spec)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tolerance(spec.cfg))
    assert run_passes(hlo_passes.parse(new_text), [rule]).sites == []


def check_per_device(executables: Sequence[runtime.Executable], fn: Callable, device_args: Sequence[Any],
                     devices: Sequence[Any], close: Callable[[Any, Any], None]) -> None:
    """Partitioned programs: each executable, fed every device's shards of ``device_args`` (in the
    order of ``devices``, the mesh's), gives each device its shards of ``fn(*device_args)``
    (``close(got, want)`` compares one device's outputs)."""
    import jax

    def shard_on(array, device):
        return np.asarray(next(s.data for s in array.addressable_shards if s.device == device))

    per_device_in = [[shard_on(a, d) for d in devices] for a in device_args]
    want = [[shard_on(o, d) for d in devices] for o in jax.tree.leaves(fn(*device_args))]
    for exe in executables:
        got = exe.run_per_device(*per_device_in)
        assert len(got) == len(want)
        for g_dev, w_dev in zip(got, want):
            close(g_dev, w_dev)


def check_parsers(text: str, dialect: str) -> None:
    """``text`` is taken by XLA's HLO parser or MLIR's parser and verifier, and parses back here."""
    if dialect == "stablehlo":
        compat.parse_mlir(text)  # MLIR's parser and verifier
    else:
        compat.print_hlo(text)  # XLA's HLO parser
    again = hlo_passes.parse(text, validate=True)
    again.verify()


def tpu_kernels(module: hlo_passes.Module) -> list[hlo_passes.ir.Instruction]:
    """The tpu_custom_calls the module runs (called from the entry, however deep)."""
    seen, out, work = set(), [], [module.entry]
    while work:
        comp = work.pop()
        if comp.name in seen:
            continue
        seen.add(comp.name)
        for i in comp.instructions:
            work.extend(i.called_computations)
            if i.opcode == "custom-call" and "tpu_custom_call" in str(i.attributes["custom_call_target"]):
                out.append(i)
    return out
