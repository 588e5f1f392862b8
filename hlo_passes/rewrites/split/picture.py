"""A site as a picture: the ops of the halves before the rewrite, and the ops it puts there.

Taken from the engine's view of a site (the slices, each half's chain of
steps, where the halves meet, the GMMs) before anything is replaced, so the
lint, which never rewrites, draws the same "after" as ``hlo-rewrite``: one
chain of the same steps on the whole weight.  Edges carry the value that
flows on them: its shape and how many bytes that is per device.
"""
from __future__ import annotations

from typing import Any

from ...ir.device_groups import DeviceGroups
from ...ir import Instruction
from ...ir.op_table import is_collective
from ...ir.analysis import as_dot, resized
from ...report import PictureEdge, PictureNode, SitePicture, Subgraph
from .crossings import Crossing, Exit, HloExit, result_shape
from .fusions import FusedCopy


def human_bytes(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def _shape_text(shape: Any) -> str:
    """``f32[4,64,32]`` in both dialects (no layout), tuples in parentheses."""
    if shape.is_tuple:
        return "(" + ", ".join(_shape_text(s) for s in shape.tuple_shapes) + ")"
    if not shape.is_array:
        element_type: str = shape.element_type
        return element_type
    return f"{shape.element_type}[{','.join(str(d) for d in shape.dims)}]"


def _value(shape: Any) -> str:
    return f"{_shape_text(shape)} · {human_bytes(shape.byte_size)}"


# Replica groups with more devices than this are drawn by their sizes, not listed.
_LISTED_DEVICES = 64


def _compact(value: Any) -> str:
    """An attribute value as HLO writes it: ``{{0,1},{2,3}}`` for nested sequences."""
    if isinstance(value, DeviceGroups):
        if value.num_devices > _LISTED_DEVICES:
            return f"{value.num_groups} groups of {value.group_size or 'several'}"
        return _compact(value.groups)
    if isinstance(value, (tuple, list)):
        return "{" + ",".join(_compact(v) for v in value) + "}"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _step_shape(step: Any) -> Any:
    if isinstance(step, Crossing):
        return step.param.shape
    if isinstance(step, (Exit, HloExit)):
        return step.inside.shape
    return step.shape


def _line(instr: Any) -> str:
    line = getattr(instr, "line", 0)
    return f"line {line}" if line else ""


def _step_label(step: Any, shape: Any) -> tuple[str, str]:
    """(label, kind) of one step of a half's chain."""
    if isinstance(step, Crossing):
        return f"enters {step.caller.opcode}\n(operand {step.index})", "boundary"
    if isinstance(step, (Exit, HloExit)):
        return "leaves the shard_map body", "boundary"
    if isinstance(step, FusedCopy):
        line = _line(step.fusion)  # drawn as the copy it is
        return "\n".join(["copy", *([line] if line else [])]), "step"
    kind = "collective" if is_collective(step.opcode) else "step"
    if step.opcode in ("sdy.sharding_constraint", "custom-call") and kind == "step":
        kind = "collective"  # a resharding the partitioner turns into a collective
    parts = [step.opcode]
    if kind == "collective":
        for key in ("replica_groups", "dimensions", "sharding"):
            text = _attribute(step, key)
            if text:
                parts.append(f"{key}={text if len(text) <= 40 else text[:37] + '...'}")
    line = _line(step)
    return "\n".join([*parts, *( [line] if line else [])]), kind


def _attribute(instr: Any, key: str) -> str | None:
    attrs = instr.attributes
    if key not in attrs:
        return None
    try:
        return _compact(attrs[key])
    except ValueError:  # a value the grammar rejects: the text as written
        return attrs.raw(key) if hasattr(attrs, "raw") else None


def _slice_label(chain: Any, split_dim: int) -> str:
    piece = chain.start
    if chain.cut is None and getattr(chain, "result", None) is not None:
        return f"weight {piece.ref}\n{_line(piece)}".rstrip()  # two separate weights (MOE003)
    dot = as_dot(piece) if isinstance(piece, Instruction) else None
    if dot is not None:  # (the opcode of the dot, where XLA:CPU runs it in a custom fusion)
        return f"{dot.opcode} (one half's GMM)\n{_line(piece)}".rstrip()
    try:
        start, limit, _ = chain.cut.spec[split_dim]
        what = f"slice [{start}:{limit}] of dim {split_dim}"
    except Exception:
        what = "slice"
    return f"{what}\n{_line(piece)}".rstrip()


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[PictureNode] = []
        self.edges: list[PictureEdge] = []

    def node(self, id_: str, label: str, kind: str) -> str:
        self.nodes.append(PictureNode(id_, label, kind))
        return id_

    def edge(self, src: str, dst: str, shape: Any) -> None:
        self.edges.append(PictureEdge(src, dst, _value(shape)))

    def done(self) -> Subgraph:
        return Subgraph(tuple(self.nodes), tuple(self.edges))


def site_picture(rule: str, meeting: Any, chains: list[Any], split_dim: int, split_dims: list[int],
                 out_dim: int | None, summary: str, gmms_kept: bool = False,
                 combined: bool = False) -> SitePicture:
    """The picture of one site; ``chains`` as the engine found them (nothing replaced yet),
    ``meeting`` where they meet (``meetings``): ``split_dim`` is where the halves are cut,
    ``split_dims[k]`` that dimension after step k, ``out_dim`` where it lands in a GMM's
    result (``two_gmm``); ``summary`` goes in the title; ``gmms_kept``: the GMMs stay as written
    (``engine.gmms_kept``), only the collectives are fused; ``combined``: their results reduced by one
    combined collective, not joined (``engine.combinable``)."""
    form = meeting.form
    return SitePicture(
        title=f"{rule} [{form}]: {summary}",
        before=_before(form, meeting, chains, meeting.gmms, split_dim),
        after=_after(form, chains, meeting.gmms, split_dim, split_dims, out_dim, gmms_kept, combined),
    )


def _weight(b: _Builder, chains: list[Any]) -> str | None:
    first = chains[0]
    if first.cut is None or as_dot(first.start) is not None:
        return None  # the halves are computed by GMMs, or are two weights: no weight to cut
    w = first.cut.whole
    line = _line(w)
    # An array a fusion computes before slicing it (_fusions.FusedValue) has no opcode.
    made_by = w.opcode if isinstance(w, Instruction) else "computed in a fusion"
    return b.node("w", f"W = {w.ref}\n({made_by}{', ' + line if line else ''})", "weight")


# Halves that never meet (moe-pair-gradient-fusion): each ends at its own users.
_APART = ("two_gmm_apart", "split_apart")


def _before(form: str, meeting: Any, chains: list[Any], gmms: list[Any] | None, split_dim: int) -> Subgraph:
    b = _Builder()
    w = _weight(b, chains)
    tops = []
    for i, chain in enumerate(chains):
        prev = b.node(f"h{i}", _slice_label(chain, split_dim), "slice")
        if w is not None:
            b.edge(w, prev, chain.cut.whole.shape)
        shape = chain.cut.shape if chain.cut is not None else chain.start.shape
        for k, step in enumerate(chain.ops):
            label, kind = _step_label(step, _step_shape(step))
            cur = b.node(f"h{i}s{k}", label, kind)
            b.edge(prev, cur, shape)
            prev, shape = cur, _step_shape(step)
        tops.append((prev, shape))
    if form in ("concat", "pad_add") or form in _REORDERED:
        label = "concatenate" if form == "concat" else f"pad + add (the halves put back{_REORDERED.get(form, '')})"
        meet = b.node("meet", f"{label} (dim {meeting.dims[0]})\n{_line(meeting.anchor)}".rstrip(), "meet")
        for top, shape in tops:
            b.edge(top, meet, shape)
        use = b.node("use", "its users", "use")
        b.edge(meet, use, meeting.shape)
    elif form == "two_gmm":
        for i, ((top, shape), g) in enumerate(zip(tops, gmms or ())):
            gid = b.node(f"g{i}", f"{g.opcode} (GMM {i + 1})\n{_line(g)}".rstrip(), "gmm")
            b.edge(top, gid, shape)
            use = b.node(f"u{i}", f"users of GMM {i + 1}", "use")
            b.edge(gid, use, g.shape)
    elif form in _APART:
        for i, (top, shape) in enumerate(tops):
            use = b.node(f"u{i}", f"users of half {i + 1}", "use")
            b.edge(top, use, shape)
    return b.done()


# Halves joined into a layout that does not hold them side by side (``reordered``): how.
_REORDERED = {"stacked_pad_add": " as a stacking axis", "interleaved_pad_add": " interleaved"}


def _after(form: str, chains: list[Any], gmms: list[Any] | None, split_dim: int, split_dims: list[int],
           out_dim: int | None, gmms_kept: bool = False, combined: bool = False) -> Subgraph:
    b = _Builder()
    w = _weight(b, chains)
    first = chains[0]
    if w is None and getattr(first, "result", None) is not None:
        # Two weights (MOE003): concatenated where their chains start.
        starts = [result_shape(c.start, c.result) for c in chains]
        shape = resized(starts[0], split_dim, sum(s.dims[split_dim] for s in starts))
        prev = b.node("src", f"concatenate of {', '.join(c.start.ref for c in chains)} (dim {split_dim})", "slice")
        for i, (c, start) in enumerate(zip(chains, starts)):
            b.edge(b.node(f"w{i}", f"weight {c.start.ref}", "weight"), prev, start)
    elif w is None and gmms_kept:
        # The halves' GMMs as written, their results concatenated (or each an operand of one
        # combined collective).
        total = sum(c.start.shape.dims[split_dim] for c in chains)
        prev = b.node("src", "the GMMs' results, each an operand of one combined collective (no copy)" if combined
                      else f"concatenate of the GMMs' results (dim {split_dim})", "slice")
        for i, c in enumerate(chains):
            b.edge(b.node(f"k{i}", f"{c.start.opcode} (GMM {i + 1}, kept)", "gmm"), prev, c.start.shape)
        shape = resized(first.start.shape, split_dim, total)
    elif w is None:
        total = sum(c.start.shape.dims[split_dim] for c in chains)
        prev = b.node("src", f"{first.start.opcode} (one GMM on the joined inputs)", "gmm")
        shape = resized(first.start.shape, split_dim, total)
    else:
        prev, shape = w, first.cut.whole.shape
    for k, step in enumerate(first.ops):
        size = sum(_step_shape(c.ops[k]).dims[split_dims[k]] for c in chains)
        full = resized(_step_shape(step), split_dims[k], size)
        label, kind = _step_label(step, full)
        label = "\n".join(l for l in label.split("\n") if not l.startswith("line "))  # a new op: no line yet
        cur = b.node(f"a{k}", label, kind)
        b.edge(prev, cur, shape)
        prev, shape = cur, full
    if form in _REORDERED:  # the joined gradient put into W's layout (``reordered``)
        moved = b.node("reorder", f"reshape + transpose: the halves{_REORDERED[form]}", "slice")
        b.edge(prev, moved, shape)
        prev = moved
    if form in ("concat", "pad_add") or form in _REORDERED:
        use = b.node("use", "the concatenate's users" if form == "concat" else "the add's users", "use")
        b.edge(prev, use, shape)
    elif form == "two_gmm" and gmms_kept:
        # Each GMM as written, reading its half of the one gathered weight.
        for i, (c, g) in enumerate(zip(chains, gmms or ())):
            piece = b.node(f"p{i}", f"slice: half {i + 1}", "slice")
            b.edge(prev, piece, shape)
            kept = b.node(f"g{i}", f"{g.opcode} (GMM {i + 1}, kept)", "gmm")
            b.edge(piece, kept, _step_shape(c.ops[-1]) if c.ops else c.start.shape)
            use = b.node(f"u{i}", f"users of GMM {i + 1}", "use")
            b.edge(kept, use, g.shape)
    elif form == "two_gmm":
        gmms = list(gmms or ())
        assert out_dim is not None, "two GMMs meet along a dimension of their result"
        fused = b.node("g", f"{gmms[0].opcode} (one GMM on the whole weight)", "gmm")
        b.edge(prev, fused, shape)
        whole = resized(gmms[0].shape, out_dim, sum(g.shape.dims[out_dim] for g in gmms))
        for i, g in enumerate(gmms):
            piece = b.node(f"p{i}", f"slice: GMM {i + 1}'s part", "slice")
            b.edge(fused, piece, whole)
            use = b.node(f"u{i}", f"users of GMM {i + 1}", "use")
            b.edge(piece, use, g.shape)
    elif form in _APART:
        # The halves never meet: each one's users read its slice of the fused chain's result.
        for i, c in enumerate(chains):
            top = _step_shape(c.ops[-1]) if c.ops else c.start.shape
            piece = b.node(f"p{i}", f"slice: half {i + 1}", "slice")
            b.edge(prev, piece, shape)
            use = b.node(f"u{i}", f"users of half {i + 1}", "use")
            b.edge(piece, use, top)
    else:  # split_gather / split_reduction: optimized HLO, reported only
        use = b.node("use", "(reported only: optimized HLO is not rewritten)", "use")
        b.edge(prev, use, shape)
    return b.done()
