"""Sites whose collectives are held as XLA:GPU and XLA:TPU hold them, executed.

The fixtures of tests/fixtures/*/async.hlo and combined.hlo (the compiled.hlo cases with
their collectives made asynchronous pairs or combined into tuple ops by hand) are
rewritten by the rules and run, original and rewritten, as the module of a jitted
shard_map over the 4 CPU devices its collectives name: a module transformation hands XLA the fixture in place of
the module it was compiling (the entry signature is the same), so XLA:CPU compiles and
runs exactly the fixture's text.  Outputs are compared per device, bit-equal (the rewrite
moves collectives, no arithmetic).

XLA:CPU runs combined (tuple) all-gathers and reductions as written.  It does not run
asynchronous collectives (its thunk emitter refuses ``all-gather-start``:
``test_cpu_does_not_run_async_collectives`` holds that fact), so the async fixtures run
with each pair made synchronous first (``split.held.unhold(mark=False)``: the pair's
collective where its start was, as XLA:GPU's ConvertAsyncCollectivesToSync makes it),
the original and the rewritten module alike; the async form itself is checked by XLA's
parser (tests/test_rule_fixtures_xla.py) and the FileCheck lines.

The collective pipeliner's loops (pipelined.hlo) are not run from the hand-written fixtures:
substituted so, XLA:CPU computed values that differ from numpy's for the rows a gather inside
the loop brings from the other device, rewritten or not (the same values both ways).  The
loop is run as XLA's own module of a jax program pipelined by hand
(``test_pipelined_loop_rewritten_and_run``).
"""
from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, PartitionSpec as P

import hlo_passes
from examples import moe
from examples.dump_programs import DUMP_PROGRAMS
from fixture_harness import FIXTURES, Case, cases_of
from held_forms import hold
from hlo_passes import _jax_compat as compat
from hlo_passes.ir.rewriter import Rewriter
from hlo_passes.passes import run_passes
from hlo_passes.passes.compiled import rewrite_compiled_text
from hlo_passes.rewrites.split.held import held_kind, unhold

pytestmark = pytest.mark.jax_facing

# (Not the halves XLA's combiner already reduced in one op: a near miss, xla-combined, left as it is.)
ASYNC = [c for f in ("moe-gather-fusion/async.hlo", "moe-gradient-fusion/async.hlo") for c in cases_of(FIXTURES / f)
         if "REPORT:      sites: 0" not in c.text]
COMBINED = cases_of(FIXTURES / "moe-gather-fusion" / "combined.hlo")
KINDS = ("all-gather", "all-reduce", "reduce-scatter")
_names = itertools.count()


@contextlib.contextmanager
def transforming(callback: Callable[[bytes], bytes | None]) -> Iterator[None]:
    """``callback`` registered as a module transformation on CPU for the block."""
    name = f"test_held_{next(_names)}"
    compat.register_module_transformation(callback, name, platforms=["cpu"])
    try:
        yield
    finally:
        compat.clear_module_transformation(name, platforms=["cpu"])


_NUMPY = {"f32": np.float32}  # the fixtures' element types


def run_in_place_of_jit(text: str, per_device: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Run the per-device module ``text`` on as many CPU devices as ``per_device`` has entries
    (``per_device[d]``: device ``d``'s arguments); the results of each device."""
    module = hlo_passes.parse(text)
    entry = module.entry
    assert entry is not None and entry.root is not None
    result = entry.root.shape
    outs = result.tuple_shapes if result.is_tuple else (result,)
    devices = len(per_device)
    mesh = Mesh(np.array(jax.devices()[:devices]), ("d",))

    def body(*args):
        # Only the shapes matter: XLA compiles the fixture in this module's place (this body's
        # zeros would show if it did not: ``_equal``).
        total = sum(jnp.sum(a.astype(jnp.float32)) for a in args)
        made = tuple(jnp.zeros(s.dims, _NUMPY[s.element_type]) * total for s in outs)
        return made if result.is_tuple else made[0]

    spec = (P("d"),) * len(per_device[0])
    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=P("d") if not result.is_tuple
                               else (P("d"),) * len(outs), check_vma=False))
    args = [np.concatenate([dev[k] for dev in per_device]) for k in range(len(per_device[0]))]
    handed: list[str] = []

    def substitute(serialized: bytes) -> bytes | None:
        if handed:
            return None
        handed.append(compat.hlo_module_from_proto(serialized).name)
        return compat.hlo_text_to_proto(text)

    with transforming(substitute):
        got = fn(*args)
    assert handed, "XLA compiled no module for the jitted function"
    return [[np.asarray(a)[d * (a.shape[0] // devices):(d + 1) * (a.shape[0] // devices)]
             for a in (got if result.is_tuple else [got])] for d in range(devices)]


def _inputs(text: str) -> list[list[np.ndarray]]:
    """Random arguments for each device the module's collectives run over."""
    module = hlo_passes.parse(text)
    entry = module.entry
    assert entry is not None
    devices = max(i.attributes["replica_groups"].num_devices for i in module.instructions()
                  if "replica_groups" in i.attributes)
    rng = np.random.default_rng(0)
    return [[rng.standard_normal(p.shape.dims).astype(_NUMPY[p.shape.element_type]) for p in entry.parameters]
            for _ in range(devices)]


def _synchronous(text: str) -> str:
    """``text`` with every async pair and combined op of the MoE rules' collectives taken
    apart for good (what XLA:CPU runs)."""
    module = hlo_passes.parse(text)
    unhold(Rewriter(module), module, KINDS, mark=False)
    return module.to_text()


def _held(text: str) -> list[tuple[str, int]]:
    """(collective, operands) of each held op, in program order."""
    return [(kind, len(i.operands)) for i in hlo_passes.parse(text).instructions()
            if (kind := held_kind(i)) is not None]


def _rewritten(case: Case) -> tuple[str, str, int]:
    result = run_passes(hlo_passes.parse(case.module_text), [case.pass_name])
    assert result.sites and all(s.rewritten for s in result.sites)
    assert all(m.check == "loop-carried" for m in result.near_misses), [str(m) for m in result.near_misses]
    saved = sum(s.before.count - s.after.count for s in result.sites)
    return case.module_text, result.module.to_text(), saved


def _equal(got: list[list[np.ndarray]], want: list[list[np.ndarray]]) -> None:
    assert any(np.any(w) for dev in want for w in dev)  # the fixture ran, not the stand-in body's zeros
    for g_dev, w_dev in zip(got, want, strict=True):
        for g, w in zip(g_dev, w_dev, strict=True):
            np.testing.assert_array_equal(g, w)


def _gathered_operands(text: str) -> int:
    """Operands of every collective of the rules (a combined op counts each), sync or async."""
    return sum(len(i.operands) for i in hlo_passes.parse(text).instructions()
               if i.opcode in KINDS or held_kind(i) is not None)


@pytest.mark.parametrize("case", COMBINED, ids=lambda c: c.name)
def test_combined_fixture_runs_equal(case: Case) -> None:
    """Combined (tuple) all-gathers run on XLA:CPU as written: original and rewritten, bit-equal."""
    before, after, saved = _rewritten(case)
    assert any(n > 1 for _, n in _held(before))
    assert _gathered_operands(after) == _gathered_operands(before) - saved
    args = _inputs(before)
    _equal(run_in_place_of_jit(after, args), run_in_place_of_jit(before, args))


@pytest.mark.parametrize("case", ASYNC, ids=lambda c: c.name)
def test_async_fixture_runs_equal_made_synchronous(case: Case) -> None:
    """The async pairs, rewritten into one pair, run made synchronous (the original alike): bit-equal."""
    before, after, saved = _rewritten(case)
    pairs_before, pairs_after = _held(before), _held(after)
    assert pairs_before and pairs_after
    assert sum(n for _, n in pairs_after) == sum(n for _, n in pairs_before) - saved
    args = _inputs(before)
    _equal(run_in_place_of_jit(_synchronous(after), args), run_in_place_of_jit(_synchronous(before), args))


def test_cpu_does_not_run_async_collectives() -> None:
    """Why the async fixtures run made synchronous: XLA:CPU's thunk emitter refuses the pairs
    (when it stops refusing, run them as written)."""
    text = ASYNC[0].module_text
    with pytest.raises(Exception, match="all-gather-start.* not supported by XLA:CPU"):
        run_in_place_of_jit(text, _inputs(text))


_WRAPPED_GATHER_WITH_UPDATE = """HloModule wrapped_gather, is_scheduled=true

%wrapped (p: f32[2,8,4]) -> f32[2,32,4] {
  %p = f32[2,8,4]{2,1,0} parameter(0)
  ROOT %ag = f32[2,32,4]{2,1,0} all-gather(%p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}
}

ENTRY %main (w: f32[2,8,4]) -> f32[2,32,4] {
  %w = f32[2,8,4]{2,1,0} parameter(0)
  %start = ((f32[2,8,4]{2,1,0}), f32[2,32,4]{2,1,0}) async-start(%w), calls=%wrapped
  %update = ((f32[2,8,4]{2,1,0}), f32[2,32,4]{2,1,0}) async-update(%start)
  ROOT %done = f32[2,32,4]{2,1,0} async-done(%update)
}
"""


def test_xla_prints_an_all_gather_update_its_parser_refuses() -> None:
    """Why ``all-gather-update`` is not taken apart: it is XLA's print of an async-update of an
    all-gather wrapped in an async-start, which XLA's own parser refuses (all-gather has native
    start/done ops; jaxlib's print options cannot turn the sugar off).  Such a module cannot
    come back to XLA as text: hlo_passes' parser refuses it alike (the pass inside XLA keeps
    XLA's module, with a fallback warning), where ``reduce-scatter-update`` is read, taken apart
    and held again (moe-gradient-fusion/async.hlo)."""
    printed = compat.hlo_module_from_text(_WRAPPED_GATHER_WITH_UPDATE).to_string()
    assert " all-gather-update(%start)" in printed
    with pytest.raises(Exception, match="all-gather-update"):
        compat.hlo_module_from_text(printed)
    with pytest.raises(hlo_passes.ParseError, match="all-gather-update"):
        hlo_passes.parse(printed)

# ---- XLA:CPU's own optimized modules, their collectives held -----------------------------

PROGRAMS = [("mesh1_concat_explicit_grad", "async"), ("mesh1_concat_explicit_grad", "combined"),
            ("mesh1_concat_explicit_grad", "async+combined"), ("mesh2_concat_implicit_scan_grad_permuted", "async")]


@functools.cache
def _plain(program: str) -> tuple[Any, tuple[str, ...]]:
    """The program's outputs under plain jax.jit, and the forms of the sites the rules rewrite
    in the module XLA compiles for it."""
    fn, args = moe.build(DUMP_PROGRAMS[program])
    texts: list[str] = []
    with transforming(lambda s: texts.append(compat.hlo_module_from_proto(s).to_string())):
        want = fn(*args)
    (text,) = [t for t in texts if "all-gather" in t]
    _, sites, _ = rewrite_compiled_text(text, program)
    return want, tuple(s.form for s in sites if s.rewritten)


@pytest.mark.parametrize(("program", "form"), PROGRAMS, ids=[f"{p}-{f}" for p, f in PROGRAMS])
def test_compiled_program_held_rewritten_and_run(program: str, form: str) -> None:
    """The module XLA:CPU compiles for a dump program (forward gather and weight-gradient
    reduce-scatter; the scan's inside a while body), its collectives held as GPU and TPU
    pipelines hold them (tests/held_forms.py), rewritten as the pass inside XLA rewrites it
    (``rewrite_compiled_text``) and run in the program's place: the same sites as in the
    plain module, collectives held again and fewer by the sites, outputs bit-equal to jax.jit's
    (async pairs made synchronous to run on CPU, as above)."""
    want, forms = _plain(program)
    assert forms
    seen: list[tuple[str, str, list]] = []

    def rewrite_held(serialized: bytes) -> bytes | None:
        text = compat.hlo_module_from_proto(serialized).to_string()
        if "all-gather" not in text:
            return None
        held = hold(text, asynchronous="async" in form, combine="combined" in form)
        new, sites, _ = rewrite_compiled_text(held, program)
        assert new is not None
        seen.append((held, new, sites))
        return compat.hlo_text_to_proto(_synchronous(new) if "async" in form else new)

    fn, args = moe.build(DUMP_PROGRAMS[program])
    with transforming(rewrite_held):
        got = fn(*args)
    ((held, new, sites),) = seen
    if "combined" in form:
        assert any(n > 1 for _, n in _held(held)), "nothing combined"
    assert tuple(s.form for s in sites if s.rewritten) == forms
    for site in sites:
        assert site.location.line > 0 and held.split("\n")[site.location.line - 1].strip()
    saved = sum(s.before.count - s.after.count for s in sites)
    assert _gathered_operands(new) == _gathered_operands(held) - saved
    if "async" in form:  # every collective of the rules a pair again (or combined, as XLA:CPU left it)
        assert not any(i.opcode in KINDS and not i.shape.is_tuple for i in hlo_passes.parse(new).instructions())
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# ---- the collective pipeliner's form, as XLA:CPU compiles a loop pipelined by hand ---------

def _pipelined_program(rejoin: bool | str = False) -> tuple[Any, np.ndarray]:
    """A scan over 3 layers whose body gathers the next layer's halves (carried in the loop
    state; the first layer's gathered before the loop), as XLA's collective pipeliner makes it.
    Each iteration multiplies the halves it was handed, or (``rejoin``) joins them again
    (``concatenate``, then element-wise: XLA:CPU fuses them into one loop fusion), and
    (``rejoin="and apart"``) also adds the first half on its own to the joined halves' left side."""
    mesh = Mesh(np.array(jax.devices()[:4]), ("d",))
    f = 4

    def halves(w):
        return (jax.lax.all_gather(w[..., :f], "d", axis=1, tiled=True),
                jax.lax.all_gather(w[..., f:], "d", axis=1, tiled=True))

    def use(gate, up):
        if not rejoin:
            return gate * up
        joined = jnp.tanh(jnp.concatenate([gate, up], axis=-1))
        return joined.at[..., :f].add(gate) if rejoin == "and apart" else joined

    def body(ws):
        def step(i, carry):
            gate, up, acc = carry
            return (*halves(jax.lax.dynamic_index_in_dim(ws, i + 1, keepdims=False)), acc + use(gate, up))

        gate, up = halves(ws[0])
        acc = jnp.zeros((2, 8, 2 * f) if rejoin else gate.shape, jnp.float32)
        gate, up, acc = jax.lax.fori_loop(0, ws.shape[0] - 1, step, (gate, up, acc))
        return acc + use(gate, up)

    fn = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P(None, None, "d"), out_specs=P(), check_vma=False))
    return fn, np.random.default_rng(0 if not rejoin else 1).standard_normal((3, 2, 8, 2 * f)).astype(np.float32)


def _pipelined_run(form: str, rejoin: bool | str) -> tuple[Any, Any, tuple[str, str, list, list]]:
    """jax.jit's outputs of ``_pipelined_program(rejoin)``, and those of XLA:CPU's module of it
    rewritten inside XLA (its gathers made async pairs for ``async``, and synchronous again to
    run); with (the module rewritten, the new text, the sites, the near misses)."""
    fn, ws = _pipelined_program(rejoin)
    want = fn(ws)
    seen: list[tuple[str, str, list, list]] = []

    def rewrite(serialized: bytes) -> bytes | None:
        text = compat.hlo_module_from_proto(serialized).to_string()
        if "all-gather" not in text:
            return None
        held = hold(text, asynchronous=True, combine=False) if form == "async" else text
        new, sites, near = rewrite_compiled_text(held, "pipelined")
        assert new is not None
        seen.append((held, new, sites, near))
        return compat.hlo_text_to_proto(_synchronous(new) if form == "async" else new)

    fn, ws = _pipelined_program(rejoin)
    with transforming(rewrite):
        got = fn(ws)
    (one,) = seen
    return want, got, one


@pytest.mark.parametrize("form", ["plain", "async"])
def test_pipelined_loop_rewritten_and_run(form: str) -> None:
    """XLA:CPU's module of the hand-pipelined loop (its gathers made async pairs for ``async``):
    the body's round and the peeled round are each a split_gather site (gathers 4 -> 2), and
    the rewritten module, run in the program's place, computes jax.jit's outputs bit for bit."""
    want, got, (held, new, sites, _) = _pipelined_run(form, rejoin=False)
    loop = next(i for i in hlo_passes.parse(held).instructions() if i.opcode == "while")
    body = loop.called_computations[[c.name for c in loop.called_computations].index(
        str(loop.attributes["body"]).lstrip("%"))].name
    assert sorted(s.location.computation == body for s in sites) == [False, True]  # peeled, and the body's
    assert all(s.form == "split_gather" and s.rewritten for s in sites)
    assert (_gathered_operands(held), _gathered_operands(new)) == (4, 2)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("form", ["plain", "async"])
def test_pipelined_halves_joined_in_the_next_iteration_carried_whole(form: str) -> None:
    """XLA:CPU's module of a pipelined loop whose next iteration concatenates the carried halves
    (its gathers made async pairs for ``async``): each round's gathers are rewritten (4 -> 2), the
    loop then carries the gathered weight whole (one state element fewer, the body's slices and
    the concatenate of the halves gone), and the module computes jax.jit's outputs bit for bit
    (async pairs made synchronous to run, as above)."""
    want, got, (text, new, sites, near) = _pipelined_run(form, rejoin=True)
    assert [s.form for s in sites if s.rewritten] == ["split_gather", "split_gather"]
    assert (_gathered_operands(text), _gathered_operands(new)) == (4, 2)
    assert not near, [str(m) for m in near]
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    loops = [next(i for i in hlo_passes.parse(t).instructions() if i.opcode == "while") for t in (text, new)]
    before, after = (loop.shape.tuple_shapes for loop in loops)
    assert len(after) == len(before) - 1
    gathered = next(i for i in hlo_passes.parse(_synchronous(new)).instructions() if i.opcode == "all-gather").shape

    def spelled(shapes: Any) -> list[tuple]:
        return [(s.dims, s.layout) for s in shapes]

    # The weight whole, in the gather's layout, in the state.
    assert (gathered.dims, gathered.layout) in spelled(after) and (gathered.dims, gathered.layout) not in spelled(before)
    body = loops[1].called_computations[[c.name for c in loops[1].called_computations].index(
        str(loops[1].attributes["body"]).lstrip("%"))]
    assert not any(i.opcode in ("slice", "concatenate") for i in body.instructions)
    assert not any(i.opcode in ("slice", "concatenate") for i in _fused(body))


def _fused(comp: Any) -> list[Any]:
    """The ops of the fusions ``comp`` holds."""
    return [i for f in comp.instructions if f.opcode == "fusion" for c in f.called_computations for i in c.instructions]


def test_pipelined_halves_joined_again_named_in_lint() -> None:
    """Without rewriting (the lint), the carried halves joined again in the next iteration are
    named: ``loop-carried`` at the fusion holding the concatenate."""
    fn, ws = _pipelined_program(rejoin=True)
    text = fn.lower(ws).compile().as_text()
    result = run_passes(hlo_passes.parse(text), ["MOE001"], rewrite=False)
    misses = [m for m in result.near_misses if "joins the loop state's elements" in m.reason]
    assert misses and {m.check for m in misses} == {"loop-carried"}


def test_pipelined_halves_joined_and_read_apart_stay_named() -> None:
    """The next iteration joins the carried halves and reads the first one on its own too: the
    loop keeps carrying two halves (the join does not compute everything read of them), the
    join is named ``loop-carried``; the gathers are rewritten all the same (4 -> 2), bit-equal."""
    want, got, (text, new, sites, near) = _pipelined_run("plain", rejoin="and apart")
    assert [s.form for s in sites if s.rewritten] == ["split_gather", "split_gather"]
    assert (_gathered_operands(text), _gathered_operands(new)) == (4, 2)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    loops = [next(i for i in hlo_passes.parse(t).instructions() if i.opcode == "while") for t in (text, new)]
    assert len(loops[1].shape.tuple_shapes) == len(loops[0].shape.tuple_shapes)
    assert {m.check for m in near} == {"loop-carried"}
    assert any("joins the loop state's elements" in m.reason for m in near)

