"""The grouped-matmul lowering never adds a collective (issue 32).

``hlo_passes.jit`` lowers the StableHLO jax writes, before SPMD partitioning.
A kernel custom call is opaque to the partitioner, which replicates it: were a
ragged-dot with expert-sharded (or FSDP-, or TP-sharded) operands lowered to
one, every split operand would be gathered (3 -> 5 all-gathers in an
expert-sharded training step before this fix, one weight gathered twice).  So
the kernel takes a ragged-dot only where its operands are whole on every device
(``hlo_passes/gmm/placement.py``); elsewhere the program stays jax's.

The programs are written the way MoE code writes them: a prefused gate/up
weight ``w13[E, 2, F, D]`` reshaped to ``[E, 2F, D]`` and fed to one
``ragged_dot_general`` (contracting its last dimension, as a ``[E, N, K]``
kernel layout does), the down projection ``w2[E, F, D]``, weights placed with
``NamedSharding`` and ``jax.jit(in_shardings=...)``, a training step with
``value_and_grad`` and an optax update.  Each is compiled by ``jax.jit`` and by
``hlo_passes.jit(kernel="auto")`` (cpu-ffi on CPU); the compiled collectives
are counted in both and the results compared.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax.lax import RaggedDotDimensionNumbers
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import hlo_passes
import hlo_passes.kernels  # noqa: F401  (registers the CPU handlers the controls run)
from hlo_passes.runtime import count_collectives

pytestmark = pytest.mark.jax_facing

E, F, D, T = 8, 16, 32, 64
# Rows of each expert: expert 1 gets none (an empty group), expert 0 its rows.
GROUPS = np.array([16, 0, 8, 8, 8, 8, 8, 8], np.int32)
# w13 [E, 2F, D] contracted on D (its last dimension): [T, D] x [E, 2F, D] -> [T, 2F].
_W13_DN = RaggedDotDimensionNumbers(dot_dimension_numbers=(([1], [2]), ([], [])),
                                    lhs_ragged_dimensions=[0], rhs_group_dimensions=[0])
TOL = dict(rtol=1e-5, atol=1e-5)  # f32 programs: f32 rounding (the kernel sums in another order)


def expert_ffn(x: jax.Array, gs: jax.Array, w13: jax.Array, w2: jax.Array) -> jax.Array:
    """The MoE FFN of tokens sorted by expert: one GMM on the prefused gate/up weight, SwiGLU, down."""
    h = jax.lax.ragged_dot_general(x, w13.reshape(E, 2 * F, D), gs, _W13_DN)
    gate, up = jnp.split(h, 2, axis=-1)
    return jax.lax.ragged_dot(jax.nn.silu(gate) * up, w2, gs)


def forward(params: dict, x: jax.Array, gs: jax.Array) -> jax.Array:
    return expert_ffn(x, gs, params["w13"], params["w2"])


_OPT = optax.sgd(1e-2)


def train_step(params: dict, opt_state: Any, x: jax.Array, gs: jax.Array) -> tuple:
    def loss(p):
        return jnp.mean(jnp.square(expert_ffn(x, gs, p["w13"], p["w2"])))

    value, grads = jax.value_and_grad(loss)(params)
    updates, opt_state = _OPT.update(grads, opt_state, params)
    return value, optax.apply_updates(params, updates), opt_state


# name: mesh shape, axis names, w13 spec, w2 spec, tokens spec.  The weights' specs are what
# MoE libraries give them: experts over the expert axis; experts over the FSDP axis with the
# tokens' batch; FSDP x TP with F over TP; FSDP on the model dimension D, in a mesh listed
# TP first.
SHARDED = {
    "expert": ((8,), ("expert",), P("expert"), P("expert"), P()),
    "fsdp": ((8,), ("fsdp",), P("fsdp"), P("fsdp"), P("fsdp")),
    "fsdp_tp": ((4, 2), ("fsdp", "tp"), P("fsdp", None, "tp"), P("fsdp", "tp"), P("fsdp")),
    "tp_fsdp_model_dim": ((2, 4), ("tp", "fsdp"), P(None, None, "tp", "fsdp"), P(None, "tp", "fsdp"), P("fsdp")),
}
# Controls the kernel does take: every operand whole on each device.
REPLICATED = {"replicated": ((8,), ("data",), P(), P(), P())}


@functools.lru_cache(maxsize=None)
def _mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> Mesh:
    return Mesh(np.array(jax.devices()[: int(np.prod(shape))]).reshape(shape), names)


def _program(layout: tuple, mode: str) -> tuple[Callable, tuple, tuple]:
    """(function, in_shardings, arguments placed by them) of a program."""
    shape, names, w13_spec, w2_spec, x_spec = layout
    mesh = _mesh(shape, names)
    rng = np.random.default_rng(0)
    host = {"w13": rng.standard_normal((E, 2, F, D), dtype=np.float32) / np.sqrt(D),
            "w2": rng.standard_normal((E, F, D), dtype=np.float32) / np.sqrt(F)}
    p_sh = {"w13": NamedSharding(mesh, w13_spec), "w2": NamedSharding(mesh, w2_spec)}
    x_sh, gs_sh = NamedSharding(mesh, x_spec), NamedSharding(mesh, P())
    params = {k: jax.device_put(v, p_sh[k]) for k, v in host.items()}
    x = jax.device_put(rng.standard_normal((T, D), dtype=np.float32), x_sh)
    gs = jax.device_put(GROUPS, gs_sh)
    if mode == "forward":
        return forward, (p_sh, x_sh, gs_sh), (params, x, gs)
    opt_state = _OPT.init(params)
    opt_sh = jax.tree.map(lambda a: a.sharding, opt_state)
    return train_step, (p_sh, opt_sh, x_sh, gs_sh), (params, opt_state, x, gs)


@functools.lru_cache(maxsize=None)
def _compiled(name: str, mode: str) -> dict[str, Any]:
    """Both compilations of a program: collectives, results, GMM records (compiled once per test run)."""
    layout = {**SHARDED, **REPLICATED}[name]
    fn, shardings, args = _program(layout, mode)
    ours = hlo_passes.jit(fn, kernel="auto", in_shardings=shardings)
    out = {}
    for who, jitted in (("jax", jax.jit(fn, in_shardings=shardings)), ("auto", ours)):
        compiled = jitted.lower(*args).compile()
        text = compiled.as_text()
        out[who] = dict(collectives=count_collectives(text), text=text,
                        results=[np.asarray(a) for a in jax.tree.leaves(jitted(*args))])
    out["gmms"] = ours.lower(*args).gmm_lowerings
    return out


def _counts(c) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "none"


def main() -> None:
    """The compiled collectives of every program, jax.jit against kernel auto (issue 32's figures):
    ``XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=$PWD:$PWD/tests python3 -c
    "import test_lowering_sharded as t; t.main()"``."""
    for name in [*sorted(SHARDED), *REPLICATED]:
        for mode in ("forward", "train"):
            got = _compiled(name, mode)
            lowered = sum(g.lowered for g in got["gmms"])
            print(f"jax {jax.__version__} {name:18} {mode:7}  jax.jit: {_counts(got['jax']['collectives']):50}"
                  f"  kernel auto: {_counts(got['auto']['collectives'])}  ({lowered}/{len(got['gmms'])} GMMs to the kernel)")


@pytest.mark.parametrize("mode", ["forward", "train"])
@pytest.mark.parametrize("name", sorted(SHARDED))
def test_sharded_operands_compile_no_more_collectives_than_jax(name: str, mode: str) -> None:
    """Expert-, FSDP- and FSDP x TP-sharded weights: kernel auto compiles what jax.jit compiles."""
    got = _compiled(name, mode)
    jax_c, auto_c = got["jax"]["collectives"], got["auto"]["collectives"]
    for kind in set(jax_c) | set(auto_c):
        assert auto_c[kind] <= jax_c[kind], f"{name} {mode}: jax.jit {_counts(jax_c)}, kernel auto {_counts(auto_c)}"
    assert sum(auto_c.values()) <= sum(jax_c.values())
    # No kernel call where an operand is split: the partitioner would have replicated it.
    assert "hlo_passes_gmm" not in got["auto"]["text"] and "hlo_passes_tgmm" not in got["auto"]["text"]
    for w, g in zip(got["jax"]["results"], got["auto"]["results"]):
        np.testing.assert_array_equal(g, w)  # the same program: bit for bit


@pytest.mark.parametrize("mode", ["forward", "train"])
@pytest.mark.parametrize("name", sorted(SHARDED))
def test_the_kept_ragged_dots_say_why(name: str, mode: str) -> None:
    """Each GMM the kernel did not take is listed with the reason: its operands may be split."""
    gmms = _compiled(name, mode)["gmms"]
    assert gmms and not any(g.lowered for g in gmms)
    split = [g for g in gmms if g.reason and "may be split across devices" in g.reason]
    assert split, [str(g) for g in gmms]
    for g in gmms:
        assert g.reason and ("split across devices" in g.reason or "stays a ragged-dot" in g.reason), str(g)


@pytest.mark.parametrize("mode", ["forward", "train"])
def test_replicated_operands_run_the_kernel_without_collectives(mode: str) -> None:
    """The control: on a mesh whose shardings split nothing, the kernel takes every GMM and no
    collective appears."""
    got = _compiled("replicated", mode)
    assert got["gmms"] and all(g.lowered for g in got["gmms"]), [str(g) for g in got["gmms"]]
    assert "hlo_passes_gmm" in got["auto"]["text"]
    assert sum(got["auto"]["collectives"].values()) == sum(got["jax"]["collectives"].values()) == 0
    for w, g in zip(got["jax"]["results"], got["auto"]["results"]):
        np.testing.assert_allclose(g, w, **TOL)


MOE_RULES = ["moe-gather-fusion", "moe-gradient-fusion", "moe-pair-gather-fusion", "moe-pair-gradient-fusion"]


@pytest.mark.parametrize("mode", ["forward", "train"])
@pytest.mark.parametrize("name", sorted({**SHARDED, **REPLICATED}))
def test_already_fused_weight_has_no_findings(name: str, mode: str) -> None:
    """Negative controls of the MoE rules (issue 32): the prefused ``w13`` fed whole to one GMM,
    expert-sharded (no gather), FSDP-, FSDP x TP-sharded or replicated: no site and no near miss in
    the StableHLO, the HLO before optimizations or the optimized module (shared with the tests
    above), the opt-in rules asked for too."""
    from hlo_passes.passes import run_passes

    fn, shardings, args = _program({**SHARDED, **REPLICATED}[name], mode)
    lowered = jax.jit(fn, in_shardings=shardings).lower(*args)
    texts = {"stablehlo": lowered.as_text(), "hlo": lowered.as_text(dialect="hlo"),
             "optimized": _compiled(name, mode)["jax"]["text"]}
    for stage, text in texts.items():
        result = run_passes(hlo_passes.parse(text), MOE_RULES)
        assert result.sites == [] and result.near_misses == [], (stage, [
            (f.rule, getattr(f, "check", f.form)) for f in [*result.sites, *result.near_misses]])


def _expert_parallel(mesh: Mesh) -> Callable:
    """Expert parallelism in a shard_map (as MaxText's and tokamax's EP layers write it): each
    device holds its experts' weights and the tokens routed to them, runs the GMM on its local
    group sizes, and the down projection's output is gathered along the expert axis."""
    local_e = E // mesh.shape["expert"]

    def body(x, gs, w13, w2):
        h = jax.lax.ragged_dot_general(x, w13.reshape(local_e, 2 * F, D), gs, _W13_DN)
        gate, up = jnp.split(h, 2, axis=-1)
        return jax.lax.ragged_dot(jax.nn.silu(gate) * up, w2, gs)

    def loss(params, x, gs):
        out = jax.shard_map(body, mesh=mesh, in_specs=(P("expert"), P("expert"), P("expert"), P("expert")),
                            out_specs=P("expert"))(x, gs, params["w13"], params["w2"])
        return jnp.mean(jnp.square(out))

    return jax.value_and_grad(loss)


def test_expert_local_gmms_in_a_shard_map_run_the_kernel_with_jax_collectives() -> None:
    """Inside a shard_map manual over every split axis the operands are the local pieces: the
    kernel takes the GMMs (and their gradients), and the collectives are exactly jax.jit's."""
    mesh = _mesh((8,), ("expert",))
    rng = np.random.default_rng(1)
    sh = NamedSharding(mesh, P("expert"))
    params = {"w13": jax.device_put(rng.standard_normal((E, 2, F, D), dtype=np.float32) / np.sqrt(D), sh),
              "w2": jax.device_put(rng.standard_normal((E, F, D), dtype=np.float32) / np.sqrt(F), sh)}
    # Each device's tokens, sorted by its one expert; device 1's expert gets no rows.
    local_gs = np.array([8, 0, 8, 8, 8, 8, 8, 8], np.int32)
    x = jax.device_put(rng.standard_normal((E * 8, D), dtype=np.float32), sh)
    gs = jax.device_put(local_gs, sh)
    fn = _expert_parallel(mesh)
    ours = hlo_passes.jit(fn, kernel="auto")
    low = ours.lower(params, x, gs)
    assert low.gmm_lowerings and all(g.lowered for g in low.gmm_lowerings), [str(g) for g in low.gmm_lowerings]
    texts = {who: j.lower(params, x, gs).compile().as_text() for who, j in (("jax", jax.jit(fn)), ("auto", ours))}
    assert "hlo_passes_gmm" in texts["auto"] and "hlo_passes_tgmm" in texts["auto"]
    assert count_collectives(texts["auto"]) == count_collectives(texts["jax"])
    want, got = jax.jit(fn)(params, x, gs), ours(params, x, gs)
    for w, g in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), **TOL)


# ---- which texts the kernel takes: each text form, without jax ----------------------------

_HLO = """HloModule m{header}

ENTRY main {{
  x = f32[12,8]{{1,0}} parameter(0)
  w = f32[3,8,4]{{2,1,0}} parameter(1){w_sharding}
  gs = s32[3]{{0}} parameter(2)
  {body}
}}
"""
_RAGGED = ("ragged-dot(x, {w}, gs), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}, lhs_ragged_dims={{0}}, "
           "rhs_group_dims={{0}}")
_SDY_MESH = ', frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=8]>}}'


def _hlo(w_sharding: str = "", header: str = "") -> str:
    """The weight parameter with ``w_sharding``, straight into the ragged-dot (a partitioned module)."""
    return _HLO.format(header=header, w_sharding=w_sharding,
                       body="ROOT rd = f32[12,4]{1,0} " + _RAGGED.format(w="w"))


def _hlo_constrained(sharding: str, extra: str = "", header: str = "") -> str:
    """Before partitioning: the weight parameter and a ``Sharding`` custom call of it, both with
    ``sharding`` (``extra``: more attributes of the parameter), into the ragged-dot."""
    body = (f'wc = f32[3,8,4]{{2,1,0}} custom-call(w), custom_call_target="Sharding", sharding={sharding}\n'
            "  ROOT rd = f32[12,4]{1,0} " + _RAGGED.format(w="wc"))
    return _HLO.format(header=header, w_sharding=f", sharding={sharding}{extra}", body=body)


_STABLEHLO = """module @m attributes {{mhlo.num_partitions = 8 : i32}} {{
  {mesh}
  func.func public @main(%x: tensor<12x8xf32>, %w: tensor<3x8x4xf32> {{{w_attr}}}, %gs: tensor<3xi32>) -> tensor<12x4xf32> {{
    %0 = "chlo.ragged_dot"(%x, %w, %gs) <{{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}}> : (tensor<12x8xf32>, tensor<3x8x4xf32>, tensor<3xi32>) -> tensor<12x4xf32>
    return %0 : tensor<12x4xf32>
  }}
}}
"""

# A shard_map body (manual over ``manual``) holding the ragged-dot; the weight split over "x" and "y".
_MANUAL = """module @m attributes {{mhlo.num_partitions = 8 : i32}} {{
  sdy.mesh @mesh = <["x"=4, "y"=2]>
  func.func public @main(%x: tensor<12x8xf32>, %w: tensor<12x8x4xf32> {{sdy.sharding = #sdy.sharding<@mesh, [{{"x"}}, {{}}, {{"y"}}]>}}, %gs: tensor<12xi32>) -> tensor<12x4xf32> {{
    %0 = sdy.manual_computation(%x, %w, %gs) in_shardings=[<@mesh, [{{}}, {{}}]>, <@mesh, [{{"x"}}, {{}}, {{{w_dim}}}]>, <@mesh, [{{"x"}}]>] out_shardings=[<@mesh, [{{}}, {{}}], replicated={{"x"}}>] manual_axes={{{manual}}} (%a: tensor<12x8xf32>, %b: tensor<3x8x{n}xf32>, %c: tensor<3xi32>) {{
      %1 = "chlo.ragged_dot"(%a, %b, %c) <{{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}}> : (tensor<12x8xf32>, tensor<3x8x{n}xf32>, tensor<3xi32>) -> tensor<12x{n}xf32>
      sdy.return %1 : tensor<12x{n}xf32>
    }} : (tensor<12x8xf32>, tensor<12x8x4xf32>, tensor<12xi32>) -> tensor<12x4xf32>
    return %0 : tensor<12x4xf32>
  }}
}}
"""

# name: text, whether the kernel takes its ragged-dot
TEXTS = {
    # Manual over every axis a sharding splits over: the body's values are the local pieces.
    "stablehlo_shard_map_all_axes": (_MANUAL.format(manual='"x", "y"', w_dim='"y"', n=2), True),
    # Manual over "x" only: "y" still splits the weight inside the body.
    "stablehlo_shard_map_partial": (_MANUAL.format(manual='"x"', w_dim='"y"', n=4), False),
    # No sharding at all (one device): nothing to split.
    "hlo_unsharded": (_hlo(), True),
    # Before partitioning, GSPMD: the weight tiled over 8 devices.
    "hlo_gspmd_tiled": (_hlo_constrained("{devices=[8,1,1]<=[8]}"), False),
    # A GSPMD tile that splits nothing: its devices all replicate.
    "hlo_gspmd_replicated": (_hlo_constrained("{devices=[1,1,1,8]<=[8] last_tile_dim_replicate}"), True),
    # After SPMD partitioning (a dump, optimized HLO): shapes are per device, shardings only
    # on the entry's parameters.
    "hlo_partitioned": (_hlo(", sharding={devices=[8,1,1]<=[8]}", header=", num_partitions=8"), True),
    # Shardy's export before partitioning: the weight split over "x" (GSPMD's tile restates it).
    "hlo_shardy_split": (_hlo_constrained("{devices=[8,1,1]<=[8]}", header=_SDY_MESH,
                                          extra=', frontend_attributes={xla.sdy.sharding='
                                                '"#sdy.sharding<@mesh, [{\\"x\\"}, {}, {}]>"}'), False),
    # jax 0.12's HLO: shardings that carry their mesh.
    "hlo_inline_mesh_split": (_hlo_constrained("{mesh['x'=8], [{'x'}, {}, {}]}"), False),
    "hlo_inline_mesh_replicated": (_hlo_constrained("{mesh['x'=8], [{}, {}, {}]}"), True),
    "stablehlo_sdy_split": (_STABLEHLO.format(mesh='sdy.mesh @mesh = <["x"=8]>',
                                              w_attr='sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>'), False),
    # A mesh of 8 whose shardings split nothing (open or empty dims).
    "stablehlo_sdy_replicated": (_STABLEHLO.format(mesh='sdy.mesh @mesh = <["x"=8]>',
                                                   w_attr='sdy.sharding = #sdy.sharding<@mesh, [{}, {?}, {}]>'),
                                 True),
    # An axis of size 1 splits nothing.
    "stablehlo_sdy_size_one_axis": (_STABLEHLO.format(mesh='sdy.mesh @mesh = <["x"=1, "y"=8]>',
                                                      w_attr='sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>'),
                                    True),
    "stablehlo_gspmd_tiled": (_STABLEHLO.format(mesh="", w_attr='mhlo.sharding = "{devices=[8,1,1]<=[8]}"'), False),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_kernel_takes_a_ragged_dot_only_where_nothing_is_split(name: str) -> None:
    from hlo_passes.lowering import lower_gmms

    text, takes = TEXTS[name]
    module = hlo_passes.parse(text)
    (record,) = lower_gmms(module, "cpu-ffi")
    assert record.lowered is takes, str(record)
    if not takes:
        assert "may be split across devices" in (record.reason or ""), str(record)
        assert "hlo_passes_gmm" not in module.to_text()
