"""Result-shape checks for the instructions rewrites create and touch.

``verify_module`` returns one message per problem (empty when all is well),
each naming the source line, computation and instruction
(``line 7: entry/sl: slice result should be [2, 4], not [3, 4]``; ``new``
instead of a line for instructions a pass created).  ``Module.verify`` raises
them as a ``VerificationError``.  Shapes that the parser could not know
(instructions written without one) are skipped.

``parse(..., validate=True)`` runs these checks too but does not reject the
text: XLA's parser accepts such modules (only XLA's verifier, a separate
step, rejects them), and XLA's own tests feed it some on purpose.  The parser
keeps the findings in ``Module.shape_problems`` and issues one
``VerificationWarning``; ``Module.verify()`` is the strict check.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .device_groups import DeviceGroups
from .op_table import OPS

if TYPE_CHECKING:  # the checks only read the graph; ir calls them (Module.verify)
    from .module import Computation, Instruction, Module, Shape


def verify_module(module: Module, computations: Iterable[Computation] | None = None) -> list[str]:
    """Every shape or structure problem of ``module``, as ``computation/name: message``; of the
    given ``computations`` of it only (what a pass changed: the pipeline's check after a pass)."""
    problems: list[str] = []
    for comp in module.computations.values() if computations is None else computations:
        names: set[str] = set()
        for instr in comp.instructions:
            where = f"{_line(instr)}: {comp.name}/{instr.name}"
            if instr.name in names:
                problems.append(f"{where}: duplicate instruction name")
            names.add(instr.name)
            for op in instr.operands:
                if op.computation is not comp and not _encloses(op.computation, comp):
                    problems.append(f"{where}: operand {op.name} is not in this computation")
            for p in instruction_problems(instr):
                problems.append(f"{where}: {p}")
        if comp.root is not None and comp.root not in comp.instructions:
            problems.append(f"{comp.name}: root {comp.root.name} is not in the computation")
    return problems


def _encloses(outer: Computation | None, comp: Computation) -> bool:
    """Whether ``comp`` is a region nested (at any depth) in ``outer``: MLIR regions
    may use the values of the regions around them."""
    parent = comp.parent
    while parent is not None and parent.computation is not None:
        if parent.computation is outer:
            return True
        parent = parent.computation.parent
    return False


def _line(instr: Instruction) -> str:
    # A pass may have changed the instruction since; the line still finds it.
    return f"line {instr.line}" if instr.line else "new"


def _known(s: Shape) -> bool:
    return s.element_type not in ("inferred", "buffer")


def _attr(instr: Instruction, key: str, default: Any = None) -> Any:
    try:
        return instr.attributes[key] if key in instr.attributes else default
    except Exception:  # undecodable values are the parser's business, not ours
        return default


def _check_slice(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    spec = _attr(instr, "slice")
    if spec is None:
        return None
    if len(spec) != ops[0].rank:
        return f"slice has {len(spec)} dimensions for an operand of rank {ops[0].rank}"
    want = tuple(max(0, -(-(hi - lo) // st)) if st > 0 else 0 for lo, hi, st in spec)
    if out.dims != want:
        return f"slice result should be {list(want)}, not {list(out.dims)}"
    return None


def _check_concatenate(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    dims = _attr(instr, "dimensions", ())
    if len(dims) != 1:
        return "concatenate needs one dimension"
    d = dims[0]
    if any(o.rank != out.rank for o in ops) or not 0 <= d < out.rank:
        return "concatenate operands and result must have the same rank"
    total = sum(o.dims[d] for o in ops)
    want = out.dims[:d] + (total,) + out.dims[d + 1:]
    if out.dims != want or any(o.dims[:d] + o.dims[d + 1:] != out.dims[:d] + out.dims[d + 1:] for o in ops):
        return f"concatenate result should be {list(want)}"
    return None


def _check_pad(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    spec = _attr(instr, "padding")
    if spec is None or len(spec) != ops[0].rank:
        return None if spec is None else "padding rank differs from the operand rank"
    want = []
    for n, (lo, hi, it) in zip(ops[0].dims, spec):
        want.append(lo + hi + n + max(n - 1, 0) * it)
    if list(out.dims) != want:
        return f"pad result should be {want}, not {list(out.dims)}"
    return None


def _group_size(instr: Instruction) -> int | None:
    groups = _attr(instr, "replica_groups")
    if isinstance(groups, DeviceGroups):
        # Known without expanding the compact forms; 0 for {{}} (an empty group), None for {} (all devices).
        return groups.group_size if groups.num_groups else None
    # Left as text (mesh axes naming a mesh by symbol): the size is not known here.
    if not groups or not isinstance(groups, (tuple, list)) or not all(isinstance(g, (tuple, list)) for g in groups):
        return None
    sizes = {len(g) for g in groups}
    return sizes.pop() if len(sizes) == 1 else None


def _check_along_dimension(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    """all-gather multiplies its dimension by the group size; reduce-scatter divides it."""
    dims = _attr(instr, "dimensions", ())
    n = _group_size(instr)
    if len(dims) != 1 or n is None or out.is_tuple or len(ops) != 1:
        return None
    if n == 0:
        return f"{instr.opcode} has an empty replica group"
    d = dims[0]
    o = ops[0]
    op = instr.opcode
    if o.rank != out.rank or not 0 <= d < o.rank:
        return f"{op} operand and result ranks differ"
    if op == "all-gather":
        size = o.dims[d] * n
    elif o.dims[d] % n:
        return f"{op} dimension {d} ({o.dims[d]}) is not divisible by the group size {n}"
    else:
        size = o.dims[d] // n
    want = o.dims[:d] + (size,) + o.dims[d + 1:]
    if out.dims != want:
        return f"{op} result should be {list(want)}, not {list(out.dims)}"
    return None


def _check_same_as_operands(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if out.is_tuple:
        if len(out.tuple_shapes) != len(ops) or any(a.dims != b.dims for a, b in zip(out.tuple_shapes, ops)):
            return f"{instr.opcode} result should match its operands"
        return None
    if len(ops) == 1 and out.dims != ops[0].dims:
        return f"{instr.opcode} result should have the operand's dimensions {list(ops[0].dims)}"
    return None


def _check_dot(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if len(ops) < 2 or instr.source_op == "stablehlo.dot":
        return None  # the legacy dot contracts by position, without dimension numbers
    lhs, rhs = ops[0], ops[1]
    lc = _attr(instr, "lhs_contracting_dims", ())
    rc = _attr(instr, "rhs_contracting_dims", ())
    lb = _attr(instr, "lhs_batch_dims", ())
    rb = _attr(instr, "rhs_batch_dims", ())
    try:
        if [lhs.dims[i] for i in lc] != [rhs.dims[i] for i in rc]:
            return "dot contracting dimensions differ in size"
        if [lhs.dims[i] for i in lb] != [rhs.dims[i] for i in rb]:
            return "dot batch dimensions differ in size"
        want = ([lhs.dims[i] for i in lb]
                + [d for i, d in enumerate(lhs.dims) if i not in lc and i not in lb]
                + [d for i, d in enumerate(rhs.dims) if i not in rc and i not in rb])
    except (IndexError, TypeError):
        return "dot dimension numbers out of range"
    if instr.opcode == "dot" and len(ops) == 2 and list(out.dims) != want:
        return f"dot result should be {want}, not {list(out.dims)}"
    return None


def _check_ragged_dot(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if len(ops) != 3:
        return "ragged-dot takes lhs, rhs and group sizes"
    lhs, rhs = ops[0], ops[1]
    lc = _attr(instr, "lhs_contracting_dims", ())
    rc = _attr(instr, "rhs_contracting_dims", ())
    try:
        if [lhs.dims[i] for i in lc] != [rhs.dims[i] for i in rc]:
            return "ragged-dot contracting dimensions differ in size"
    except (IndexError, TypeError):
        return "ragged-dot dimension numbers out of range"
    return None


def _check_convert(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if out.dims != ops[0].dims:
        return f"convert keeps dimensions: expected {list(ops[0].dims)}"
    return None


def _check_bitcast(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if out.is_array and ops[0].is_array and out.byte_size != ops[0].byte_size:
        return f"bitcast changes the byte size ({ops[0].byte_size} → {out.byte_size})"
    return None


def _check_reshape(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if -1 in out.dims or -1 in ops[0].dims:
        return None
    if out.num_elements != ops[0].num_elements:
        return f"reshape changes the element count ({ops[0].num_elements} → {out.num_elements})"
    return None


def _check_copy(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if out != ops[0]:
        return "copy result should equal its operand's shape"
    return None


def _check_tuple(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if not out.is_tuple or len(out.tuple_shapes) != len(ops):
        return f"tuple of {len(ops)} operands needs a {len(ops)}-element tuple shape"
    for i, (a, b) in enumerate(zip(out.tuple_shapes, ops)):
        if _known(b) and a != b:
            return f"tuple element {i} should be {b}"
    return None


def _check_gte(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    index = _attr(instr, "index")
    t = ops[0]
    if not t.is_tuple or index is None or not 0 <= index < len(t.tuple_shapes):
        return "get-tuple-element needs a tuple operand and an index in range"
    if _known(t.tuple_shapes[index]) and out != t.tuple_shapes[index]:
        return f"get-tuple-element result should be {t.tuple_shapes[index]}"
    return None


def _check_opt_barrier(instr: Instruction, out: Shape, ops: list[Shape]) -> str | None:
    if len(ops) == 1 and out != ops[0]:
        return "opt-barrier result should equal its operand's shape"
    return None


_CHECKS: dict[str, Callable[[Instruction, Shape, list[Shape]], str | None]] = {
    "slice": _check_slice,
    "concatenate": _check_concatenate,
    "pad": _check_pad,
    "all-gather": _check_along_dimension,
    "reduce-scatter": _check_along_dimension,
    "all-reduce": _check_same_as_operands,
    "dot": _check_dot,
    "ragged-dot": _check_ragged_dot,
    "convert": _check_convert,
    "bitcast": _check_bitcast,
    "reshape": _check_reshape,
    "copy": _check_copy,
    "opt-barrier": _check_opt_barrier,
    "tuple": _check_tuple,
    "get-tuple-element": _check_gte,
}


def _arity_problem(instr: Instruction) -> str | None:
    """An HLO op with the wrong number of operands (the op table's arity).  Only ops spelled
    as HLO: a parsed MLIR op (``stablehlo.optimization_barrier`` takes any number) keeps its
    own spelling in ``source_op`` and its own rules."""
    spec = OPS.get(instr.opcode)
    if spec is None or spec.arity is None or instr.source_op != instr.opcode:
        return None
    n = len(instr.operands)
    return None if spec.arity.allows(n) else f"{instr.opcode} takes {spec.arity} operand(s), not {n}"


def instruction_problems(instr: Instruction) -> list[str]:
    """Shape problems of one instruction (empty when its shape is consistent)."""
    arity = _arity_problem(instr)
    if arity is not None:
        return [arity]
    check = _CHECKS.get(instr.opcode)
    if check is None or not _known(instr.shape):
        return []
    # An MLIR op with several results is used one result at a time.
    ops = [o.shape.tuple_shapes[r] if o.num_results > 1 and o.shape.is_tuple and r < len(o.shape.tuple_shapes)
           else o.shape for o, r in zip(instr.operands, instr.operand_results)]
    if any(not _known(s) for s in ops):
        return []
    if any(d < 0 for s in (instr.shape, *ops) for d in s.dims):
        return []  # unbounded dynamic sizes ('?') are only known at run time
    if instr.opcode not in ("tuple", "get-tuple-element", "all-reduce", "opt-barrier") and (
        instr.shape.is_tuple or any(s.is_tuple for s in ops)
    ):
        return []
    if not ops and instr.opcode != "tuple":
        return []
    problem = check(instr, instr.shape, ops)
    return [problem] if problem else []
