"""MOE006 gmm-redundant-mask: a row mask a grouped matmul makes redundant is removed, others refused.

The programs (``examples/moe_mask.py``) are MoE layers written as MaxText and TransformerEngine
write them: tokens sorted by expert, group sizes from one-hots, ``jnp.where`` over
``jnp.arange(T)[:, None] < jnp.sum(group_sizes)``; the rows of dropped tokens hold NaN, Inf and
3e38.  They are lowered for TPU (the GMM stays a ragged-dot), rewritten, lowered to the cpu-ffi
grouped-matmul kernel and run here: the rewritten program, which feeds the garbage rows to the
GMM unmasked, must give the original's outputs bit for bit (the same GMM on the same rows).
The property the rule rests on — a GMM ignores the lhs rows at or past the sum of its group
sizes and writes +0 there — is checked here of every kernel the program may be lowered to on
this machine (``test_kernels_honour_the_row_bound``).
"""
from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlo_passes
import hlo_passes.kernels  # noqa: F401  (registers the cpu-ffi kernel's handlers)
from examples import moe_mask
from gmm_cases import to_cpu_ffi
from hlo_passes import runtime
from hlo_passes.passes import prescan
from hlo_passes.lint import lint_module
from hlo_passes.gmm.target import gmm_target
from hlo_passes.lowering import lower_gmms, target_for
from hlo_passes.pass_interface import PassContext
from hlo_passes.passes import pipeline, run_passes
from hlo_passes.rewrites.builtin import builtin_rules
from hlo_passes.rewrites.gmm_redundant_mask import GmmRedundantMask

PASS = "gmm-redundant-mask"
CODE = "MOE006"
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}
ROOT = Path(__file__).resolve().parent.parent
BF16_PROGRAMS = ("both", "ffn", "scan", "shard_map")


def on_cpu_ffi(module, passes=(PASS,)):
    """The passes run for the program lowered to the cpu-ffi kernel after them, as
    ``hlo-rewrite --platform cpu`` and ``hlo_passes.jit`` on CPU run them: MOE006's premise holds."""
    return run_passes(module, list(passes), context=for_kernel("cpu-ffi", "cpu"))


def for_kernel(kernel: str, platform: str | None) -> PassContext:
    """The context of passes run for ragged-dots lowered to ``kernel`` on ``platform`` after them."""
    return PassContext(gmm_target=target_for(kernel, platform))


@functools.lru_cache(maxsize=None)
def lowered(name: str, dtype: str, dialect: str) -> str:
    return moe_mask.lower(name, DTYPES[dtype], dialect)


def outputs(text: str, name: str, dtype: str) -> list[np.ndarray]:
    """``text`` lowered to the cpu-ffi kernel and run on the program's inputs (garbage rows included)."""
    _, args = moe_mask.build(name, DTYPES[dtype])
    # HLO text does not say how many partitions it has: the shard_map program runs on its mesh's devices.
    exe = runtime.compile_text(to_cpu_ffi(text)[0], num_devices=moe_mask.DEVICES.get(name, 1))
    return [np.asarray(a) for a in exe.run(*args)]


def selects(text: str) -> int:
    return sum(1 for i in hlo_passes.parse(text).instructions() if i.opcode == "select")


POSITIVE_CASES = [(n, "float32", d) for n in moe_mask.POSITIVE for d in ("hlo", "stablehlo")] + [
    (n, "bfloat16", d) for n in BF16_PROGRAMS for d in ("hlo", "stablehlo")]


@pytest.mark.parametrize("name,dtype,dialect", POSITIVE_CASES)
def test_redundant_masks_removed_and_outputs_bit_identical(name: str, dtype: str, dialect: str) -> None:
    text = lowered(name, dtype, dialect)
    result = on_cpu_ffi(hlo_passes.parse(text))
    assert sorted(s.form for s in result.sites) == sorted(moe_mask.POSITIVE[name])
    assert all(s.rewritten for s in result.sites) and result.near_misses == []
    for site in result.sites:
        assert site.before.count == site.after.count == 0
        assert site.copies_removed == site.bytes_saved > 0 and site.details.pays
    new_text = result.module.to_text()
    after = hlo_passes.parse(new_text, validate=True)
    after.verify()
    assert selects(new_text) < selects(text)
    again = on_cpu_ffi(after)
    assert again.sites == [] and again.near_misses == []
    want, got = outputs(text, name, dtype), outputs(new_text, name, dtype)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        assert w.tobytes() == g.tobytes()
    # The garbage was there, and the original masked it out of every result.
    _, args = moe_mask.build(name, DTYPES[dtype])
    assert np.isnan(np.asarray(args[0], np.float32)).any()
    assert all(np.isfinite(np.asarray(w, np.float32)).all() for w in want)


def test_jit_runs_it_when_named() -> None:
    """``hlo_passes.jit(passes=["MOE006"])`` on CPU (ragged_dot kept whole, the cpu-ffi kernel):
    both masks removed, no fallback, the numbers of the same jit without the rule, bit for bit."""
    import warnings
    from functools import partial

    layer = partial(moe_mask.moe_layer, "both")
    _, args = moe_mask.build("both")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fallback to the original program warns
        with_rule = hlo_passes.jit(layer, passes=[CODE], kernel="auto")  # the drop-in keeps XLA's GMM
        without = hlo_passes.jit(layer, passes=[], kernel="auto")
        lowered_with = with_rule.lower(*args)
        assert not lowered_with.fell_back
        assert sorted((s.rule, s.form, s.rewritten) for s in lowered_with.report) == [
            (PASS, "lhs", True), (PASS, "result", True)]
        assert PASS not in {s.rule for s in hlo_passes.jit(layer).lower(*args).report}  # opt-in
        got, want = np.asarray(with_rule(*args)), np.asarray(without(*args))
    assert got.tobytes() == want.tobytes() and np.isfinite(got).all()


def test_rewrite_cli_runs_it_when_named(tmp_path: Path) -> None:
    src = tmp_path / "layer.mlir"
    src.write_text(lowered("ffn", "float32", "stablehlo"))
    scripts = Path(sys.executable).parent
    default = subprocess.run([str(scripts / "hlo-rewrite"), str(src), "-o", str(tmp_path / "default")],
                             capture_output=True, text=True, check=False)
    # Opt-in: not run by default; and with no platform named the GMMs stay XLA's own ragged-dot, so
    # the tool does not suggest it (the hint counts only what an opt-in pass would rewrite).
    said = default.stdout + default.stderr
    assert CODE not in said, said
    named = subprocess.run([str(scripts / "hlo-rewrite"), str(src), "--passes", CODE, "--platform", "cpu",
                            "-o", str(tmp_path / "out")],
                           capture_output=True, text=True, check=False)
    assert named.returncode == 0, named.stderr
    assert (named.stdout + named.stderr).count(f"{CODE} {PASS} [") == 2, named.stderr
    out = (tmp_path / "out").read_text()  # one input: -o names the output file
    assert selects(out) < selects(src.read_text())
    _, args = moe_mask.build("ffn")  # --platform cpu: the GMMs already lowered to the cpu-ffi kernel
    got = np.asarray(runtime.compile_text(out).run(*args)[0])
    assert got.tobytes() == outputs(src.read_text(), "ffn", "float32")[0].tobytes()
    # Without a platform, the GMMs stay XLA's own ragged-dot (on TPU: rows past the groups
    # unspecified): the rule refuses, naming the premise.
    unnamed = subprocess.run([str(scripts / "hlo-rewrite"), str(src), "--passes", CODE, "-o", str(tmp_path / "x"),
                              "--explain"], capture_output=True, text=True, check=False)
    assert "mask-kernel" in unnamed.stdout + unnamed.stderr, unnamed.stdout + unnamed.stderr
    assert selects((tmp_path / "x").read_text()) == selects(src.read_text())


# A training step's masks removed (their forms).  Its forward's masks as in a forward program, and
# their transposes in the backward: the select on the GMM's gradient (the forward's predicate and
# group sizes, passed in as arguments, followed across the calls), read by the input-gradient GMM
# and the weight-gradient GMM (ragged contracting rows).  The forward's masked tokens, returned to
# the backward for its weight-gradient GMM, are followed there: that GMM reads only the rows of
# its groups.  (The transpose of an lhs mask, a select of the sum of two input gradients, is not
# matched.)
TRAINING = {"both": ["lhs", "lhs", "result"], "lhs": ["lhs"], "result": ["lhs", "result"]}


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("name", list(TRAINING))
def test_training_step_masks(name: str, dialect: str) -> None:
    """In a training step jax's jvp of ``where`` is a function returning the masked value and its
    predicate (``%21:2 = call @_where``; in HLO a tuple): the mask is its first result, removed
    where provably the row bound; the predicate stays for the backward (a first version took
    result 0 for the whole call and pointed the predicate's users at the GMM).  The backward's
    transposed selects go too.  Gradients bit-identical, and XLA's optimized program has one select
    fewer per removed mask (a call's now unread select is dropped once XLA inlines it)."""
    text = moe_mask.lower(name, dialect=dialect, grad=True)
    result = on_cpu_ffi(hlo_passes.parse(text))
    sites = TRAINING[name]
    assert sorted((s.form, s.rewritten) for s in result.sites) == [(f, True) for f in sites]
    assert result.near_misses == []
    new_text = result.module.to_text()
    hlo_passes.parse(new_text, validate=True).verify()
    _, args = moe_mask.build_grad(name)
    want_exe, got_exe = (runtime.compile_text(to_cpu_ffi(t)[0]) for t in (text, new_text))
    want, got = want_exe.run(*args), got_exe.run(*args)
    for w, g in zip(want, got):
        assert np.asarray(w).tobytes() == np.asarray(g).tobytes()
    assert all(np.isfinite(np.asarray(w)).all() for w in want)
    removed = runtime.count_ops(want_exe.compiled_text, ["select"])["select"] - runtime.count_ops(
        got_exe.compiled_text, ["select"])["select"]
    assert removed == len(sites)


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("name", list(moe_mask.NEGATIVE))
def test_masks_that_are_not_the_row_bound_are_refused(name: str, dialect: str) -> None:
    text = lowered(name, "float32", dialect)
    module = hlo_passes.parse(text)
    result = on_cpu_ffi(module)
    assert result.sites == []
    assert [m.check for m in result.near_misses] == [moe_mask.NEGATIVE[name]]
    assert result.module.to_text() == text
    assert [f for f in lint_module(hlo_passes.parse(text)) if f.rule == CODE] == []


def _on_each_kernel(fn, a: np.ndarray, b: np.ndarray, groups: int):
    """``fn(a, b, group_sizes)`` lowered for TPU, its GMM put on each kernel this machine runs
    (cpu-ffi, Pallas megablox in interpret mode): ``(kernel, executable)`` for each."""
    text = jax.jit(fn).trace(a, b, np.zeros(groups, np.int32)).lower(lowering_platforms=("tpu",)).as_text()
    for kernel in ("cpu-ffi", "pallas"):
        module = hlo_passes.parse(text)
        assert all(r.lowered for r in lower_gmms(module, kernel, "cpu"))
        yield kernel, runtime.compile_text(module.to_text())


def test_kernels_honour_the_row_bound() -> None:
    """What the rule rests on: lowered to each kernel this machine runs (cpu-ffi, Pallas megablox
    in interpret mode), a ragged-dot ignores the lhs rows at or past sum(group_sizes) — NaN, Inf
    or huge there change nothing — and writes +0.0 to those rows of its result; the weight
    gradient's GMM (the ragged dimension contracted) ignores those rows of both operands."""
    rows, k, n, groups = 256, 128, 128, 3
    rng = np.random.default_rng(1)

    def gmm(x: jax.Array, w: jax.Array, gs: jax.Array) -> jax.Array:
        return jax.lax.ragged_dot(x, w, gs)

    for dtype in (np.float32, jnp.bfloat16):
        x = rng.standard_normal((rows, k)).astype(np.float32)
        x[100:] = np.nan
        x[101], x[102], x[103] = np.inf, -np.inf, 3e38
        x = x.astype(dtype)
        w = rng.standard_normal((groups, k, n)).astype(dtype)
        for kernel, exe in _on_each_kernel(gmm, x, w, groups):
            for sizes in ([30, 50, 20], [0, 100, 0], [0, 0, 0], [30, 0, 70]):
                gs = np.asarray(sizes, np.int32)
                bound = int(gs.sum())
                out = np.asarray(exe.run(x, w, gs)[0]).astype(np.float32)
                masked = np.where(np.arange(rows)[:, None] < bound, x.astype(np.float32), 0).astype(dtype)
                assert np.isfinite(out).all(), (kernel, sizes)
                assert (out[bound:] == 0).all() and not np.signbit(out[bound:]).any(), (kernel, sizes)
                assert out.tobytes() == np.asarray(exe.run(masked, w, gs)[0]).astype(np.float32).tobytes()

    def weight_gradient(x: jax.Array, y: jax.Array, gs: jax.Array) -> jax.Array:
        numbers = jax.lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([0], [0]), ([], [])),
                                                    lhs_ragged_dimensions=[0], rhs_group_dimensions=[])
        return jax.lax.ragged_dot_general(x, y, gs, numbers)

    for dtype in (np.float32, jnp.bfloat16):
        x, y = (rng.standard_normal((rows, d)).astype(np.float32) for d in (k, n))
        x[100:], y[100:] = np.nan, np.inf
        x, y = x.astype(dtype), y.astype(dtype)
        for kernel, exe in _on_each_kernel(weight_gradient, x, y, groups):
            for sizes in ([30, 50, 20], [0, 100, 0], [0, 0, 0]):
                gs = np.asarray(sizes, np.int32)
                bound = int(gs.sum())
                out = np.asarray(exe.run(x, y, gs)[0]).astype(np.float32)
                live = np.arange(rows)[:, None] < bound
                masked = [np.where(live, a.astype(np.float32), 0).astype(dtype) for a in (x, y)]
                assert np.isfinite(out).all(), (kernel, sizes)
                assert out.tobytes() == np.asarray(exe.run(*masked, gs)[0]).astype(np.float32).tobytes()


def test_listed_found_and_one_module() -> None:
    """The rule is found (``rewrites.builtin``), listed with its code, pre-scanned by its markers,
    and nothing in the package but its own module names it: no registration by hand."""
    assert [type(r) for r in builtin_rules() if r.meta.code == CODE] == [GmmRedundantMask]
    listing = subprocess.run([str(Path(sys.executable).parent / "hlo-lint"), "--list-rules"],
                             capture_output=True, text=True, check=True)
    assert re.search(rf"^{CODE}\s+{PASS}\s", listing.stdout, re.M), listing.stdout
    # Its module, and the check table (where the built-in rules keep their check ids: docs/checks.md).
    own = {ROOT / "hlo_passes" / "rewrites" / "gmm_redundant_mask.py", ROOT / "hlo_passes" / "checks.py"}
    for path in (ROOT / "hlo_passes").rglob("*.py"):
        if path not in own:
            body = path.read_text(encoding="utf-8")
            assert CODE not in body and PASS not in body and "gmm_redundant_mask" not in body, path
    # A module with a row mask but no grouped matmul is not parsed for the rule.
    no_gmm = ("HloModule m\n\nENTRY e {\n  x = f32[8,4]{1,0} parameter(0)\n  p = pred[8,4]{1,0} parameter(1)\n"
              "  z = f32[8,4]{1,0} parameter(2)\n  ROOT s = f32[8,4]{1,0} select(p, x, z)\n}\n")
    assert PASS not in prescan.rules_that_may_fire(no_gmm)
    for dialect in ("hlo", "stablehlo"):
        assert PASS in prescan.rules_that_may_fire(lowered("lhs", "float32", dialect))


# ---- the premise, per backend and kernel (issue 43) ---------------------------------------------
# Which kernel runs each GMM decides whether the rows past the groups are +0 and unread: the
# project's kernels (cpu-ffi, gpu-ffi, Pallas megablox as lowering/pallas_tpu.py emits it) yes;
# XLA's own ragged-dot no (on TPU measured garbage and NaN there; on GPU and CPU its expansion
# gives 0 * w, NaN for an infinite weight).  Where it is not known, the rule refuses: mask-kernel.

TARGETS = {
    # (platform, kernel): the sites' forms, or the words the refusal's reason must hold.
    ("cpu", "cpu-ffi"): None,
    ("tpu", "pallas"): None,
    ("cpu", "pallas"): None,  # interpret mode
    ("tpu", "xla"): "XLA:TPU's own ragged-dot leaves the rows past sum(group sizes) unspecified",
    ("gpu", "xla"): "XLA:GPU's own ragged-dot is not known to",
    ("cpu", "xla"): "XLA:CPU compiles no ragged-dot of its own",
    (None, "xla"): "no entry point named the platform or kernel",
}


@pytest.mark.parametrize("dialect", ["hlo", "stablehlo"])
@pytest.mark.parametrize("platform,kernel", list(TARGETS))
def test_premise_per_backend(platform, kernel, dialect: str) -> None:
    """Every mask of the layer ``both`` is removed only where the GMM's kernel is a zeroing one;
    on XLA's own ragged-dot (TPU, GPU, CPU, or no platform named) both are near misses whose
    check, mask-kernel, says which premise failed, and the module is unchanged."""
    text = lowered("both", "float32", dialect)
    result = run_passes(hlo_passes.parse(text), [PASS], context=for_kernel(kernel, platform))
    want = TARGETS[(platform, kernel)]
    if want is None:
        assert sorted(s.form for s in result.sites) == ["lhs", "result"] and result.near_misses == []
        return
    assert result.sites == [] and result.module.to_text() == text
    assert [m.check for m in result.near_misses] == ["mask-kernel", "mask-kernel"]
    assert all(want in m.reason for m in result.near_misses), [m.reason for m in result.near_misses]


def test_the_target_travels_on_each_pipeline() -> None:
    """The GMM target is the pipeline's own (``PassContext.gmm_target``, handed to the check that
    takes the context), not a setting of the thread or the process: pipelines made for different
    targets, run in turn in one thread, each keep their own verdict, and one made with none
    refuses as ``run_passes`` without one does."""
    text = lowered("both", "float32", "hlo")
    made = [(pipeline([PASS], context=for_kernel("cpu-ffi", "cpu")), None),
            (pipeline([PASS], context=for_kernel("xla", "tpu")), TARGETS[("tpu", "xla")]),
            (pipeline([PASS], context=for_kernel("pallas", "tpu")), None),
            (pipeline([PASS], platform="cpu"), TARGETS[(None, "xla")])]
    for _ in range(2):
        for made_for, want in made:
            result = made_for.run(hlo_passes.parse(text))
            if want is None:
                assert sorted(s.form for s in result.sites) == ["lhs", "result"] and result.near_misses == []
                continue
            assert result.sites == [] and [m.check for m in result.near_misses] == ["mask-kernel"] * 2
            assert all(want in m.reason for m in result.near_misses), [m.reason for m in result.near_misses]
    # The check is declared to take the context (the driver reads no signature): the only way in.
    assert [c.name for c in GmmRedundantMask.checks if c.takes_context] == ["kernel"]


def test_no_target_named_refuses_every_positive_program() -> None:
    """``run_passes`` with no entry point naming a kernel: XLA's own ragged-dot is assumed, and every
    mask the rule would remove is a mask-kernel near miss, not a rewrite (nor a lint finding)."""
    for name in moe_mask.POSITIVE:
        text = lowered(name, "float32", "hlo")
        result = run_passes(hlo_passes.parse(text), [PASS])
        assert result.sites == [], name
        assert {m.check for m in result.near_misses} == {"mask-kernel"}, name
        assert [f for f in lint_module(hlo_passes.parse(text)) if f.rule == CODE] == [], name
    # hlo-lint --platform cpu: the kernel hlo-rewrite's auto picks there (cpu-ffi) zeroes: found.
    found = [f for f in lint_module(hlo_passes.parse(lowered("both", "float32", "hlo")), platform="cpu")
             if f.rule == CODE]
    assert len(found) == 2
    # The pass inside XLA: XLA's own ragged-dot on its platform (xla_pass._on_compile's target).
    for platform in ("cpu", "tpu", "gpu"):
        got = [f for f in lint_module(hlo_passes.parse(lowered("both", "float32", "hlo")), platform=platform,
                                      gmm_target=gmm_target(platform, "xla")) if f.rule == CODE]
        assert got == [], platform


def test_kernel_that_leaves_the_gmm_to_xla_refuses() -> None:
    """A kernel named, but one that will not take this GMM (f16: the cpu-ffi handlers take f32 and
    bf16): the GMM stays XLA's ragged-dot, so the mask stays, the reason saying both."""
    text = lowered("both", "float16", "hlo") if "float16" in DTYPES else moe_mask.lower("both", jnp.float16, "hlo")
    result = run_passes(hlo_passes.parse(text), [PASS], context=for_kernel("cpu-ffi", "cpu"))
    assert result.sites == []
    assert [m.check for m in result.near_misses] == ["mask-kernel", "mask-kernel"]
    assert all("the cpu-ffi kernel leaves it to XLA" in m.reason and "f32/bf16" in m.reason
               for m in result.near_misses), [m.reason for m in result.near_misses]
