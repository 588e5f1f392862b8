"""moe-ffn-fusion (MOE005): the expert FFN as one kernel.

An MoE layer's expert FFN is two grouped matmuls (GMMs: ``ragged-dot`` / ``chlo.ragged_dot`` in
the ragged-rows form ``[T, D] x [E, D, N] -> [T, N]``) around a gated activation:

    h = gmm(x, w_in, gs)                       # w_in [E, D, 2F]: the prefused form
    y = gmm(silu(h[:, :F]) * h[:, F:], w_out, gs)   # (or silu of the second half: up first)

or, with the gate and up weights apart (the pair form),

    y = gmm(silu(gmm(x, w_gate, gs)) * gmm(x, w_up, gs), w_out, gs).

Unfused, the ``[T, 2F]`` GMM result and the ``[T, F]`` activation are written to memory whole
and read back.  The rule replaces the chain by one call of hlo_passes's CPU fused-FFN kernel
(``hlo_passes_moe_ffn_silu``, ``..._up_first``, ``..._pair``: typed FFI, registered by ``import
hlo_passes.kernels``), which keeps tiles of tokens in cache from x to y.  It is legal only when
nothing else reads an intermediate (the chain goes with the rewrite), both GMMs group the rows
by the very same group sizes, and the GMM results, the activation and the product are in one
floating-point type (the kernel rounds to it op by op, as XLA computes the unfused program).
silu is recognised as jax writes it (``x * (1 / (1 + exp(-x)))`` in a ``call @silu``, or
``x * logistic(x)``), inline or called; jax's subnormal-preserving sigmoid (``select(x >= 0, 1, e)
/ (1 + e)``, e = ``exp(-|x|)``: its GPU lowering since jax 0.12.1), which the kernels do not
compute, is refused (``ffn-sigmoid-form``).  The backward of a training step is left as is: where
the forward's intermediates are saved for it the rule refuses (``ffn-intermediate-users``);
under ``jax.checkpoint`` the forward is fused and the rematerialized backward stays unfused.
The rule is opt-in and emits the kernel of the platform sites are priced for (the pipeline's
``PassContext``: ``--platform``; ``hlo_passes.jit`` prices for the backend it compiles for): on CPU the FFI call above; on TPU the Pallas kernel (``gmm/pallas_ffn.py``)
lowered with jax for the site's shapes, its ``tpu_custom_call`` spliced in as a called
function (``gmm/ffn_kernel.py``), held back where Mosaic cannot tile the shapes; on GPU the CUDA
kernel's FFI call (``hlo_passes_moe_ffn_silu*_cuda``, ``kernels/gpu/grouped_matmul.cu``)
(docs/moe-ffn-fusion.md).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..checks import Refusal
from ..gmm import ffn_kernel, placement
from ..pass_interface import PassContext
from ..gmm.ffi_call import create_ffi_call
from ..ir import Instruction, Module, Value
from ..ir.rewriter import Rewriter
from ..ir.analysis import remove_dead, remove_unused_callees, same_value
from ..report import CollectiveCost, Site, SiteDetails, Wording, location_of
from ..rule import PatternRule, RuleMeta, check

__all__ = ["FFN_TARGETS", "FfnDetails", "GPU_FFN_TARGETS", "MoeFfnFusion"]

# The CPU kernel's targets by form (hlo_passes.kernels.CPU_MOE_FFN_TARGETS registers them).
FFN_TARGETS = {"gate_first": "hlo_passes_moe_ffn_silu", "up_first": "hlo_passes_moe_ffn_silu_up_first",
               "pair": "hlo_passes_moe_ffn_silu_pair"}
# The CUDA kernel's targets by form (hlo_passes.kernels.gpu.GPU_MOE_FFN_TARGETS registers them).
GPU_FFN_TARGETS = {form: f"{target}_cuda" for form, target in FFN_TARGETS.items()}
# The FFI kernel's targets for the platforms that get one (TPU gets the Pallas kernel).
_FFI_KERNELS = {"cpu": FFN_TARGETS, "gpu": GPU_FFN_TARGETS}
_FLOATS = frozenset({"f32", "bf16"})
_SIZES = frozenset({"s32", "s64"})
_CALLS = frozenset({"call"})  # MLIR's func.call too: the dialect reads it as call
# What a silu's ``1`` may be spelled with (a constant, broadcast).
_CONSTANT_OPS = frozenset({"constant", "broadcast"})
# The sigmoid jax writes where it preserves subnormals (its GPU lowering since jax 0.12.1, f16 on
# every platform, ``jax_accurate_logistic`` with accuracy HIGHEST): e = exp(-|x|), then
# select(x >= 0, 1, e) / (1 + e).  The same function as 1 / (1 + exp(-x)), but not the same
# arithmetic: for x < 0 it computes exp(x) / (1 + exp(x)), which rounds otherwise, and is a tiny
# nonzero number where the plain form's exp(-x) overflows and it gives 0.  The fused kernels compute
# the plain form op by op, so a silu of this form is refused (``ffn-sigmoid-form``).
SUBNORMAL_PRESERVING = "subnormal-preserving"
# The form the fused kernels compute: jax's ``1 / (1 + exp(-x))`` (``logistic`` taken as it too).
PLAIN = "plain"


@dataclass(kw_only=True)
class FfnDetails(SiteDetails):
    """What a MOE005 site says: the two GMMs it runs as one kernel and the intermediates it
    no longer writes."""

    first_gmm: str
    second_gmm: str
    experts: int
    intermediate_bytes: int


@dataclass
class Ffn:
    """``second(silu(gate) * up, w_out)`` with gate and up two halves of one GMM or two GMMs."""

    second: Instruction  # the GMM that reads the product
    product: Instruction
    gate: Instruction  # what silu reads
    up: Instruction
    silu_ops: list[Instruction]  # the ops computing silu(gate) in second's computation
    converts: list[Instruction]  # converts on the way (a mixed-precision chain: refused)
    sigmoid: str = PLAIN  # the form of silu's sigmoid (SUBNORMAL_PRESERVING: refused)
    # Filled by the checks.
    form: str = ""  # gate_first, up_first, pair
    first: list[Instruction] = field(default_factory=list)  # the up-projection GMM(s)


def _scalar(instr: Instruction, value: float) -> bool:
    """A constant ``value`` (through broadcasts)."""
    while instr.opcode == "broadcast":
        instr = instr.operands[0]
    if instr.opcode != "constant":
        return False
    attrs = instr.attributes
    text = str(attrs["literal"]) if "literal" in attrs else (instr.mlir_pretty_value or "")
    text = text.removeprefix("dense<").split(">")[0].strip()
    try:
        return float(text) == value
    except ValueError:
        return False


def _one(instr: Instruction) -> bool:
    """A constant 1 (through broadcasts)."""
    return _scalar(instr, 1.0)


def _preserving_sigmoid_of(instr: Instruction) -> tuple[Instruction, list[Instruction]] | None:
    """(x, the ops) when ``instr`` is ``select(x >= 0, 1, e) / (1 + e)``, e = ``exp(-abs(x))``, the
    one ``e`` read by both (the same op, or provably the same value)."""
    if instr.opcode != "divide" or any(r != 0 for r in instr.operand_results):
        return None
    sel, add = instr.operands
    if sel.opcode != "select" or add.opcode != "add" or len(sel.operands) != 3:
        return None
    pred, one, e = sel.operands
    a, b = add.operands
    if _one(b):
        a, b = b, a
    if not (_one(one) and _one(a) and e.opcode == "exponential" and same_value(b, e)):
        return None
    neg = e.operands[0]
    if neg.opcode != "negate" or neg.operands[0].opcode != "abs":
        return None
    x = neg.operands[0].operands[0]
    if (pred.opcode != "compare" or pred.compare_direction != "GE" or pred.operands[0] is not x
            or not _scalar(pred.operands[1], 0.0)):
        return None
    return x, [instr, sel, add, e, neg, neg.operands[0], pred]


def _sigmoid_of(instr: Instruction) -> tuple[Instruction, list[Instruction], str] | None:
    """(x, the ops, which form) when ``instr`` is ``logistic(x)`` or ``1 / (1 + exp(-x))``
    (``PLAIN``), or jax's subnormal-preserving sigmoid of x (``SUBNORMAL_PRESERVING``)."""
    if instr.opcode == "logistic":
        return instr.operands[0], [instr], PLAIN
    preserving = _preserving_sigmoid_of(instr)
    if preserving is not None:
        return (*preserving, SUBNORMAL_PRESERVING)
    if instr.opcode != "divide" or not _one(instr.operands[0]):
        return None
    add = instr.operands[1]
    if add.opcode != "add":
        return None
    a, b = add.operands
    if _one(a):
        a, b = b, a
    if not _one(b) or a.opcode != "exponential" or a.operands[0].opcode != "negate":
        return None
    neg = a.operands[0]
    return neg.operands[0], [instr, add, a, neg], PLAIN


def _returned(instr: Instruction, index: int) -> Instruction | None:
    """The op a call's result ``index`` is, inside the callee (an MLIR return's operand, an HLO
    root or an element of its root tuple)."""
    if len(instr.called_computations) != 1:
        return None
    root = instr.called_computations[0].root
    if root is not None and (root.is_terminator or (root.opcode == "tuple" and instr.shape.is_tuple)):
        if index >= len(root.operands) or root.operand_results[index] != 0:
            return None
        return root.operands[index]
    return root if index == 0 else None


def _silu_of(instr: Instruction, result: int = 0) -> tuple[Instruction, list[Instruction], str] | None:
    """(x, the ops of ``instr``'s computation computing it, its sigmoid's form) when result
    ``result`` of ``instr`` is ``silu(x)``: ``x * sigmoid(x)`` inline, or the result of a function
    of x returning that of its parameter (jax's ``call @silu``; in a training step its jvp, which
    returns more)."""
    if instr.opcode == "get-tuple-element" and instr.operands[0].opcode in _CALLS:
        found = _silu_of(instr.operands[0], int(instr.attributes.get("index", -1)))
        return None if found is None else (found[0], [instr, *found[1]], found[2])
    if instr.opcode in _CALLS:
        inner_root = _returned(instr, result) if len(instr.operands) == 1 else None
        inner = _silu_of(inner_root) if inner_root is not None else None
        if inner is None or inner[0].opcode != "parameter" or instr.operand_results[0] != 0:
            return None
        return instr.operands[0], [instr], inner[2]
    if instr.opcode != "multiply" or result != 0:
        return None
    for x, other in (instr.operands, instr.operands[::-1]):
        found = _sigmoid_of(other)
        if found is not None and found[0] is x:
            return x, [instr, *found[1]], found[2]
    return None


def _unconverted(instr: Instruction, converts: list[Instruction]) -> Instruction:
    """``instr`` through the converts on it (noted in ``converts``: a mixed-precision chain, which
    the element-type check refuses)."""
    while instr.opcode == "convert":
        converts.append(instr)
        instr = instr.operands[0]
    return instr


def _canonical_gmm(gmm: Instruction) -> bool:
    """A ragged-rows GMM ``[T, D] x [E, D, N] -> [T, N]`` in jax's dimension numbering (the
    kernel's)."""
    a = gmm.attributes
    dims = {k: tuple(int(d) for d in a.get(k, ())) for k in (
        "lhs_contracting_dims", "rhs_contracting_dims", "lhs_ragged_dims", "rhs_group_dims",
        "lhs_batch_dims", "rhs_batch_dims")}
    return (gmm.opcode == "ragged-dot" and len(gmm.operands) == 3 and gmm.operands[0].shape.rank == 2
            and gmm.operands[1].shape.rank == 3 and dims["lhs_contracting_dims"] == (1,)
            and dims["rhs_contracting_dims"] == (1,) and dims["lhs_ragged_dims"] == (0,)
            and dims["rhs_group_dims"] == (0,) and not dims["lhs_batch_dims"] and not dims["rhs_batch_dims"])


def _half(instr: Instruction) -> tuple[Instruction, int] | None:
    """(the op sliced, which column half: 0 or 1) when ``instr`` keeps all rows and one exact
    half of the columns of a rank-2 value."""
    if instr.opcode != "slice" or instr.operand_results[0] != 0:
        return None
    src = instr.operands[0]
    if src.shape.rank != 2:
        return None
    spec = instr.attributes.get("slice")
    if spec is None or len(spec) != 2 or any(len(r) != 3 for r in spec):
        return None  # text that states other ranks than its shapes (carried through, not ours)
    (r0, r1, rs), (c0, c1, cs) = spec
    rows, cols = src.shape.dims
    if (r0, r1, rs, cs) != (0, rows, 1, 1) or cols % 2:
        return None
    half = cols // 2
    if (c0, c1) == (0, half):
        return src, 0
    if (c0, c1) == (half, cols):
        return src, 1
    return None


def _from_gmms(gate: Instruction, up: Instruction) -> bool:
    """Gate and up are slices of GMM results, or two GMMs' results (the halves check says whether
    they are the halves of one)."""
    if gate.opcode == up.opcode == "slice":
        return gate.operands[0].opcode == up.operands[0].opcode == "ragged-dot"
    return gate.opcode == up.opcode == "ragged-dot"


class MoeFfnFusion(PatternRule[Ffn]):
    meta = RuleMeta(
        code="MOE005",
        pass_name="moe-ffn-fusion",
        name="MoeExpertFfnFusion",
        summary="expert FFN computed as two grouped matmuls around its activation",
        help="The expert FFN gmm(silu(gate) * up, w_out) writes its [T, 2F] up-projection and [T, F] "
             "activation to memory whole and reads them back; one fused kernel keeps tiles of tokens in "
             "cache from x to y. `hlo-rewrite --passes moe-ffn-fusion --platform cpu` replaces the chain by "
             "hlo_passes's CPU fused-FFN kernel, `--platform gpu` by its CUDA kernel, `--platform tpu` by its "
             "Pallas kernel (docs/moe-ffn-fusion.md). Opt-in.",
        description="run an expert FFN (GMM, silu-gated activation, GMM) as one fused kernel call on CPU, "
                    "GPU or TPU (MOE005, opt-in)",
        markers=("ragged-dot", "ragged_dot"),
        verb="fused",
        message="{summary}: {first_gmm} and {second_gmm} over {experts} experts write "
                "{intermediate_bytes:,} bytes of intermediates (form {form})",
        opt_in=True,
        needs_kernel="it replaces the FFN by hlo_passes' fused-FFN kernel, which rounds differently from "
                     "XLA's grouped matmuls (on CPU jax lowers XLA's as a dense dot: no ragged-dot to match)",
        details=FfnDetails,
        wording=Wording(saves="saves {bytes:,} bytes of memory traffic per device",
                        fix="runs the FFN as one kernel, {saving}", gain="fusing it {saving}",
                        piece="GMM", fixed_by="named (opt-in), hlo-rewrite fuses it on CPU, GPU or TPU"),
    )
    name = meta.pass_name
    description = meta.description

    # ---- match ---------------------------------------------------------------------
    def match(self, module: Module) -> Iterator[Ffn]:
        placement.forget(module)  # the placement check reads this module's shardings afresh
        # A candidate: a down-projection GMM (jax's form; a backward GMM, transposed, is none)
        # whose lhs is silu(gate) * up with gate and up cut from GMM results.
        for second in list(module.instructions()):
            if not _canonical_gmm(second):
                continue
            converts: list[Instruction] = []
            product = _unconverted(second.operands[0], converts)
            if product.opcode != "multiply" or second.operand_results[0] != 0:
                continue
            for k in (0, 1):
                found = _silu_of(product.operands[k], product.operand_results[k])
                if found is not None:
                    more = list(converts)
                    gate = _unconverted(found[0], more)
                    up = _unconverted(product.operands[1 - k], more)
                    if _from_gmms(gate, up):
                        yield Ffn(second, product, gate, up, found[1], more, found[2])
                    break

    def anchor(self, ffn: Ffn) -> Instruction:
        return ffn.second

    # ---- checks --------------------------------------------------------------------
    @check("ffn-sigmoid-form")
    def sigmoid_form(self, ffn: Ffn) -> Refusal | None:
        if ffn.sigmoid == PLAIN:
            return None
        return Refusal("ffn-sigmoid-form", f"{ffn.product.ref}: silu's sigmoid is jax's subnormal-preserving "
                       "select(x >= 0, 1, e) / (1 + e), e = exp(-|x|) (its GPU lowering since jax 0.12.1); the "
                       "fused kernels compute 1 / (1 + exp(-x)), which rounds otherwise for x < 0", ffn.product)

    @check("ffn-halves")
    def halves(self, ffn: Ffn) -> Refusal | None:
        gate, up = _half(ffn.gate), _half(ffn.up)
        if gate is not None and up is not None and gate[0] is up[0] and gate[1] != up[1]:
            ffn.form = "gate_first" if gate[1] == 0 else "up_first"
            ffn.first = [gate[0]]
            return None
        if (ffn.gate.opcode == ffn.up.opcode == "ragged-dot" and ffn.gate is not ffn.up
                and same_value(ffn.gate.operands[0], ffn.up.operands[0])
                and ffn.gate.operands[1].shape == ffn.up.operands[1].shape):
            ffn.form = "pair"
            ffn.first = [ffn.gate, ffn.up]
            return None
        return Refusal("ffn-halves", f"{ffn.product.ref}: the gate {ffn.gate.ref} and up {ffn.up.ref} are "
                       "neither the two column halves of one GMM's result nor two GMMs of the same tokens",
                       ffn.product)

    @check("ffn-gmm-form")
    def gmm_form(self, ffn: Ffn) -> Refusal | None:
        for gmm in (*ffn.first, ffn.second):
            if not _canonical_gmm(gmm):
                return Refusal("ffn-gmm-form", f"{gmm.ref} is no grouped matmul [T, D] x [E, D, N] -> [T, N] in "
                               "jax's dimension numbers (ragged rows 0, contracting 1, groups 0)", gmm)
            if gmm.computation is not ffn.second.computation:
                return Refusal("ffn-gmm-form", f"{gmm.ref} and {ffn.second.ref} are in different computations",
                               gmm)
        f = ffn.second.operands[0].shape.dims[1]
        w_in = ffn.first[0].operands[1].shape.dims
        if w_in[2] != (f if ffn.form == "pair" else 2 * f) or ffn.second.operands[1].shape.dims[0] != w_in[0]:
            return Refusal("ffn-gmm-form", f"{ffn.second.ref}: its weight's expert and F dimensions do not "
                           "match the up-projection's", ffn.second)
        return None

    @check("ffn-group-sizes")
    def group_sizes(self, ffn: Ffn) -> Refusal | None:
        sizes = ffn.second.operands[2]
        for gmm in ffn.first:
            if not same_value(gmm.operands[2], sizes):
                return Refusal("ffn-group-sizes", f"{gmm.ref} groups the rows by {gmm.operands[2].ref}, "
                               f"{ffn.second.ref} by {sizes.ref}: not provably the same group sizes", gmm)
        return None

    @check("ffn-element-type")
    def element_types(self, ffn: Ffn) -> Refusal | None:
        compute = ffn.second.shape.element_type
        inner = [*ffn.first, ffn.gate, ffn.up, ffn.product, *ffn.silu_ops, *ffn.converts]
        bad = [i.ref for i in inner if i.shape.is_array and i.shape.element_type != compute]
        weights = {g.operands[1].shape.element_type for g in (*ffn.first, ffn.second)}
        why = None
        if compute not in _FLOATS:
            why = f"its result is {compute}, not f32 or bf16"
        elif bad or ffn.converts:
            bad = bad or [c.ref for c in ffn.converts]
            why = f"{', '.join(bad)} are not in its compute type {compute} (a mixed-precision chain)"
        elif ffn.first[0].operands[0].shape.element_type not in _FLOATS or not weights <= _FLOATS:
            why = "its tokens or weights are not f32 or bf16"
        elif len(weights) != 1:
            why = f"its weights have different element types ({', '.join(sorted(weights))})"
        elif ffn.second.operands[2].shape.element_type not in _SIZES:
            why = "its group sizes are not s32 or s64"
        if why:
            return Refusal("ffn-element-type", f"{ffn.second.ref}: {why}; the fused kernel computes in one "
                           "float type", ffn.second)
        return None

    @check("ffn-intermediate-users")
    def users(self, ffn: Ffn) -> Refusal | None:
        chain = [*ffn.first, ffn.gate, ffn.up, *ffn.silu_ops, *ffn.converts, ffn.product]
        inside = {id(i) for i in chain} | {id(ffn.second)}
        for op in chain:
            for user in op.users:
                if id(user) not in inside:
                    return Refusal("ffn-intermediate-users", f"{user.ref} also reads the intermediate {op.ref} "
                                   "(a training step's saved activation, or another use): it would be "
                                   "computed twice", user)
        if [k for k, o in enumerate(ffn.second.operands) if o is ffn.product] != [0]:
            return Refusal("ffn-intermediate-users", f"{ffn.second.ref} reads {ffn.product.ref} as more than its "
                           "lhs", ffn.second)
        return None

    @check("ffn-placement")
    def placed(self, ffn: Ffn) -> Refusal | None:
        # A kernel call takes whole operands: the partitioner would gather split ones for it
        # (the GMM lowerings leave such a ragged-dot to XLA for the same reason).
        for gmm in (*ffn.first, ffn.second):
            why = placement.refusal(gmm)
            if why is not None:
                return Refusal("ffn-placement", f"{gmm.ref}: {why}", gmm)
        return None

    # ---- report and rewrite ---------------------------------------------------------
    def site(self, ffn: Ffn) -> Site:
        raise TypeError(f"{self.name}'s report depends on the platform: site_for(ffn, context)")

    def site_for(self, ffn: Ffn, context: PassContext) -> Site:
        # Written whole and read back unfused: the up-projection ([T, 2F]) and the activation
        # ([T, F]) (the cost model counts a copy's write and read).  Where no fused kernel can
        # be emitted for the platform priced, the fix saves nothing there (no finding by default).
        written = sum(g.shape.byte_size for g in ffn.first) + ffn.product.shape.byte_size
        emitted = self._no_kernel(ffn, context.platform.name) is None
        saved = written if emitted else 0
        return Site(rule=self.name, form=ffn.form, location=location_of(ffn.second),
                    before=CollectiveCost(), after=CollectiveCost(), bytes_saved=saved, rewritten=False,
                    pieces=[location_of(g) for g in ffn.first], copies_removed=saved,
                    gmm_launches_saved=1 if emitted else 0,
                    details=FfnDetails(first_gmm=", ".join(g.name for g in ffn.first), second_gmm=ffn.second.name,
                                       experts=ffn.second.operands[1].shape.dims[0], intermediate_bytes=written))

    def held_back(self, ffn: Ffn, site: Site) -> str | None:
        # site.details.priced_for: the platform of the pipeline's context (the driver's pricing).
        assert site.details.priced_for is not None
        return self._no_kernel(ffn, site.details.priced_for) or super().held_back(ffn, site)

    @staticmethod
    def _operands(ffn: Ffn) -> list[Value]:
        """The fused call's operands: ``x, w_in[, w_up], w_out, group_sizes``."""
        first, second = ffn.first[0], ffn.second
        weights = [g.operand_values[1] for g in ffn.first]
        return [first.operand_values[0], *weights, second.operand_values[1], second.operand_values[2]]

    def _no_kernel(self, ffn: Ffn, platform: str) -> str | None:
        """Why no fused kernel is emitted for ``ffn`` on ``platform`` (the one sites are priced
        for), or None."""
        if platform in _FFI_KERNELS:
            return None
        if platform == "tpu":
            why = ffn_kernel.unavailable_reason() or ffn_kernel.tpu_refusal(
                ffn_kernel.spec_of(ffn.form, self._operands(ffn), ffn.second.shape))
            return None if why is None else f"the Pallas fused-FFN kernel is not emitted: {why}"
        return (f"sites are priced for {platform}, where no fused-FFN kernel exists; the rule emits the CPU "
                "kernel (--platform cpu), the CUDA kernel (--platform gpu) and the Pallas kernel for TPU "
                "(--platform tpu)")

    def rewrite(self, rw: Rewriter, ffn: Ffn) -> None:
        raise TypeError(f"{self.name}'s kernel depends on the platform: rewrite_for(rw, ffn, context)")

    def rewrite_for(self, rw: Rewriter, ffn: Ffn, context: PassContext) -> None:
        second = ffn.second
        operands = self._operands(ffn)
        platform = context.platform.name
        if platform == "tpu":
            spec = ffn_kernel.spec_of(ffn.form, operands, second.shape)
            call = ffn_kernel.splice_ffn(rw, spec, operands, before=second, interpret=False)
        else:  # CPU or GPU: one typed-FFI call of that platform's kernel
            call = create_ffi_call(rw, _FFI_KERNELS[platform][ffn.form], second.shape, operands, before=second)
        if "frontend_attributes" in second.attributes:
            rw.set_attribute(call, "frontend_attributes", dict(second.attributes["frontend_attributes"]))
        rw.carry_location(second, call)
        rw.replace_all_uses(second, call)
        remove_dead(rw, [second])
        # jax's ``silu`` function, once nothing calls it, goes too (XLA would drop it unused).
        remove_unused_callees(rw, [op for op in ffn.silu_ops if op.opcode in _CALLS])
