"""The one way a rule (or a lowering) changes a module: ``Rewriter``.

Every mutation of a module outside the IR layer and the parsers goes through a
rewriter (``tests/test_rewriter.py`` holds the package to it with an AST check).
The rewriter knows its module and the rule it works for, so what used to be kept
by convention at every call site is done once, here:

* new ops get a fresh unique name; they are spelled with their opcode in both
  dialects (``slice``: the IR speaks opcodes), which the dialect's printer
  writes in its own names (``stablehlo.slice``, a call as ``func.call``);
* they are tagged with the rule (``ir.tag_created``: a frontend attribute that
  survives XLA's passes, and ``dialect_data["created_by"]``);
* ``like=`` carries the source location (HLO metadata, MLIR ``loc``) of the op
  a new one stands in for;
* what changed is marked for the printer (through ``ir``'s own methods), and
  every change is recorded in ``journal``: typed entries naming instructions,
  from which ``run_passes`` learns whether a pass changed anything; the
  computations a change can have made wrong (where an op was created, changed,
  erased, or read a value that changed) are kept in ``touched``, the part of the
  module the pipeline's verifier looks at again.

``DryRunRewriter`` is what a rule gets in lint mode (``rewrite=False``): it
raises ``DryRunError`` on the first request to mutate, so "lint changes
nothing" is enforced, not trusted.

Tagging is deferred inside ``batch()`` (the engine rewrites a site in one):
an op gets its tag when the batch ends, after the attributes the batch gave
it, which is the attribute order the printed text has always had.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from .module import Computation, Instruction, Module, Shape, Value, tag_created

__all__ = [
    "AttributeSet", "Change", "ComputationChanged", "Created",
    "DryRunError", "DryRunRewriter", "Erased", "Operand", "OperandsChanged", "Renamed", "Reordered", "Rewriter",
    "ShapeChanged", "Trial", "UsesReplaced",
]


# ---- the change journal -------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One entry of a rewriter's journal; ``name`` is the instruction's (or computation's)."""

    name: str


@dataclass(frozen=True)
class Created(Change):
    opcode: str
    computation: str


@dataclass(frozen=True)
class Erased(Change):
    opcode: str


@dataclass(frozen=True)
class UsesReplaced(Change):
    by: str
    uses: int


@dataclass(frozen=True)
class AttributeSet(Change):
    key: str
    removed: bool = False


@dataclass(frozen=True)
class OperandsChanged(Change):
    """An operand set, removed, or read at another result; ``what`` says which."""

    what: str
    index: int


@dataclass(frozen=True)
class ShapeChanged(Change):
    """The op's result shape, or its number of results, changed."""


@dataclass(frozen=True)
class Renamed(Change):
    old: str


@dataclass(frozen=True)
class Reordered(Change):
    """A computation's instructions put in another program order."""


@dataclass(frozen=True)
class ComputationChanged(Change):
    """A computation added to the module or removed from it (``what``)."""

    what: str


# What an op may read: a result of an op (``Value``), or an op with one result.
Operand = Instruction | Value


def as_value(operand: Operand) -> Value:
    return operand if isinstance(operand, Value) else Value(operand)


class DryRunError(RuntimeError):
    """A rule asked a dry-run rewriter (lint mode) to change the module: a bug of the rule."""


# Per-dialect data that describes the op itself (its MLIR attribute entries, spelling and
# location), not its result names or source positions, so a clone may carry it.
_CLONED_DIALECT_DATA = frozenset({"entries", "generic", "loc", "words", "simple", "n_succ_operands"})


class Rewriter:
    """Mutations of ``module`` on behalf of ``rule`` (the tag of the ops it creates; None:
    created ops are not tagged), each recorded in ``journal``."""

    dry_run = False

    def __init__(self, module: Module, rule: str | None = None) -> None:
        self.module = module
        self.rule = rule
        self.journal: list[Change] = []
        # The computations changes were made in (or to the readers of a changed value), by id.
        self._touched: dict[int, Computation] = {}
        self._pending: list[Instruction] | None = None  # ops to tag when the batch ends

    def __repr__(self) -> str:
        return f"<{type(self).__name__} for {self.rule or 'no rule'}: {len(self.journal)} change(s)>"

    @property
    def changed(self) -> bool:
        return bool(self.journal)

    @property
    def touched(self) -> list[Computation]:
        """The computations a change may have made inconsistent, in the order first touched."""
        return list(self._touched.values())

    def _touch(self, *instrs: Instruction) -> None:
        """Note the computations of ``instrs`` (ops changed, or ops reading a changed value)."""
        for instr in instrs:
            comp = instr.computation
            if comp is not None:
                self._touched.setdefault(id(comp), comp)

    def _touch_readers(self, instr: Instruction) -> None:
        self._touch(instr, *instr.users)

    def _mutate(self, what: str, name: str) -> None:
        """Called first by every mutating method (the dry run refuses here)."""

    def _record(self, change: Change) -> None:
        self.journal.append(change)

    # ---- tags -----------------------------------------------------------------------
    @contextmanager
    def trial(self) -> Iterator[Trial]:
        """A throwaway copy of the module to try a pass on first (``Trial``: the copy, a rewriter
        that prepares it, and one of this rewriter's mode that the pass is tried with); what
        the trial finds decides what is done through this rewriter.  Neither trial rewriter's
        journal is this one's: the copy is released when the block ends."""
        copy = self.module.clone()
        try:
            prepare = Rewriter(copy, self.rule)
            yield Trial(copy, prepare, DryRunRewriter(copy, self.rule) if self.dry_run else prepare)
        finally:
            copy.release()  # freed now, not by a full collection later (Module.release)

    @contextmanager
    def batch(self) -> Iterator["Rewriter"]:
        """Changes made as one (a site's rewrite): the ops created inside are tagged when it
        ends, after whatever attributes the batch set on them."""
        if self._pending is not None:  # nested: the outer batch tags
            yield self
            return
        self._pending = []
        try:
            yield self
        finally:
            pending, self._pending = self._pending, None
            for instr in pending:
                self._tag(instr)

    def _tag(self, instr: Instruction) -> None:
        if self.rule is not None:
            tag_created(instr, self.rule)

    # ---- creating ops ---------------------------------------------------------------
    def create(self, opcode: str, shape: Shape, operands: Sequence[Operand] = (),
               attributes: dict[str, Any] | None = None, *,
               computation: Computation | None = None, before: Instruction | None = None,
               after: Instruction | None = None, name_hint: str | None = None,
               like: Instruction | None = None, called: Sequence[Computation] | None = None) -> Instruction:
        """A new op ``opcode`` on ``operands`` (values, or ops read at their one result), placed
        right before ``before`` or after ``after`` (else at the end of ``computation``, before its
        terminator); named after ``name_hint`` (else the opcode), spelled with its opcode, tagged
        with the rule, with the location of ``like``."""
        comp = computation or (before.computation if before is not None else
                               after.computation if after is not None else None)
        if comp is None:
            raise ValueError(f"create {opcode}: no computation to put it in (give computation, before or after)")
        self._mutate(f"create a {opcode}", name_hint or opcode)
        values = [as_value(o) for o in operands]
        instr = comp.add(opcode, shape, [v.op for v in values], attributes, name_hint=name_hint, before=before,
                         after=after)
        return self._created(instr, values, like, called)

    def _created(self, instr: Instruction, values: Sequence[Value], like: Instruction | None,
                 called: Sequence[Computation] | None) -> Instruction:
        if any(v.result for v in values):
            instr.operand_results = [v.result for v in values]
        if called is not None:
            instr.called_computations = list(called)
            self.module.structure_changed = True
        if like is not None:
            self._copy_location(like, instr)
        comp = instr.computation
        self._touch(instr)
        self._record(Created(instr.name, instr.opcode, comp.name if comp is not None else ""))
        if self._pending is not None:
            self._pending.append(instr)
        else:
            self._tag(instr)
        return instr

    def carry_location(self, source: Instruction, new: Instruction) -> None:
        """Give ``new`` the source location (HLO metadata; MLIR loc) of ``source``, the op it
        stands in for (``create(like=...)`` does this as it creates)."""
        self._mutate("set the location of", new.name)
        self._copy_location(source, new)
        self._touch(new)
        self._record(AttributeSet(new.name, "location"))

    @staticmethod
    def _copy_location(source: Instruction, new: Instruction) -> None:
        if "metadata" in source.attributes:
            try:
                new.attributes["metadata"] = source.attributes["metadata"]
            except ValueError:
                pass  # metadata we cannot decode is not worth failing the rewrite over
        new.take_location(source)  # the MLIR loc

    def slice(self, value: Operand, limits: Sequence[tuple[int, int, int]], shape: Shape, *,
              before: Instruction | None = None, after: Instruction | None = None) -> Instruction:
        """``slice(value)`` with (start, limit, stride) per dimension."""
        return self.create("slice", shape, [value], {"slice": tuple(limits)}, before=before, after=after,
                           name_hint="slice")

    def slice_along(self, value: Operand, dim: int, start: int, width: int, shape: Shape, *,
                    before: Instruction | None = None, after: Instruction | None = None) -> Instruction:
        """``value[..., start:start + width, ...]`` along ``dim``, everything of the other dimensions."""
        dims = as_value(value).shape.dims
        spec = tuple((start, start + width, 1) if d == dim else (0, n, 1) for d, n in enumerate(dims))
        return self.slice(value, spec, shape, before=before, after=after)

    def concatenate(self, values: Sequence[Operand], dim: int, shape: Shape, *,
                    before: Instruction | None = None, after: Instruction | None = None) -> Instruction:
        return self.create("concatenate", shape, values, {"dimensions": (dim,)}, before=before, after=after,
                           name_hint="concatenate")

    def reshape(self, value: Operand, shape: Shape, *, before: Instruction | None = None,
                after: Instruction | None = None, like: Instruction | None = None) -> Instruction:
        return self.create("reshape", shape, [value], {}, before=before, after=after, name_hint="reshape", like=like)

    def clone(self, instr: Instruction, operands: Sequence[Operand], shape: Shape, *,
              computation: Computation | None = None,
              before: Instruction | None = None, after: Instruction | None = None) -> Instruction:
        """A copy of ``instr`` (same op, attributes, called computations, spelling and
        location) on new operands and shape.  A region ``instr`` owns passes to the copy
        (the original goes after the rewrite); called computations are shared."""
        comp = computation or instr.computation
        if comp is None:
            raise ValueError(f"clone {instr.name}: it is in no computation")
        self._mutate("clone", instr.name)
        values = [as_value(o) for o in operands]
        if any(s.layout for s in (instr.shape, shape)):
            # After layout assignment an op reads its operands in the layouts it was given
            # (XLA:CPU's all-gather wants the gathered dimension major): keep them.
            for k, original in enumerate(instr.operands[:len(values)]):
                kept = self._in_layout(values[k], original.shape, before=before, after=after, computation=comp)
                if kept is not values[k] and after is not None:
                    after = kept.op  # the clone goes after the copy it reads
                values[k] = kept
        new = comp.add(instr.opcode, shape, [v.op for v in values], None, name_hint=instr.name, before=before,
                       after=after, source_op=instr.source_op)
        new.attributes = instr.attributes.copy(owner=new)
        new.called_computations = list(instr.called_computations)
        for callee in new.called_computations:
            if callee.parent is instr:
                callee.parent = new
        new.dialect_data = {k: v for k, v in instr.dialect_data.items() if k in _CLONED_DIALECT_DATA}
        return self._created(new, values, None, None)

    def _in_layout(self, value: Value, like: Shape, *, before: Instruction | None = None,
                   after: Instruction | None = None, computation: Computation | None = None) -> Value:
        """``value``, or a copy of it in ``like``'s layout where the two differ (modules after
        layout assignment: a bitcast or a collective reads its operand's bytes as laid out).
        The copy goes at ``before``/``after`` when given, else right after ``value``."""
        shape = value.op.shape.tuple_shapes[value.result] if value.op.num_results > 1 else value.op.shape
        if (not shape.is_array or not like.is_array or shape.rank != like.rank
                or shape.layout_text == like.layout_text):
            return value
        if before is None and after is None:
            after = value.op
        copy = self.create("copy", replace(shape, layout=like.layout_text, text=None), [value],
                           computation=computation, before=before, after=after, name_hint="copy", like=value.op)
        return Value(copy)

    def inline(self, call: Instruction) -> dict[int, Value]:
        """Put the ops of the computation ``call`` calls (a fusion's body) in ``call``'s place
        (XLA:CPU and XLA:GPU compile the ops of a kLoop fusion unfused as well),
        reading ``call``'s operands for its parameters; ``call``'s readers read the copy of the
        root, and ``call`` goes.  Returns the new value of each body op, by ``id`` of the op."""
        comp = call.computation
        if comp is None or len(call.called_computations) != 1:
            raise ValueError(f"inline {call.name}: not an op in a computation that calls one computation")
        body = call.called_computations[0]
        if body.root is None:
            raise ValueError(f"inline {call.name}: {body.name} has no root")
        new: dict[int, Value] = {}
        for inner in body.instructions:
            if inner.opcode == "parameter":
                new[id(inner)] = call.operand_values[inner.attributes["parameter_number"]]
                continue
            copy = self.clone(inner, [new[id(o)] for o in inner.operands], inner.shape, computation=comp,
                              before=call)
            if "metadata" not in inner.attributes:
                self.carry_location(call, copy)
            new[id(inner)] = Value(copy)
        self.replace_all_uses(call, new[id(body.root)])
        self.erase(call)
        if call.opcode == "fusion":  # a fused computation has one caller (XLA's invariant)
            self.remove_computation(body, fused_body_of=call)
        return new

    def wrap_in_fusion(self, instr: Instruction | Sequence[Instruction], kind: str = "kLoop") -> Instruction:
        """Put ``instr`` in a fusion of its own (the reverse of ``inline``), as XLA wraps an op
        its fusion passes left alone; or a group of ops of one computation, in program order,
        each but the last read only by ops of the group (a chain of loop ops), in one fusion.
        The fused computation, placed before theirs, holds one parameter per distinct operand
        from outside the group and a copy of each op, the last one's as its root; the fusion
        stands in the last op's place and its readers read it; the ops go.  Returns the fusion.

        Why: a pass inside XLA's pipeline hands back a module XLA has already fused; XLA:CPU
        compiles each unfused op as a kernel of its own, where equal fusions share one kernel."""
        group = [instr] if isinstance(instr, Instruction) else list(instr)
        last = group[-1]
        comp = last.computation
        inside = {id(i) for i in group}
        for i in group:
            if i.computation is not comp or comp is None or comp.module is not self.module:
                raise ValueError(f"wrap {i.name}: not an op of this module's computation {comp}")
            if i.called_computations or not i.shape.is_array:
                raise ValueError(f"wrap {i.name}: an op that calls computations or has several results "
                                 "is not wrapped in a fusion")
            if i is not last and any(id(u) not in inside for u in i.users):
                raise ValueError(f"wrap {i.name}: read outside the group, it cannot go inside the fusion")
        assert comp is not None
        self._mutate("wrap in a fusion", last.name)
        distinct: dict[tuple[int, int], Value] = {}
        for i in group:
            for value in i.operand_values:
                if id(value.op) not in inside:
                    distinct.setdefault((id(value.op), value.result), value)
        name = f"wrapped_{last.opcode}_computation"
        while name in self.module.computations:
            name = self.module.fresh_name(f"wrapped_{last.opcode}_computation")
        body = self.add_computation(Computation(name), before=comp)
        inner: dict[tuple[int, int], Instruction] = {}
        for number, (key, value) in enumerate(distinct.items()):
            shape = value.op.shape.tuple_shapes[value.result] if value.op.num_results > 1 else value.op.shape
            inner[key] = self.create("parameter", shape, attributes={"parameter_number": number},
                                     computation=body, name_hint=f"param_{number}")
        for i in group:
            inner[(id(i), 0)] = self.clone(i, [inner[(id(v.op), v.result)] for v in i.operand_values], i.shape,
                                           computation=body)
        body.set_root(inner[(id(last), 0)])
        fusion = self.create("fusion", last.shape, list(distinct.values()), {"kind": kind, "calls": body},
                             before=last, name_hint=f"wrapped_{last.opcode}", like=last, called=[body])
        self.replace_all_uses(last, fusion)
        for i in reversed(group):
            self.erase(i)
        return fusion

    # ---- changing ops ---------------------------------------------------------------
    def replace_all_uses(self, old: Instruction, new: Operand) -> int:
        """Point every use of ``old`` (roots included) at ``new`` (in ``old``'s layout, where
        the module has layouts and they differ)."""
        self._mutate("replace the uses of", old.name)
        self._touch_readers(old)
        value = as_value(new)
        if old.shape.layout and old.num_results == 1 and value.op is not old:
            value = self._in_layout(value, old.shape)
        count = self.module.replace_all_uses(old, value.op, value.result)
        self._record(UsesReplaced(old.name, value.op.name, count))
        return count

    def set_attribute(self, instr: Instruction, key: str, value: Any) -> None:
        self._mutate(f"set attribute {key} of", instr.name)
        instr.attributes[key] = value
        self._touch(instr)
        self._record(AttributeSet(instr.name, key))

    def mark(self, instr: Instruction, key: str, value: Any) -> None:
        """Note ``value`` under ``key`` in ``instr``'s dialect data: what a rule says of an op it
        made that no printer writes (e.g. ``held.COMBINED_BY``), journaled like an attribute."""
        self._mutate(f"mark {key} of", instr.name)
        instr.dialect_data[key] = value
        self._record(AttributeSet(instr.name, f"dialect_data.{key}"))

    def remove_attribute(self, instr: Instruction, key: str) -> None:
        self._mutate(f"remove attribute {key} of", instr.name)
        del instr.attributes[key]
        self._touch(instr)
        self._record(AttributeSet(instr.name, key, removed=True))

    def set_operand(self, instr: Instruction, index: int, value: Operand) -> None:
        """Operand ``index`` of ``instr`` reads ``value`` (another result of the same op, or another op)."""
        self._mutate(f"set operand {index} of", instr.name)
        new = as_value(value)
        if new.op is instr.operands[index]:  # the same op: only which result is read changes
            instr.operand_results[index] = new.result
            instr.mark_changed()
            what = "result"
        else:
            instr.set_operand(index, new.op, new.result)
            what = "set"
        self._touch(instr)
        self._record(OperandsChanged(instr.name, what, index))

    def remove_operand(self, instr: Instruction, index: int) -> Instruction:
        """Drop operand ``index`` (later ones move down); returns what it was."""
        self._mutate(f"remove operand {index} of", instr.name)
        old = instr.remove_operand(index)
        self._touch(instr)
        self._record(OperandsChanged(instr.name, "removed", index))
        return old

    def set_shape(self, instr: Instruction, shape: Shape, num_results: int | None = None) -> None:
        """A new result shape (and, given, number of results)."""
        self._mutate("set the shape of", instr.name)
        if num_results is not None:
            instr.num_results = num_results
        instr.set_shape(shape)
        self._touch_readers(instr)
        self._record(ShapeChanged(instr.name))

    def shrink_result_group(self, instr: Instruction) -> None:
        """One result fewer in ``instr``'s MLIR result group (``%15:3 = ...`` prints ``%15:2``),
        after a result was dropped; nothing for an op without one (HLO)."""
        groups = instr.dialect_data.get("results")
        if not groups:
            return
        self._mutate("shrink the result group of", instr.name)
        name, count = groups[0]
        instr.dialect_data["results"] = [(name, count - 1), *groups[1:]]
        instr.mark_changed()
        self._touch(instr)
        self._record(AttributeSet(instr.name, "results"))

    def rename(self, instr: Instruction, hint: str) -> str:
        """Give ``instr`` a fresh name of the module derived from ``hint``; returns it."""
        self._mutate("rename", instr.name)
        old, instr.name = instr.name, self.module.fresh_name(hint)
        instr.mark_changed()
        self._touch(instr)
        self._record(Renamed(instr.name, old))
        return instr.name

    # ---- removing ops ---------------------------------------------------------------
    def erase(self, instr: Instruction) -> None:
        """Remove ``instr``, which nothing may use any more."""
        comp = instr.computation
        if comp is None:
            raise ValueError(f"erase {instr.name}: it is in no computation")
        self._mutate("erase", instr.name)
        self._touch(instr)
        comp.remove(instr)
        self._record(Erased(instr.name, instr.opcode))

    def erase_parameter(self, param: Instruction) -> None:
        """Remove an unused parameter; the ones after it are renumbered down."""
        comp = param.computation
        if comp is None:
            raise ValueError(f"erase {param.name}: it is in no computation")
        self._mutate("erase", param.name)
        number = param.attributes["parameter_number"]
        later = [p for p in comp.instructions if p.opcode == "parameter" and p.attributes["parameter_number"] > number]
        self._touch(param)
        comp.remove_parameter(param)
        self._record(Erased(param.name, param.opcode))
        for p in later:
            self._record(AttributeSet(p.name, "parameter_number"))

    # ---- computations ---------------------------------------------------------------
    def reorder(self, comp: Computation, order: Sequence[Instruction]) -> None:
        """Put ``comp``'s instructions in program order ``order`` (the same instructions)."""
        if len(order) != len(comp.instructions) or {id(i) for i in order} != {id(i) for i in comp.instructions}:
            raise ValueError(f"reorder {comp.name}: the order given is not of its instructions")
        self._mutate("reorder", comp.name)
        comp.instructions[:] = list(order)
        comp.changed = True
        self._touched.setdefault(id(comp), comp)
        self._record(Reordered(comp.name))

    def make_root(self, comp: Computation, instr: Instruction) -> None:
        """Make ``instr`` (one of ``comp``'s ops) ``comp``'s root: a computation built by the rule."""
        self._mutate("set root", comp.name)
        comp.set_root(instr)
        comp.changed = True
        self._touched.setdefault(id(comp), comp)

    def add_computation(self, comp: Computation, *, before: Computation | None = None,
                        source: str | None = None) -> Computation:
        """Add ``comp`` (taken from another module: its ops become this module's); in HLO
        right before ``before``.  ``source``: a StableHLO function printed from that text
        (the kernel module's own), listed in the module's body."""
        self._mutate("add computation", comp.name)
        self.module.add_computation(comp, before=before)
        self._touched.setdefault(id(comp), comp)
        if source is not None and comp.parent is None:
            comp.dialect_data["source"] = source
            self.module.dialect_data.setdefault("body", []).append({"func": comp, "span": None})
        self._record(ComputationChanged(comp.name, "added"))
        return comp

    def adopt(self, comp: Computation, name: str) -> None:
        """Prepare ``comp`` of another module to join this one under ``name``: its ops get
        fresh names here and are printed from their fields (``add_computation`` adds it)."""
        self._mutate("adopt", comp.name)
        comp.name = name
        comp.dialect_data = {k: v for k, v in comp.dialect_data.items() if k == "attrs"}
        comp.changed = True
        for instr in comp.instructions:
            old, instr.name = instr.name, self.module.fresh_name(instr.name)
            instr.changed = True
            self._record(Renamed(instr.name, old))

    def set_called(self, instr: Instruction, comps: Iterable[Computation]) -> None:
        """The computations ``instr`` calls."""
        self._mutate("set the callees of", instr.name)
        instr.called_computations = list(comps)
        instr.mark_changed()
        self.module.structure_changed = True
        self._touch(instr)
        self._record(AttributeSet(instr.name, "called_computations"))

    def remove_computation(self, comp: Computation, *, fused_body_of: Instruction | None = None) -> None:
        """Remove a computation nothing calls any more (with the regions of its ops);
        ``fused_body_of``: the erased fusion it was the body of (``Module.remove_computation``)."""
        self._mutate("remove computation", comp.name)
        self._touched.pop(id(comp), None)
        self.module.remove_computation(comp, fused_body_of=fused_body_of)
        self._record(ComputationChanged(comp.name, "removed"))


@dataclass(frozen=True)
class Trial:
    """A copy of a module a pass is tried on (``Rewriter.trial``): ``prepare`` changes it (to put
    it in the form the pass reads), ``tried`` is what the pass runs with (a dry run when the
    rewriter the trial came from is one)."""

    module: Module
    prepare: Rewriter
    tried: Rewriter


class DryRunRewriter(Rewriter):
    """The rewriter of lint mode: reads as a rewriter, refuses every mutation."""

    dry_run = True

    def _mutate(self, what: str, name: str) -> None:
        raise DryRunError(f"{self.rule or 'a pass'} asked to {what} {name} in a dry run (lint mode, "
                          "rewrite=False): a rule must not change the module it only reports on")
