"""Grouped-matmul kernel calls, as the rewrites and the lowering both see them (below both).

Which kernel a call runs (``gmm_kernel``); splicing a kernel's lowered program into a
module (``splice_program``; the fused expert FFN's, ``ffn_kernel``, too); Pallas megablox
kernels: splicing one lowered for a shape (``splice_kernel``), reading the problem a
fixed-shape megablox call in the input solves (``megablox_spec``), emitting it
again for another weight width (``reemit_gmm``, moe-gather-fusion's two-GMM form)
and dropping the kernels nothing calls any more (``drop_unused``).  jax is
imported (through ``megablox``) only when a kernel is emitted.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..ir import Computation, Instruction, Module, Shape, Value, is_inside
from ..dialects.hlo.opcodes import CALL_ATTRS, SELECT_SCATTER_CALLS
from ..ir.rewriter import Rewriter
from ..text import parse_hlo, parse_stablehlo
from . import megablox
from .megablox import GmmSpec, groups_dtype_ok, supported_dtype

# Custom-call targets of grouped-matmul kernels: always a GMM, whatever its name.
GMM_KERNEL_TARGETS = frozenset({"te_grouped_gemm_ffi", "te_grouped_gemm_v2_ffi", "__cublas$lt$groupedMatmul"})
# Targets that hold many kinds of kernels; a GMM among them says so in its name.
KERNEL_TARGETS = frozenset({"tpu_custom_call", "__gpu$xla.gpu.triton", "mosaic_gpu", "mosaic_gpu_v2"})
_GMM_WORDS = re.compile(r"gmm|grouped|ragged", re.IGNORECASE)
# The kernel name megablox gives its pallas_call (the inner function's name).
MEGABLOX_KERNEL_NAME = "kernel"
# megablox's jitted entry points, as jax names their functions when lowering
# (``gmm``, ``gmm_3``, HLO ``gmm.12``), also after a splice renamed them apart.
_MEGABLOX_FN = re.compile(r"(?:^|_)(t?gmm)(?:[._]\d+)*(?:\.hp\d+)?$")
# The entry of a kernel this module spliced in: its operands are already canonical.
SPLICED = re.compile(r"^hlo_passes_(t?gmm)\d+_main(?:\.\d+)?$")
_FUNC_SYMBOL = re.compile(r"func\.func\s+(?:(?:public|private|nested)\s+)?@([\w$.\-]+)")
_SYMBOL_REF = re.compile(r"@([\w$.\-]+)")
# Attributes whose value names a computation (HLO).
_HLO_CALL_ATTRS = CALL_ATTRS | SELECT_SCATTER_CALLS


def gmm_kernel(instr: Instruction) -> str | None:
    """What grouped-matmul kernel ``instr`` runs, if it is one (a custom call, or a call of a
    function such as Pallas megablox's ``gmm`` that wraps one); None otherwise."""
    if instr.opcode == "custom-call":
        target = str(instr.attributes.get("custom_call_target", ""))
        if target in GMM_KERNEL_TARGETS:
            return target
        if target in KERNEL_TARGETS:
            config = instr.attributes.raw("backend_config") if "backend_config" in instr.attributes else ""
            name = re.search(r'(?:kernel_name|name)\W+(\w+)', config or "")
            if name and _GMM_WORDS.search(name.group(1)):
                return f"{target} {name.group(1)}"
        return None
    if instr.opcode == "call" and instr.called_computations:
        callee = instr.called_computations[0]
        if _GMM_WORDS.search(callee.name) and any(i.opcode == "custom-call" and (
                str(i.attributes.get("custom_call_target", "")) in GMM_KERNEL_TARGETS | KERNEL_TARGETS)
                for i in callee.instructions):
            return f"{instr.source_op} @{callee.name}"
    return None


def unavailable_reason() -> str | None:
    """Why the Pallas kernels cannot be emitted on this machine, or None."""
    return megablox.unavailable_reason()


# ---- splicing a kernel lowered for one shape ------------------------------------
def splice_kernel(rw: Rewriter, spec: GmmSpec, operands: Sequence[Value], *, before: Instruction,
                  interpret: bool, tiling: tuple[int, int, int] | None = None) -> Instruction:
    """Add the kernel for ``spec`` to the rewriter's module and a call of it on ``operands``,
    placed right before ``before``; returns the call.  ``tiling``: megablox's (tm, tk, tn),
    else ``megablox.tiling_for``'s."""
    text = megablox.kernel_text(spec, interpret=interpret, dialect=rw.module.dialect, tiling=tiling)
    return splice_program(rw, text, spec.mode, Shape.array(spec.out_dtype, _result_dims(spec)), operands,
                          before=before)


def splice_program(rw: Rewriter, text: str, mode: str, out_shape: Shape, operands: Sequence[Value], *,
                   before: Instruction) -> Instruction:
    """Add a kernel's lowered program (``text``, in the module's dialect, its entry ``main``
    taking ``operands`` and returning ``out_shape``) under the prefix ``hlo_passes_<mode><n>_``,
    and a call of its entry on ``operands`` placed right before ``before``; returns the call."""
    module = rw.module
    comp = before.computation
    if comp is None:
        raise ValueError(f"{before.ref} is in no computation: a kernel call cannot be placed before it")
    if module.dialect == "stablehlo":
        entry = _splice_functions(rw, text, mode)
        return rw.create("call", out_shape, operands, {"to_apply": entry.name}, name_hint=mode,
                         before=before, called=[entry])
    entry = _splice_computations(rw, text, mode, ahead_of=_top_level(comp))
    return rw.create("call", out_shape, operands, {"to_apply": entry}, name_hint=mode, before=before,
                     called=[entry])


def _result_dims(spec: GmmSpec) -> tuple[int, ...]:
    lhs = [spec.lhs_shape[d] for d in spec.lhs_perm]
    rhs = [spec.rhs_shape[d] for d in spec.rhs_perm]
    if spec.mode == "gmm":
        return (lhs[0], rhs[2])
    return (spec.groups_shape[0], lhs[1], rhs[1])


def _top_level(comp: Computation) -> Computation:
    while comp.parent is not None and comp.parent.computation is not None:
        comp = comp.parent.computation
    return comp


def _free_prefix(module: Module, mode: str) -> str:
    """``hlo_passes_<mode><n>_``: a prefix no computation of ``module`` has yet, so the
    kernel's functions keep their names behind it (and ``SPLICED`` recognizes them)."""
    n = 0
    while any(name.startswith(f"hlo_passes_{mode}{n}_") for name in module.computations):
        n += 1
    return f"hlo_passes_{mode}{n}_"


def _splice_functions(rw: Rewriter, text: str, mode: str) -> Computation:
    """StableHLO: the kernel module's functions, renamed apart, added to ``module``;
    returns its entry (``main``), made private."""
    module = rw.module
    names = _FUNC_SYMBOL.findall(text)
    prefix = _free_prefix(module, mode)
    renamed = {s: prefix + s for s in names}
    text = _SYMBOL_REF.sub(lambda m: "@" + renamed.get(m.group(1), str(m.group(1))), text)
    text = text.replace(f"func.func public @{renamed['main']}", f"func.func private @{renamed['main']}", 1)
    kernel = parse_stablehlo(text)
    for comp in list(kernel.computations.values()):
        # A function is printed from the kernel's own text (the printer's "source" hook).
        rw.add_computation(comp, source=kernel.source)
    return module.computations[renamed["main"]]


def _splice_computations(rw: Rewriter, text: str, mode: str, ahead_of: Computation) -> Computation:
    """HLO: the kernel module's computations and instructions under fresh names,
    placed before ``ahead_of`` (XLA reads a callee before its caller); returns its entry."""
    kernel = parse_hlo(text)
    comps = list(kernel.computations.values())
    prefix = _free_prefix(rw.module, mode)
    by_old = {c.name: c for c in comps}
    for comp in comps:
        for instr in comp.instructions:
            # Calls name their callees by computation (the names change below).
            for key in [k for k in instr.attributes if k in _HLO_CALL_ATTRS]:
                value = instr.attributes[key]
                if isinstance(value, (list, tuple)):
                    rw.set_attribute(instr, key, [by_old[str(v).lstrip("%")] for v in value])
                else:
                    rw.set_attribute(instr, key, by_old[str(value).lstrip("%")])
    for comp in comps:
        # Printed from the graph, as a computation a pass added.
        rw.adopt(comp, prefix + comp.name)
        rw.add_computation(comp, before=ahead_of)
    if kernel.entry is None:
        raise ValueError("the kernel's text has no entry computation")
    return kernel.entry


# ---- fixed-shape megablox kernels in the input -------------------------------
def megablox_callee(instr: Instruction) -> Computation | None:
    """The megablox function a ``call`` / ``func.call`` runs, if it runs one for TPU: jax's
    lowering of megablox ``gmm``/``tgmm``, or the entry of a kernel spliced here."""
    if instr.opcode != "call" or not instr.called_computations:
        return None
    callee = instr.called_computations[0]
    if SPLICED.match(callee.name):
        return callee if _runs_tpu_kernel(callee, 4) else None
    if not _MEGABLOX_FN.search(callee.name) or _in_spliced_kernel(instr):
        return None
    return callee if _runs_tpu_kernel(callee, 0) else None


def _kind(callee: Computation) -> str:
    m = SPLICED.match(callee.name) or _MEGABLOX_FN.search(callee.name)
    if m is None:
        raise ValueError(f"{callee.name} is no megablox kernel")
    return m.group(1)


def _in_spliced_kernel(instr: Instruction) -> bool:
    comp = instr.computation
    return comp is not None and comp.name.startswith("hlo_passes_")


def _runs_tpu_kernel(comp: Computation, depth: int) -> bool:
    """Whether ``comp`` (or, ``depth`` calls down, what it calls) holds a tpu_custom_call."""
    for i in comp.instructions:
        if i.opcode == "custom-call" and str(i.attributes.get("custom_call_target", "")).strip('"@') \
                == "tpu_custom_call":
            return True
        if depth and any(_runs_tpu_kernel(c, depth - 1) for c in i.called_computations):
            return True
    return False


def megablox_spec(call: Instruction) -> GmmSpec | str:
    """The problem a megablox kernel call solves (from its operands and result), or why
    it cannot be told."""
    callee = megablox_callee(call)
    if callee is None:
        return f"{call.ref} does not call a megablox kernel"
    kind = _kind(callee)
    spliced = SPLICED.match(callee.name) is not None
    if len(call.operands) != 3:
        return (f"{call.ref} passes {len(call.operands)} operands to megablox {kind} "
                "(group_offset or existing_out given); only lhs, rhs and group sizes are re-emitted")
    lhs, rhs, groups = (op.shape for op in call.operands)
    out = call.shape
    if kind == "gmm":
        if lhs.rank != 2 or rhs.rank != 3 or out.rank != 2:
            return f"{call.ref}: megablox gmm with operands {lhs}, {rhs}"
        m, k = lhs.dims
        plain = rhs.dims[1] == k and out.dims == (m, rhs.dims[2])
        transposed = rhs.dims[2] == k and out.dims == (m, rhs.dims[1])
        if spliced:
            transposed = False  # our own kernels take canonical operands
        if transposed and plain:
            return (f"{call.ref}: megablox gmm with k = n = {k}: whether its rhs is transposed cannot be "
                    "told from the shapes")
        if not plain and not transposed:
            return f"{call.ref}: megablox gmm with operands {lhs}, {rhs} and result {out}"
        # transpose_rhs=True (the gradient of gmm w.r.t. lhs) reads rhs as [g, n, k].
        perm: tuple[int, ...] = (0, 1, 2) if plain else (0, 2, 1)
    else:
        if lhs.rank != 2 or rhs.rank != 2 or out.rank != 3:
            return f"{call.ref}: megablox tgmm with operands {lhs}, {rhs}"
        perm = (0, 1)
    # megablox tgmm reads lhs as [k, m]; a spliced tgmm takes the canonical [m, k].
    lhs_perm = (0, 1) if kind == "gmm" or spliced else (1, 0)
    for t in (lhs, rhs, out):
        if not supported_dtype(t.element_type):
            return f"{call.ref}: megablox with element type {t.element_type}"
    if not groups_dtype_ok(groups.element_type):
        return f"{call.ref}: group sizes of type {groups.element_type}"
    return GmmSpec(kind, lhs.dims, lhs.element_type, rhs.dims, rhs.element_type, groups.dims,
                   groups.element_type, out.element_type, lhs_perm, perm)


def reemit_refusal(call: Instruction) -> str | None:
    """None if the megablox gmm that ``call`` runs can be emitted again for another
    weight width; otherwise why not."""
    spec = megablox_spec(call)
    if isinstance(spec, str):
        return spec
    if spec.mode != "gmm":
        return f"{call.ref} runs megablox {spec.mode}; only gmm is re-emitted for a fused weight"
    if spec.rhs_perm != (0, 1, 2):
        return f"{call.ref}: megablox gmm with a transposed rhs ({call.operands[1].shape}) is not re-emitted"
    return unavailable_reason()


def kernel_output_dim(call: Instruction, rhs_dim: int) -> int | None:
    """Where dimension ``rhs_dim`` of a megablox gmm's weight lands in its result
    (None: the kernel contracts or groups over it)."""
    return 1 if rhs_dim == 2 else None


def reemit_gmm(rw: Rewriter, call: Instruction, operands: Sequence[Value], *, before: Instruction) -> Instruction:
    """A megablox gmm like the one ``call`` runs, emitted for the shapes of ``operands``;
    the new call is placed before ``before`` and returned."""
    # ``call``'s own operands may already be rewired (a shard_map crossing merged): the
    # problem is read from ``operands``; legality was settled by ``reemit_refusal``.
    callee = megablox_callee(call)
    if callee is None or _kind(callee) != "gmm":
        raise ValueError(f"{call.ref} does not run megablox gmm")
    lhs, rhs, groups = (v.shape for v in operands)
    new = GmmSpec("gmm", lhs.dims, lhs.element_type, rhs.dims, rhs.element_type, groups.dims,
                  groups.element_type, call.shape.element_type, (0, 1), (0, 1, 2))
    return splice_kernel(rw, new, operands, before=before, interpret=False)


def drop_unused(rw: Rewriter, roots: list[Computation]) -> list[str]:
    """Remove ``roots`` that nothing calls any more (kernels a rewrite replaced) and then
    what only they called; returns the names removed."""
    module = rw.module
    removed: list[str] = []
    work = list(dict.fromkeys(roots))
    while work:
        comp = work.pop()
        if comp.module is not module or comp is module.entry:
            continue
        inner = [c for c in module.computations.values() if is_inside(c, comp)]
        inner_ids = {id(c) for c in inner}
        if any(comp in i.called_computations for c in module.computations.values()
               if id(c) not in inner_ids for i in c.instructions):
            continue
        callees = [cc for c in inner for i in c.instructions for cc in i.called_computations
                   if id(cc) not in inner_ids]
        rw.remove_computation(comp)
        removed.append(comp.name)
        work.extend(dict.fromkeys(callees))
    return removed
