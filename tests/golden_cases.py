"""Golden outputs: what the rewrite passes make of every module the tests and examples produce.

For each module (the project's programs in every text form, XLA's dumps of
them, the programs the rule tests lower, the shared samples and
``examples/data``) ``tests/golden/`` holds the report of ``run_passes`` with
every rewrite pass (``<name>.report.json``) and, when the module changed, the
rewritten text (``<name>.out.hlo`` / ``.out.mlir``); an unchanged module must
print back byte-identical, so its text is not stored.  Lowered texts differ
between jax versions: those live under ``tests/golden/jax-<major>.<minor>/``,
the fixed inputs (samples, examples/data) under ``tests/golden/common/``.

    python tests/golden_cases.py --write    # regenerate (what `make golden` runs)
    python tests/golden_cases.py --check    # compare, list what differs

``tests/test_golden.py`` compares the same outputs byte for byte.  Inputs are
made with the repository's absolute path replaced by ``<repo>`` and lowered on
a fresh thread, so that the stack frames jax writes into debug locations and
compiled modules are the same whoever asks (pytest or this script).
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # pragma: no cover - the device count must precede the jax import
    _flags = os.environ.get("XLA_FLAGS", "")
    if "--xla_force_host_platform_device_count" not in _flags:
        os.environ["XLA_FLAGS"] = f"{_flags} --xla_force_host_platform_device_count=8".strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent))

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
GOLDEN = TESTS / "golden"
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import hlo_passes  # noqa: E402
from hlo_passes.passes import run_passes  # noqa: E402


@dataclass(frozen=True)
class GoldenCase:
    """One module: ``name`` is its path under the golden set, ``make`` produces its text."""

    name: str
    dialect: str  # "hlo" or "stablehlo"
    make: Callable[[], str]
    versioned: bool = True  # lowered by jax: golden files per jax version

    @property
    def suffix(self) -> str:
        return ".hlo" if self.dialect == "hlo" else ".mlir"


def jax_set() -> str:
    """``jax-<major>.<minor>`` (``jax-0.12.1`` from 0.12.1 on, whose lowering changed): the golden set."""
    import jax

    major, minor = jax.__version__.split(".")[:2]
    return "jax-0.12.1" if tuple(jax.__version_info__[:3]) >= (0, 12, 1) else f"jax-{major}.{minor}"


def normalized(text: str) -> str:
    """The text as it would be in any checkout: the repository's path is ``<repo>``."""
    return text.replace(str(REPO_ROOT), "<repo>")


def outputs(case: GoldenCase, text: str) -> dict[str, str]:
    """File name (relative to its golden set) -> content, for one module's text."""
    try:
        module = hlo_passes.parse(text, dialect=case.dialect)
    except hlo_passes.ParseError as err:
        # Recorded too: a text form the parser cannot read yet shows in the
        # diff of the day it can.
        report = {"parse_error": str(err).splitlines()[0]}
        return {f"{case.name}.report.json": json.dumps(report, indent=1, sort_keys=True) + "\n"}
    result = run_passes(module, copy=False)
    new_text = result.module.to_text()
    changed = new_text != text
    report = {
        "changed": changed,
        "sites": [s.to_json() for s in result.sites],
        "near_misses": [m.to_json() for m in result.near_misses],
    }
    files = {f"{case.name}.report.json": json.dumps(report, indent=1, sort_keys=True) + "\n"}
    if changed:
        files[f"{case.name}.out{case.suffix}"] = new_text
    return files


# ---- the modules -------------------------------------------------------------------

def _sample_cases(shared: Path) -> Iterator[GoldenCase]:
    samples = shared / "samples"
    if not samples.is_dir():
        return
    for path in sorted(samples.rglob("*")):
        if not path.is_file() or path.suffix not in (".mlir", ".hlo", ".txt"):
            continue
        text = path.read_text(errors="replace")
        if not text.lstrip().startswith(("HloModule", "module", "#", "func", '"builtin.module"')):
            continue
        rel = path.relative_to(samples)
        yield GoldenCase(f"samples/{rel}", hlo_passes.detect_dialect(text),
                         lambda p=path: p.read_text(errors="replace"), versioned=False)


def _example_cases() -> Iterator[GoldenCase]:
    for path in sorted((REPO_ROOT / "examples" / "data").iterdir()):
        if path.suffix in (".hlo", ".mlir"):
            yield GoldenCase(f"examples/{path.name}", "hlo" if path.suffix == ".hlo" else "stablehlo",
                             lambda p=path: p.read_text(), versioned=False)


def _lowered_cases(dumps: Callable[[], dict]) -> Iterator[GoldenCase]:
    """Everything jax lowers for the tests; imported here so that the list is the tests' own."""
    import test_moe_gather_fusion as gather
    import test_moe_gradient_fusion as gradient
    from examples import moe
    from examples.dump_programs import DUMP_PROGRAMS, DUMP_STAGES
    from gmm_cases import platform_text
    from moe_cases import DIALECTS, lowered_text
    from programs import FORMS, OWN_PROGRAMS, forms_of, on_fresh_stack, own_texts

    texts = own_texts()
    for program in OWN_PROGRAMS:
        for form in forms_of(program):
            yield GoldenCase(f"programs/{program}.{form}", FORMS[form],
                             lambda p=program, f=form: texts[p, f].text)
    for program in DUMP_PROGRAMS:
        for stage in DUMP_STAGES:
            yield GoldenCase(f"dumps/{program}.{stage}", "hlo", lambda p=program, s=stage: dumps()[p, s].text)
    rule_specs = {
        "gather": [*gather.EXPLICIT, *gather.IMPLICIT, *gather.BF16],
        "gradient": [*gradient.GRAD_SPECS, *gradient.IMPLICIT_GRAD],
    }
    for group, specs in rule_specs.items():
        for spec in dict.fromkeys(specs):
            for dialect in DIALECTS:
                yield GoldenCase(f"{group}/{spec.name}.{dialect}", dialect,
                                 lambda s=spec, d=dialect: lowered_text(s, d))
    # As test_ragged_dot_lowerings_rewritten_and_valid and _bf16_executed lower them.
    lowerings = [(p, moe.ProgramSpec(variant=v, mesh="mesh2", form=f))
                 for p in ("tpu", "cuda") for v in ("concat", "two_gmm") for f in ("explicit", "implicit")]
    lowerings += [("tpu", s) for s in gather.RAGGED_DOT_BF16]
    for platform, spec in lowerings:
        for dialect in DIALECTS:
            yield GoldenCase(f"gather/{spec.name}.{platform}.{dialect}", dialect,
                             lambda s=spec, p=platform, d=dialect: platform_text(s, p, d))
    # As test_compiled_hlo_sites_detected_not_rewritten and its gradient twin compile them.
    compiled = [moe.ProgramSpec(variant=v, mesh=m, form=f)
                for m in moe.MESHES for f in ("explicit", "implicit") for v in ("concat", "two_gmm", "fused")]
    compiled += [moe.ProgramSpec(variant="concat", mesh=m, mode="grad") for m in moe.MESHES]
    for spec in compiled:
        yield GoldenCase(f"compiled/{spec.name}", "hlo",
                         lambda s=spec: on_fresh_stack(lambda: moe.lower(s).compile().as_text()))
    for kind, (mesh_kind, _) in sorted(gather.NEAR_MISSES.items()):
        for dialect in DIALECTS:
            yield GoldenCase(f"gather/near_miss_{kind}.{dialect}", dialect,
                             lambda k=kind, m=mesh_kind, d=dialect: gather._near_miss_program(k, m).as_text(dialect=d))
    for kind in sorted(gradient.GRAD_NEAR_MISSES):
        for dialect in DIALECTS:
            yield GoldenCase(f"gradient/near_miss_{kind}.{dialect}", dialect,
                             lambda k=kind, d=dialect: gradient._near_miss_grad_program(k, 2, 16).as_text(dialect=d))


def cases(dumps: Callable[[], dict], shared: Path | None) -> list[GoldenCase]:
    found = [*_example_cases(), *(_sample_cases(shared) if shared else ()), *_lowered_cases(dumps)]
    names = [c.name for c in found]
    assert len(names) == len(set(names)), "golden names must be unique"
    return found


def expected(case_list: list[GoldenCase], version_set: str) -> dict[Path, str]:
    """Every golden file, as the current code makes it: path under tests/golden -> content."""
    files: dict[Path, str] = {}
    for case in case_list:
        folder = Path(version_set if case.versioned else "common")
        for rel, content in outputs(case, normalized(case.make())).items():
            files[folder / rel] = content
    return files


def committed(version_set: str) -> dict[Path, str]:
    """The golden files of ``version_set`` and ``common`` as they are on disk."""
    files = {}
    for folder in (version_set, "common"):
        root = GOLDEN / folder
        if root.is_dir():
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                files[path.relative_to(GOLDEN)] = path.read_text(encoding="utf-8", errors="surrogateescape")
    return files


def _script_dumps() -> Callable[[], dict]:
    """XLA's dumps of the dump programs, made once in a fresh process (as the tests do)."""
    import tempfile

    from programs import OwnText, run_dump_script

    cache: dict = {}

    def get() -> dict:
        if not cache:
            out = Path(tempfile.mkdtemp(prefix="hlo_passes_golden_dumps_"))
            manifest = run_dump_script(out)
            cache.update({(p, s): OwnText(p, s, "hlo", (out / rel).read_text())
                          for p, stages in manifest.items() for s, rel in stages.items()})
        return cache

    return get


def main(argv: list[str] | None = None) -> int:
    import argparse
    import shutil

    from conftest import shared_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate this jax version's set and common/")
    mode.add_argument("--check", action="store_true", help="compare with the committed files")
    args = parser.parse_args(argv)
    shared = shared_path()
    if not (shared / "samples").is_dir():
        parser.error(f"{shared}/samples not found (set HLO_PASSES_SHARED): common/ would lose the samples")
    version_set = jax_set()
    want = expected(cases(_script_dumps(), shared), version_set)
    if args.write:
        for folder in (version_set, "common"):
            shutil.rmtree(GOLDEN / folder, ignore_errors=True)
        for rel, content in want.items():
            path = GOLDEN / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8", errors="surrogateescape")
        size = sum(len(c.encode("utf-8", "surrogateescape")) for c in want.values())
        print(f"{version_set} + common: {len(want)} files, {size / 1e6:.2f} MB")
        return 0
    have = committed(version_set)
    differ = sorted(str(p) for p in set(want) | set(have) if want.get(p) != have.get(p))
    print("\n".join(differ) or f"{version_set} + common: {len(want)} files, all equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
