"""MOE003 on MaxText's two-stage layout of two weights, where the forward's and the recomputation's
gathers of ``wi_0`` and ``wi_1`` are not told into two weights (issue 46).

MaxText's apart ``fsdp 4 x fsdp_transpose 2`` two-stage step (``moe_fsdp_use_two_stage_all_gather``)
moves each weight from ``D`` to ``E`` on ``fsdp`` (an all-to-all), fences it with an optimization
barrier, gathers ``F`` over ``fsdp_transpose`` (a sharding constraint) and then ``E`` over ``fsdp``
(the shard_map's ``in_specs``), and runs one GMM per weight.  Its optimized step holds each weight's
two-stage gather twice (the forward and its ``jax.checkpoint`` recomputation), and XLA laid the
recomputation's shard out in another fusion than the forward's: the four gathers alike are not told
into two weights (``pairs._same_array``), and until this change no pair was formed, no site and no
near miss.  They are paired by the tokens their GMMs multiply instead (``pairs._rounds_by_tokens``),
as are two layers' pairs unrolled in one computation.

* ``compiled_two_stage_rounds.hlo`` (the FileCheck fixture) holds the trainer's form: the two
  starts of each weight are different fusions of one all-to-all's pieces;
* the program below is written as MaxText writes it (constraints, barrier, shard_map, bf16 from f32
  weights, ``jax.checkpoint``), two layers unrolled: eight gathers alike in one computation, paired
  into four sites, run inside XLA and compared with plain ``jax.jit``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from hlo_passes import runtime
from hlo_passes.lint import lint_text
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.report import shown_source
from hlo_passes.xla_pass import _site_line
from test_compiled_rewrite import _equal, _unfused_by_the_rules, rewriting

E, D, F, T, LAYERS = 8, 64, 32, 64, 2


def _build():
    """``value_and_grad`` of ``LAYERS`` MoE layers under ``jax.checkpoint``, each weight moved from
    ``D`` to ``E`` on ``fsdp``, fenced, gathered along ``F`` and then ``E`` (MaxText's
    ``moe_fsdp_use_two_stage_all_gather``), on a 4 x 2 mesh of 8 CPU devices."""
    m = jax.make_mesh((4, 2), ("fsdp", "fsdp_transpose"), axis_types=(jax.sharding.AxisType.Auto,) * 2,
                      devices=jax.devices()[:8])

    def constrain(a, spec):
        return jax.lax.with_sharding_constraint(a, NamedSharding(m, spec))

    def drop(w):
        w = constrain(w.astype(jnp.bfloat16), P("fsdp", None, "fsdp_transpose"))  # ("exp_with_fsdp", None, "mlp")
        w = jax.lax.optimization_barrier(w)
        return constrain(w, P("fsdp", None, None))  # ("exp_with_fsdp", None, "mlp_no_fsdp")

    def body(x, gs, w0, w1, wo):
        gate = jax.lax.ragged_dot(x, w0, gs)
        up = jax.lax.ragged_dot(x, w1, gs)
        return jax.lax.ragged_dot((jax.nn.silu(gate) * up).astype(jnp.bfloat16), wo, gs)

    mapped = jax.shard_map(body, mesh=m, in_specs=(P(),) * 5, out_specs=P(), check_vma=False)

    def layer(x, gs, w0, w1, wo):
        out = mapped(x.astype(jnp.bfloat16), gs, drop(w0), drop(w1), wo.astype(jnp.bfloat16))
        return out.astype(jnp.float32) + x

    def loss(ws, x, gs):
        h = x
        for k in range(LAYERS):
            h = jax.checkpoint(layer)(h, gs, *(w[k] for w in ws))
        return jnp.mean(jnp.square(h))

    rng = np.random.default_rng(0)
    w_in = NamedSharding(m, P(None, None, "fsdp", "fsdp_transpose"))  # (layers, exp, embed, mlp)
    ws = (jax.device_put(rng.standard_normal((LAYERS, E, D, F), dtype=np.float32) / 8, w_in),
          jax.device_put(rng.standard_normal((LAYERS, E, D, F), dtype=np.float32) / 8, w_in),
          jax.device_put(rng.standard_normal((LAYERS, E, F, D), dtype=np.float32) / 8, NamedSharding(m, P())))
    x = jax.device_put(rng.standard_normal((T, D), dtype=np.float32), NamedSharding(m, P()))
    gs = jax.device_put(np.full((E,), T // E, np.int32), NamedSharding(m, P()))
    return jax.jit(jax.value_and_grad(loss)), (ws, x, gs)


def test_unrolled_layers_paired_by_tokens_rewritten_inside_xla() -> None:
    """Two layers unrolled: each weight's forward gather and its recomputation read one shard,
    so the eight gathers alike are four weights (two per layer), not two: paired by the tokens
    their GMMs multiply, four sites (each layer's forward and recomputation), each a two-stage
    gather of the joined shards split by blocks of ``F / 2``; all-gathers 16 -> 8, the value and
    the gradients bit-equal to plain ``jax.jit``'s."""
    fn, args = _build()
    plain = fn.lower(*args).compile()
    want = plain(*args)
    fn, args = _build()  # a new function: not the executable jax keeps for the first
    with rewriting(["moe-pair-gather-fusion"]) as results:
        compiled = fn.lower(*args).compile()
    sites = [s for r in results for s in r.sites]
    assert [(s.form, s.before.count, s.after.count, s.rewritten) for s in sites] == [
        ("split_gather", 4, 2, True)] * 4
    assert all(s.details.blocked == f"split by blocks of {F // 2}" for s in sites)
    gathers = [runtime.count_ops(c.as_text())["all-gather"] for c in (plain, compiled)]
    assert gathers == [16, 8]
    assert _unfused_by_the_rules(compiled.as_text()) == []
    _equal(compiled(*args), want)


def test_the_default_passes_rewrite_the_pair_inside_xla_placed_where_its_record_is() -> None:
    """With the default passes the pass inside XLA rewrites the pair (MOE003 runs by default on an
    optimized module: ``RuleMeta.compiled_default``), and each logged site names the place every
    entry point shows for it (``Site.shown_at``: the GMM the halves meet at, ``body``'s
    ``ragged_dot``), not the gather XLA's module shows it at (``drop``'s sharding constraint): on
    MaxText's step that was the constraint's wrapper, a library frame, where ``hlo-lint`` names
    ``moe.py``'s GMM."""
    fn, args = _build()
    text = fn.lower(*args).compile().as_text()
    hints: list[str] = []
    new, sites, _ = rewrite_compiled_text(text, "jit_step", None, hints)
    rewritten = [s for s in sites if s.rewritten]
    assert new is not None and hints == [] and [s.rule for s in rewritten] == ["moe-pair-gather-fusion"] * 4
    records = [f.record for f in lint_text(text, select=["MOE003"]) if not f.is_note and f.record is not None]
    assert records and all(r.source.startswith(__file__ + ":") for r in records)
    logged = {_site_line("jit_step", s).rsplit(" at ", 1)[1] for s in rewritten}
    assert logged == {shown_source(records[0].source)}
    assert int(records[0].source.rsplit(":", 1)[1]) == _line_of("gate = jax.lax.ragged_dot(")


def _line_of(code: str) -> int:
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if code in line)
