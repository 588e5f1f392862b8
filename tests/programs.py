"""The project's own MoE programs (examples/moe.py) in every text form jax and XLA write.

What ``conftest.py``'s session-scoped fixtures of the same names return (it imports
this module, and so jax, only when a test asks for one of them):

* ``own_texts`` — ``{(program, form): OwnText}`` for every pair in
  ``TEXT_CASES``; forms are listed in ``FORMS`` (StableHLO pretty, generic and
  with debug info; HLO; compiled HLO; TPU and CUDA lowerings in both dialects).
* ``own_dump_dir`` — a folder of XLA dumps (and the StableHLO jax lowered)
  written by ``examples/dump_programs.py`` in a subprocess (dump flags are
  process-wide), once per session, in the jax version the tests run with.
* ``own_dumps`` — ``{(program, stage): OwnText}`` for ``DUMP_CASES``.

The case lists are plain module constants so that tests can parametrize on
them at collection time; the texts are produced once, on first use.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from examples.dump_programs import DUMP_PROGRAMS, DUMP_STAGES, LOWERED_FORMS  # noqa: E402
from examples.moe import MoEConfig, ProgramSpec, build  # noqa: E402


@dataclass(frozen=True)
class OwnText:
    """One text of one program: ``dialect`` is ``"hlo"`` or ``"stablehlo"``."""

    program: str
    form: str
    dialect: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.program}-{self.form}"


# Between them: shard_map (explicit all_gather and Shardy-implicit), one- and
# two-stage FSDP, grad, scan, the router layer, bf16 with f32 weights, reshard.
OWN_PROGRAMS: dict[str, ProgramSpec] = {
    spec.name: spec
    for spec in (
        ProgramSpec(variant="concat", mesh="mesh1", form="explicit", mode="forward"),
        ProgramSpec(variant="two_gmm", mesh="mesh2", form="explicit", mode="grad"),
        ProgramSpec(variant="concat", mesh="mesh2", form="implicit", mode="scan"),
        ProgramSpec(variant="fused", mesh="mesh1", form="implicit", mode="forward", constraint="reshard"),
        ProgramSpec(
            variant="concat", mesh="mesh1", form="explicit", mode="scan_grad", layer="router",
            cfg=MoEConfig(dtype="bfloat16", param_dtype="float32"),
        ),
    )
}

# form → dialect.  Cross-platform lowerings only for forward programs: they
# are what differs (chlo.ragged_dot / ragged-dot instead of the CPU
# decomposition), and each costs a lowering.
FORMS: dict[str, str] = {
    "stablehlo": "stablehlo",
    "stablehlo_generic": "stablehlo",
    "stablehlo_debuginfo": "stablehlo",
    "hlo": "hlo",
    "compiled": "hlo",
    "tpu_stablehlo": "stablehlo",
    "tpu_hlo": "hlo",
    "cuda_stablehlo": "stablehlo",
    "cuda_hlo": "hlo",
}
_PLATFORM_FORMS = {"tpu_stablehlo", "tpu_hlo", "cuda_stablehlo", "cuda_hlo"}


def forms_of(program: str) -> list[str]:
    spec = OWN_PROGRAMS[program]
    return [f for f in FORMS if f not in _PLATFORM_FORMS or spec.mode == "forward"]


TEXT_CASES: list[tuple[str, str]] = [(p, f) for p in OWN_PROGRAMS for f in forms_of(p)]
DUMP_CASES: list[tuple[str, str]] = [(p, s) for p in DUMP_PROGRAMS for s in (*DUMP_STAGES, *LOWERED_FORMS)]


def on_fresh_stack(fn: Callable[[], T]) -> T:
    """``fn()`` run on a new thread: jax writes the caller's stack frames into debug
    locations and compiled modules, and on a fresh thread they are the same whoever
    calls (a test, tests/golden_cases.py), so these texts can be compared byte for byte.
    jax's caches are cleared first: a jitted function inside the program (jnp.argsort)
    keeps the locations of the stack it was first traced on."""
    import jax

    jax.clear_caches()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # re-raised in the caller
            box["error"] = err

    thread = threading.Thread(target=run, name="hlo_passes-lowering")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _texts_of(program: str) -> dict[str, str]:
    return on_fresh_stack(lambda: _lower_texts(program))


def _lower_texts(program: str) -> dict[str, str]:
    fn, args = build(OWN_PROGRAMS[program])
    lowered = fn.lower(*args)
    forms = forms_of(program)
    out: dict[str, str] = {
        "stablehlo": lowered.as_text(),
        "stablehlo_generic": lowered.compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=True),
        "stablehlo_debuginfo": lowered.as_text(debug_info=True),
        "hlo": lowered.as_text(dialect="hlo"),
        "compiled": lowered.compile().as_text(),
    }
    for platform in ("tpu", "cuda"):
        if f"{platform}_stablehlo" in forms:
            other = fn.trace(*args).lower(lowering_platforms=(platform,))
            out[f"{platform}_stablehlo"] = other.as_text()
            out[f"{platform}_hlo"] = other.as_text(dialect="hlo")
    return {f: out[f] for f in forms}


class _LazyTexts(Mapping[tuple[str, str], OwnText]):
    """``(program, form) -> OwnText``, lowering each program on first use only,
    so that a ``-k`` selection pays for the programs it touches."""

    def __init__(self) -> None:
        self._done: dict[str, dict[str, OwnText]] = {}

    def _of(self, program: str) -> dict[str, OwnText]:
        if program not in self._done:
            self._done[program] = {
                form: OwnText(program, form, FORMS[form], text) for form, text in _texts_of(program).items()
            }
        return self._done[program]

    def __getitem__(self, key: tuple[str, str]) -> OwnText:
        program, form = key
        if program not in OWN_PROGRAMS:
            raise KeyError(key)
        return self._of(program)[form]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(TEXT_CASES)

    def __len__(self) -> int:
        return len(TEXT_CASES)


def own_texts() -> Mapping[tuple[str, str], OwnText]:
    return _LazyTexts()


def run_dump_script(out: Path, timeout: float = 300, *, script: str = "dump_programs.py") -> dict[str, dict[str, str]]:
    """Run ``examples/<script>`` (dump_programs.py, or dump_pair_programs.py) into ``out`` in a fresh
    process; its manifest."""
    env = dict(os.environ)
    # The child adds its own dump flags; it must not inherit a dump folder.
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_dump"))
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / script), str(out)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{script} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads((out / "manifest.json").read_text())


def dump_texts(out: Path, script: str) -> dict[tuple[str, str], str]:
    """``{(program, stage): text}`` of the dumps ``examples/<script>`` writes into ``out``."""
    manifest = run_dump_script(out, script=script)
    return {(p, s): (out / rel).read_text() for p, stages in manifest.items() for s, rel in stages.items()}


def own_dump_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("xla_dump")
    run_dump_script(out)
    return out


def own_dumps(own_dump_dir: Path) -> dict[tuple[str, str], OwnText]:
    manifest = json.loads((own_dump_dir / "manifest.json").read_text())
    return {
        (program, stage): OwnText(program, stage, "stablehlo" if rel.endswith(".mlir") else "hlo",
                                  (own_dump_dir / rel).read_text())
        for program, stages in manifest.items()
        for stage, rel in stages.items()
    }


def case_id(case: tuple[str, str]) -> str:
    return f"{case[0]}-{case[1]}"


__all__: list[str] = [
    "DUMP_CASES",
    "FORMS",
    "OWN_PROGRAMS",
    "OwnText",
    "TEXT_CASES",
    "case_id",
    "forms_of",
    "on_fresh_stack",
    "own_dump_dir",
    "own_dumps",
    "own_texts",
    "run_dump_script",
]


def ynn_dots(optimized_text: str) -> bool:
    """Whether an optimized module runs its batched dots (the examples' GMMs on CPU: the experts
    batched) through YNNPACK: jax >= 0.12.1's XLA:CPU puts each in a custom fusion of kind
    ``__ynn_fusion`` (0.10.2's does so for 2-D dots only).  The rules hold back a fix that runs two
    such GMMs as one, whose rounding depends on the dot's shape (docs/optimized-hlo.md,
    tests/test_ynn_dots.py): the site is found, not rewritten, and the program's values stay jax.jit's."""
    import hlo_passes
    from hlo_passes.ir.analysis import as_dot, ynn_dot

    if "__ynn_fusion" not in optimized_text:
        return False
    return any(ynn_dot(i) and as_dot(i).attributes.get("lhs_batch_dims")  # type: ignore[union-attr]
               for i in hlo_passes.parse(optimized_text).instructions())


def compiled_here_context():
    """The ``PassContext`` a caller hands the rules for a text it compiles on this process's XLA:CPU
    (``runtime.compile_text``): where that XLA's dots round by their shape (YNNPACK,
    ``gmm.target.dots_round_by_shape_here``), the split rules keep the GMMs as written and fuse only
    the collectives, so that the rewritten program is bit-equal to the original (docs/optimized-hlo.md)."""
    from hlo_passes.gmm.target import dots_round_by_shape_here
    from hlo_passes.pass_interface import PassContext

    return PassContext.for_platform(None, dots_round_by_shape=dots_round_by_shape_here("cpu"))
