"""Opening the fusions a site of optimized HLO runs through, so that the engine rewrites it.

In the module XLA compiles (post-partitioning, post-layout, post-fusion: what a
pass inside XLA's pipeline receives, and what a dump's ``after_optimizations``
holds) each half's slice sits in a ``copy_slice_fusion``, layout copies in
``wrapped_copy`` fusions, the concatenate in the fusion that reads the gathered
halves.  ``fusions`` sees the pattern through them; to rewrite it, the fusions
on the site's path are opened (their ops put in their place, ``Rewriter.inline``):
the site is then the after-partitioning form the engine rewrites, with every op
keeping its layout.  XLA:CPU and XLA:GPU compile the ops of a loop fusion
unfused just as well; what the site's fusions did besides the pattern (a
transpose, a bitcast after the concatenate) becomes separate ops, a memory
pass each over the gathered weight, against the collective saved.

``fuse_again`` does the reverse once the module is rewritten: the ops a rule left unfused
that XLA emits as loops go back in loop fusions, a chain of them (each read only by the
next) in one, a lone op in its own as XLA's fusion wrapper does.
XLA:CPU compiles one kernel for equal fusions but one per unfused op: the 60-layer module
handed back with its sites opened and not fused again took XLA 2.1x as long to compile
(docs/xla-pass.md).

Opening both halves' slice fusions repeats what each computed before slicing
(a layout copy of the weight, one layer's weight read out of the scan's stack):
equal ops on equal operands are merged, as XLA's CSE would, so that the halves
are slices of one array again.
"""
from __future__ import annotations

from typing import Any

from ...checks import Refusal
from ...ir import Computation, Instruction, Module, Value
from ...ir.module import created_by
from ...ir.op_table import Trait, op
from ...ir.rewriter import Rewriter
from ...ir.analysis import behaviour
from .fusions import NOT_MERGED, copy_fusion_for, emitted_as_loop, fusion_kind
from ...pass_interface import Changes, PassContext, Stage

# Fusions whose ops may be put in their place: loop and input (reduction) fusions are
# element-wise or data-moving ops the backends emit unfused as well; a custom fusion (a
# library call, XLA:CPU's ``__ynn_fusion`` dot) or an output fusion is one kernel.
OPENABLE = frozenset({"kLoop", "kInput"})

def _mergeable(instr: Instruction) -> bool:
    d = op(instr.opcode)
    return d is not None and instr.opcode != "parameter" and not (d.traits & NOT_MERGED)


def closed_fusion(fusions: list[Instruction]) -> Refusal | None:
    """Why one of ``fusions`` cannot be opened (None: all can)."""
    for f in fusions:
        kind = fusion_kind(f)
        if kind not in OPENABLE:
            return Refusal("fusion-kind", f"{f.ref} is a {kind or 'fusion of unknown kind'}, one kernel the "
                                          "site cannot be taken out of (loop and input fusions can)", f)
    return None


# How far up from a site's starts its own readers of a fusion are looked for (``own_readers``).
MAX_ANCESTORS = 256


def keep_for_others(rw: Rewriter, fusions: list[Instruction], starts: list[Instruction]) -> None:
    """Give the readers of ``fusions`` that are not on the way to ``starts`` (the site's own ops:
    ``starts`` and what they are computed from) a copy of the fusion of their own, so that
    opening it leaves their site as it was.  XLA's CSE merges a fusion that slices and converts a
    weight's shard for the forward's collective-permutes with the equal one of the
    ``jax.checkpoint`` recomputation (MaxText's ``fsdp_transpose`` layout): opened for the
    forward's site, the recomputation's would read half opened ops and half fused ones."""
    own = _ancestors(starts)
    if own is None:
        return
    for fusion in fusions:
        if fusion.computation is None or fusion_kind(fusion) not in OPENABLE or len(fusion.called_computations) != 1:
            continue
        others = [u for u in fusion.users if id(u) not in own]
        if others and len(others) < len(fusion.users):
            copy_fusion_for(rw, fusion, others)


def _ancestors(starts: list[Instruction]) -> set[int] | None:
    """``starts`` and the ops of their computations they are computed from (None: more than
    MAX_ANCESTORS, not looked through)."""
    seen: dict[int, Instruction] = {}
    todo = list(starts)
    while todo:
        instr = todo.pop()
        if id(instr) in seen:
            continue
        seen[id(instr)] = instr
        if len(seen) > MAX_ANCESTORS:
            return None
        todo.extend(o for o in instr.operands if o.computation is instr.computation)
    return set(seen)


def open_fusions(rw: Rewriter, fusions: list[Instruction]) -> dict[int, Value]:
    """Put each of ``fusions`` (distinct, openable) in its place and merge the equal ops this
    repeats; the new value of each op of their bodies, by ``id`` of the op."""
    opened: dict[int, Value] = {}
    created: list[Instruction] = []
    # In program order: an op merged into an equal one reads it from before its own place.
    # (A fusion an earlier site opened is gone: a slice both sites read.)
    for fusion in sorted((f for f in fusions if f.computation is not None), key=_place):
        root = fusion.called_computations[0].root if fusion.called_computations else None
        new = rw.inline(fusion)
        if root is not None and root.opcode == "tuple":
            _fold_tuple_reads(rw, new[id(root)].op)
        opened.update(new)
        created.extend(v.op for v in new.values() if v.op.computation is not None and v.op.opcode != "parameter")
    merged = _merge_equal(rw, created)
    return {k: Value(merged.get(id(v.op), v.op), v.result) for k, v in opened.items()}


def _fold_tuple_reads(rw: Rewriter, tup: Instruction) -> None:
    """A multi-output fusion opened (XLA:TPU's one loop fusion slicing both halves): its
    ``get-tuple-element`` readers read the tuple's elements themselves, and the tuple goes."""
    for gte in list(tup.users):
        index = gte.attributes.get("index") if gte.opcode == "get-tuple-element" else None
        if index is None or not 0 <= int(index) < len(tup.operands):
            continue
        rw.replace_all_uses(gte, tup.operand_values[int(index)])
        rw.erase(gte)
    if not tup.users:
        rw.erase(tup)


# The computations whose ops run one after another (not a fusion's body, not a reducer).
_SEQUENTIAL_CALLERS = frozenset({"while", "conditional", "call"})


class FuseAgain(Stage):
    """``fuse_again`` as a pipeline stage: what the pass inside XLA runs after the rules, when
    they rewrote (journaled and verified as a rule's round is)."""

    name = "fuse-again"

    def run(self, module: Module, rewriter: Rewriter, context: PassContext) -> Changes:
        return Changes(changed=fuse_again(rewriter, module) > 0)


def fuse_again(rw: Rewriter, module: Module) -> int:
    """In an optimized module (XLA's fusion passes have run), put the ops a rule created that
    XLA emits as loops and that stand outside any fusion back in loop fusions (a chain in one,
    ``_chains_of_loop_ops``), through ``rw`` (a stage's: the fusions carry no rule's tag); how
    many fusions.  Only in the entry and the computations of loops, branches and calls: a
    fusion's body or a reducer stays as it is."""
    sequential: dict[int, bool] = {}
    for instr in module.instructions():
        for comp in instr.called_computations:
            sequential[id(comp)] = sequential.get(id(comp), True) and instr.opcode in _SEQUENTIAL_CALLERS
    wrapped = 0
    for comp in list(module.computations.values()):
        if comp.parent is not None or not sequential.get(id(comp), comp is module.entry):
            continue
        for group in _chains_of_loop_ops([i for i in comp.instructions
                                          if created_by(i) is not None and emitted_as_loop(i)]):
            rw.wrap_in_fusion(group)
            wrapped += 1
    return wrapped


def _chains_of_loop_ops(ops: list[Instruction]) -> list[list[Instruction]]:
    """``ops`` (in program order) in groups that one loop fusion can hold: an op joins the group
    of an operand whose only reader it is (convert → copy → convert before a gather: one kernel,
    as XLA fused it before the site was opened)."""
    group_of: dict[int, list[Instruction]] = {}
    groups: list[list[Instruction]] = []
    for instr in ops:
        joined = next((group_of[id(o)] for o in instr.operands
                       if id(o) in group_of and group_of[id(o)][-1] is o and len(o.users) == 1), None)
        if joined is None:
            joined = []
            groups.append(joined)
        joined.append(instr)
        group_of[id(instr)] = joined
    return groups


def _place(instr: Instruction) -> tuple[int, int]:
    comp = instr.computation
    assert comp is not None
    return id(comp), comp.instructions.index(instr)


def _key(instr: Instruction) -> Any:
    return (behaviour(instr), tuple(instr.shape.dims), instr.shape.layout_text if instr.shape.is_array else None,
            tuple((id(o), r) for o, r in zip(instr.operands, [v.result for v in instr.operand_values])),
            tuple(id(c) for c in instr.called_computations))


def _merge_equal(rw: Rewriter, created: list[Instruction]) -> dict[int, Instruction]:
    """Merge equal ops among ``created`` (in program order, so operands merge first); which
    op each merged one became, by ``id``."""
    seen: dict[Any, Instruction] = {}
    merged: dict[int, Instruction] = {}
    for instr in created:
        if not _mergeable(instr) or instr.computation is None:
            continue
        try:
            key = (id(instr.computation), _key(instr))
        except (TypeError, ValueError):  # an attribute that does not decode or hash: keep the op
            continue
        kept = seen.setdefault(key, instr)
        if kept is not instr:
            rw.replace_all_uses(instr, kept)
            rw.erase(instr)
            merged[id(instr)] = kept
    return merged
