"""The op names of the MLIR dialects hlo_passes reads, from jaxlib's MLIR bindings: ``python tools/dialect_ops.py [--write]``.

Prints the ops of the stablehlo, mhlo, chlo, sdy and func dialects the
installed jaxlib defines (the generated op classes' ``OPERATION_NAME``), and
what they add to ``hlo_passes/dialects/stablehlo/dialect_ops.py``; ``--write`` rewrites
that table as the union of both.  Run it with each supported jax (the table
of this checkout: jaxlib 0.10.2, 0.12.0.1 and 0.12.1) so that an op of any of them is
known; tests/test_mlir_dialects.py checks the table against the installed
bindings.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "hlo_passes" / "dialects" / "stablehlo" / "dialect_ops.py"
# The bindings of each dialect: jax's public re-exports, else jaxlib's own (mhlo is only there).
MODULES = {
    "stablehlo": ("jax.extend.mlir.dialects.stablehlo", "jaxlib.mlir.dialects.stablehlo"),
    "chlo": ("jax.extend.mlir.dialects.chlo", "jaxlib.mlir.dialects.chlo"),
    "sdy": ("jax.extend.mlir.dialects.sdy", "jaxlib.mlir.dialects.sdy"),
    "func": ("jax.extend.mlir.dialects.func", "jaxlib.mlir.dialects.func"),
    "mhlo": ("jaxlib.mlir.dialects.mhlo",),
}


def installed_ops() -> dict[str, set[str]]:
    """Dialect → the op names the installed bindings define."""
    out: dict[str, set[str]] = {}
    for dialect, modules in MODULES.items():
        for name in modules:
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            ops = {getattr(v, "OPERATION_NAME") for v in vars(module).values()
                   if isinstance(getattr(v, "OPERATION_NAME", None), str)}
            out[dialect] = {op for op in ops if op.startswith(dialect + ".")}
            break
        else:
            raise SystemExit(f"no bindings of the {dialect} dialect in this jaxlib")
    return out


def render(ops: dict[str, set[str]], versions: list[str]) -> str:
    lines = [
        '"""The ops of the MLIR dialects hlo_passes reads, as jaxlib\'s MLIR bindings define them.',
        "",
        "An op named in one of these dialects' namespaces but not listed is unknown: a misspelling",
        "(``stablehlo.dot_genral``) or an op newer than this table.  The parser carries it through",
        "as text (``hlo-lint -v`` names it) and refuses it with ``validate=True``, as XLA's parser",
        "does and as unknown HLO opcodes are.  Ops of other dialects (arith, tensor, ...) are carried",
        "as before.  Written by ``python tools/dialect_ops.py --write`` from the bindings of jaxlib",
        f"{', '.join(versions)} (the union); tests/test_mlir_dialects.py checks it against the installed one.",
        '"""',
        "from __future__ import annotations",
        "",
        f"JAXLIB_VERSIONS = {tuple(versions)!r}",
        "",
        "DIALECT_OPS: dict[str, frozenset[str]] = {",
    ]
    for dialect in sorted(ops):
        names = sorted(ops[dialect])
        lines.append(f'    "{dialect}": frozenset((')
        row = "       "
        for n in names:
            piece = f' "{n}",'
            if len(row) + len(piece) > 112:
                lines.append(row)
                row = "       "
            row += piece
        lines.append(row)
        lines.append("    )),")
    lines += [
        "}",
        "",
        "",
        "def is_unknown_op(name: str) -> bool:",
        '    """Whether ``name`` is in the namespace of one of these dialects but no op of it."""',
        '    known = DIALECT_OPS.get(name.partition(".")[0])',
        "    return known is not None and name not in known",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite the table as the union with these bindings")
    args = ap.parse_args()
    import jaxlib

    sys.path.insert(0, str(REPO))
    try:
        from hlo_passes.dialects.stablehlo import dialect_ops as current

        table = {d: set(v) for d, v in current.DIALECT_OPS.items()}
        versions = list(current.JAXLIB_VERSIONS)
    except ImportError:
        table, versions = {}, []
    got = installed_ops()
    for dialect, names in sorted(got.items()):
        new = sorted(names - table.get(dialect, set()))
        print(f"{dialect}: {len(names)} ops in jaxlib {jaxlib.__version__}; not in the table: {new or 'none'}")
    if args.write:
        for dialect, names in got.items():
            table.setdefault(dialect, set()).update(names)
        if jaxlib.__version__ not in versions:
            versions.append(jaxlib.__version__)
        TABLE.write_text(render(table, sorted(versions)))
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
