"""A drop-in changes no number (issue 47): ``hlo_passes.jit(f)`` with default arguments computes what
``jax.jit(f)`` computes, bit for bit, in f32 and bf16, with its rewrites applied (MOE001 and MOE002:
the compiled program runs fewer collectives).  The grouped matmuls stay XLA's own by default; a
kernel that rounds differently is opt-in (``kernel=``)."""
from __future__ import annotations

import functools
import os

import jax
import numpy as np
import pytest

import hlo_passes
from examples import moe, moe_trainer
from hlo_passes.jax_hook import DROP_IN_KERNEL, drop_in_kernel
from hlo_passes.runtime import count_collectives

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", "") and jax.device_count() < 8:
    pytest.skip("needs 8 devices (tests/conftest.py sets XLA_FLAGS for 8 CPU devices)", allow_module_level=True)

PROGRAMS = [
    ("concat", "mesh2", "grad"),  # the README's quick start
    ("two_gmm", "mesh1", "grad"),
    ("concat", "mesh1", "scan_grad"),
]


def _collectives(compiled) -> int:
    return sum(count_collectives(compiled.as_text()).values())


def _check_drop_in(fn, args) -> None:
    ours = hlo_passes.jit(fn)
    low = ours.lower(*args)
    assert not low.fell_back and low.rewritten, str(low)
    assert low.gmm_lowerings == []  # XLA's own ragged-dot: no kernel unless asked for
    sites = low.report
    assert {s.rule for s in sites} >= {"moe-gradient-fusion"} and all(s.rewritten for s in sites), str(low)
    reference = jax.jit(fn)
    assert _collectives(low.compile()) < _collectives(reference.lower(*args).compile())
    got, want = jax.tree.leaves(ours(*args)), jax.tree.leaves(reference(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(("variant", "mesh", "mode"), PROGRAMS, ids=["-".join(p) for p in PROGRAMS])
def test_the_default_jit_is_bit_identical_to_jax_jit_on_the_examples(variant: str, mesh: str, mode: str,
                                                                    dtype: str) -> None:
    spec = moe.ProgramSpec(variant=variant, mesh=mesh, mode=mode, cfg=moe.MoEConfig(dtype=dtype))
    m = moe.program_mesh(spec)
    _check_drop_in(moe.program_fn(spec, m), moe.inputs(spec, m))


@pytest.mark.parametrize("fsdp", ["one", pytest.param("two", marks=pytest.mark.slow)])
def test_the_default_jit_trains_the_test_trainer_as_jax_jit_does(fsdp: str) -> None:
    """The bf16 trainer (scan, remat, Adam): five steps, the same losses and parameters, bit for bit."""
    step, state = moe_trainer.build("prefused", fsdp, jit=hlo_passes.jit)
    low = step.lower(*state)
    assert {s.rule for s in low.report} == {"moe-gather-fusion", "moe-gradient-fusion"}, str(low)
    assert all(s.rewritten for s in low.report) and low.gmm_lowerings == []
    ours, ours_params = moe_trainer.train("prefused", fsdp, jit=hlo_passes.jit)
    theirs, their_params = moe_trainer.train("prefused", fsdp)
    assert ours == theirs
    for name in their_params:
        np.testing.assert_array_equal(ours_params[name], their_params[name])


def test_a_kernel_is_opt_in() -> None:
    assert DROP_IN_KERNEL == "xla" and drop_in_kernel(None) == "xla"
    assert drop_in_kernel("auto") == "auto" and drop_in_kernel("cpu-ffi") == "cpu-ffi"
    with pytest.raises(ValueError, match="unknown kernel"):
        drop_in_kernel("mosaic")
    spec = moe.ProgramSpec(variant="concat", mesh="mesh2", mode="grad")
    m = moe.program_mesh(spec)
    fn, args = moe.program_fn(spec, m), moe.inputs(spec, m)
    asked = functools.partial(hlo_passes.jit, kernel="auto")(fn).lower(*args)
    if jax.default_backend() == "cpu" and not asked.fell_back:
        # On CPU `auto` is the cpu-ffi kernel (when it can be built): the GMMs are lowered to it.
        assert asked.gmm_lowerings == [] or any(g.lowered and g.kernel == "cpu-ffi" for g in asked.gmm_lowerings)


def test_a_named_rule_that_cannot_act_with_the_kernel_says_why_and_which_kernel_would() -> None:
    """``passes=["MOE005"]`` with the default kernel (XLA's GMM): one line, where the jit is made, saying
    why the rule cannot act and that ``kernel='auto'`` would; the rule is not run (the numbers stay
    jax.jit's).  With ``kernel='auto'`` nothing is said and the FFN is fused."""
    import warnings

    from examples import moe_ffn
    from hlo_passes.jax_hook import RuleCannotActWarning

    fn = moe_ffn.function("pair")
    args = moe_ffn.inputs("pair", experts=4, tokens=64, embed=32, mlp=48)
    with pytest.warns(RuleCannotActWarning) as said:
        default = hlo_passes.jit(fn, passes=["MOE005", "MOE001"])
    (line,) = [str(w.message) for w in said]
    assert "\n" not in line and said[0].filename == __file__
    assert line.startswith("hlo_passes.jit: MOE005 (moe-ffn-fusion) cannot act with kernel='xla' (the default")
    assert "fused-FFN kernel" in line and line.endswith("kernel='auto' (the platform's kernel: cpu-ffi, gpu-ffi or "
                                                        "pallas) lets it act")
    low = default.lower(*args)
    assert low.report == [] and not low.fell_back
    np.testing.assert_array_equal(np.asarray(default(*args)), np.asarray(jax.jit(fn)(*args)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuleCannotActWarning)
        chosen = hlo_passes.jit(fn, passes=["MOE005"], kernel="auto")
        hlo_passes.jit(fn, passes=["MOE001", "MOE002"])  # rules that act with XLA's GMM: nothing said
    if jax.default_backend() == "cpu":
        low = chosen.lower(*args)
        if not low.fell_back and low.gmm_lowerings:  # the cpu-ffi kernel could be built here
            assert [(s.rule, s.rewritten) for s in low.report] == [("moe-ffn-fusion", True)], str(low)
