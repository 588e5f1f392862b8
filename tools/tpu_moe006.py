"""MOE006 on the chip: every masked layer of examples/moe_mask.py, all rows compared with jax.jit.

Run on the TPU machine (one chip; ``python tools/tpu_moe006.py --out DIR``; also runs on CPU,
``JAX_PLATFORMS=cpu``, as a check of the script).  For each layer (lhs, result, both, ffn, scan)
and dtype (f32, bf16), the layer's outputs on its inputs (dropped tokens' rows hold NaN, Inf, 3e38):

* ``jax.jit``: the reference;
* ``hlo_passes.jit(layer, passes=["MOE006"])`` (kernel auto: on TPU XLA's own ragged-dot): must
  equal the reference bit for bit on every row, or the rule refused (near misses ``mask-kernel``,
  with the reason) and the program is jax's;
* ``hlo_passes.jit(layer, passes=["MOE006"], kernel="pallas")`` beside ``passes=[]`` with the same
  kernel: the rule's premise on the chip (the Pallas kernel as hlo_passes emits it writes +0 past
  the groups): bit for bit with the same kernel without the rule, and the rows past the groups +0;
* the pass inside XLA (``HLO_PASSES=rewrite HLO_PASSES_PASSES=MOE006``, in a child process run
  first, which alone holds the chip while it runs): outputs bit for bit with jax.jit's, and what
  the pass did with each module (rewritten sites, refusals, or skipped: no collective);
* a bare ``jax.lax.ragged_dot`` (no mask), to record what XLA's own ragged-dot writes past the
  groups on this backend.

Writes ``moe006.json`` and ``moe006.md`` under ``--out`` (keep them as
``benchmarks/results/moe006_tpu.{md,json}``, the md's heading made ``## ``); exit 1 if any output differs.  On the TPU machine
(``run`` sends /work/main's tree: copy this checkout to ``.tpu/<name>/`` first)::

    cd .tpu/<name> && PIP_CONFIG_FILE=/dev/null python3 -m pip install -q --isolated --only-binary=:all: \
        --index-url file:///opt/pypi/simple --target /tmp/site networkx lark && \
    export PYTHONPATH=$PWD:$PYTHONPATH:/tmp/site PYTHONUNBUFFERED=1 && python3 tools/tpu_moe006.py --out $OUT
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LAYERS = ("lhs", "result", "both", "ffn", "scan")
DTYPES = ("float32", "bfloat16")


def _versions() -> dict[str, str]:
    import jax
    import jaxlib

    out = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    try:
        from importlib.metadata import version
        out["libtpu"] = version("libtpu")
    except Exception:  # noqa: BLE001 - not installed (CPU)
        out["libtpu"] = "-"
    dev = jax.devices()[0]
    out["device"] = f"{dev.platform} {getattr(dev, 'device_kind', '')}".strip()
    return out


def _layer(name: str, dtype: str) -> tuple[Any, tuple]:
    import jax.numpy as jnp
    from examples import moe_mask

    fn, args = moe_mask.build(name, getattr(jnp, dtype))
    return getattr(fn, "__wrapped__", fn), args  # the function jax.jit wrapped


def _compare(want: Any, got: Any) -> dict[str, Any]:
    import numpy as np

    w, g = np.asarray(want, np.float32), np.asarray(got, np.float32)
    diff = np.abs(np.nan_to_num(w, nan=0, posinf=0, neginf=0) - np.nan_to_num(g, nan=0, posinf=0, neginf=0))
    return {"bit_equal": bool(np.asarray(want).tobytes() == np.asarray(got).tobytes()),
            "max_abs_diff": float(diff.max()) if diff.size else 0.0,
            "nonfinite_ref": int((~np.isfinite(w)).sum()), "nonfinite_got": int((~np.isfinite(g)).sum())}


def _rows_past(out: Any, bound: int) -> dict[str, int]:
    """Rows of a sorted-order GMM output at or past ``bound``: how many values are not +0."""
    import numpy as np

    tail = np.asarray(out, np.float32)[bound:]
    return {"rows": int(tail.shape[0]), "nonzero": int((tail != 0).sum()), "nonfinite": int((~np.isfinite(tail)).sum())}


def run_jit(records: list[dict[str, Any]]) -> None:
    import jax
    import numpy as np

    import hlo_passes

    for name in LAYERS:
        for dtype in DTYPES:
            fn, args = _layer(name, dtype)
            ref = np.asarray(jax.jit(fn)(*args))
            rec: dict[str, Any] = {"layer": name, "dtype": dtype}
            with_rule = hlo_passes.jit(fn, passes=["MOE006"])
            low = with_rule.lower(*args)
            rec["auto"] = {
                "sites": [f"{s.form}{' rewritten' if s.rewritten else ''}" for s in low.report],
                "refused": sorted({f"{m.check}: {m.reason}" for m in low.near_misses}),
                "fell_back": low.fell_back,
                **_compare(ref, with_rule(*args)),
            }
            try:
                pal_rule = hlo_passes.jit(fn, passes=["MOE006"], kernel="pallas")
                pal_none = hlo_passes.jit(fn, passes=[], kernel="pallas")
                plow = pal_rule.lower(*args)
                got, base = np.asarray(pal_rule(*args)), np.asarray(pal_none(*args))
                rec["pallas"] = {
                    "sites": [f"{s.form}{' rewritten' if s.rewritten else ''}" for s in plow.report],
                    "refused": sorted({f"{m.check}: {m.reason}" for m in plow.near_misses}),
                    "gmms": [str(g) for g in plow.gmms][:3] if hasattr(plow, "gmms") else [],
                    "fell_back": plow.fell_back,
                    "vs_same_kernel_without_rule": _compare(base, got),
                    "vs_jax_jit": _compare(ref, got),
                }
            except Exception as err:  # noqa: BLE001 - recorded: the Pallas kernel may not be there
                rec["pallas"] = {"error": f"{type(err).__name__}: {str(err)[:300]}"}
            records.append(rec)
            print(json.dumps(rec), flush=True)


def run_bare(records: list[dict[str, Any]]) -> None:
    """XLA's own ragged-dot past the groups, no mask: a bf16 [256, 128] x [3, 128, 128], 150 rows in groups."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    for rows_value in (0.0, np.nan):
        x = rng.standard_normal((256, 128)).astype(np.float32)
        x[150:] = rows_value
        w = rng.standard_normal((3, 128, 128)).astype(np.float32)
        gs = np.asarray([50, 60, 40], np.int32)
        for dtype in (jnp.float32, jnp.bfloat16):
            out = jax.jit(jax.lax.ragged_dot)(x.astype(dtype), w.astype(dtype), gs)
            rec = {"bare_ragged_dot": str(jnp.dtype(dtype)), "rows_past_hold": str(rows_value),
                   **_rows_past(out, 150),
                   "max_abs_past": float(np.nanmax(np.abs(np.asarray(out, np.float32)[150:]), initial=0))}
            records.append(rec)
            print(json.dumps(rec), flush=True)


def child_env_mode() -> None:
    """In a process started with HLO_PASSES=rewrite HLO_PASSES_PASSES=MOE006: each layer through
    jax.jit (the pass inside XLA), outputs to compare with a plain process's jax.jit."""
    import jax
    import numpy as np

    import hlo_passes
    from hlo_passes import xla_pass

    out: list[dict[str, Any]] = []
    for name in LAYERS:
        for dtype in DTYPES:
            fn, args = _layer(name, dtype)
            got = np.asarray(jax.jit(fn)(*args))
            out.append({"layer": name, "dtype": dtype, "bytes": got.tobytes().hex()})
    report = hlo_passes.installed_report()
    modules = [{"module": m.module, "rewritten": [str(s) for s in m.rewritten],
                "refused": sorted({f"{n.check}" for n in m.near_misses}), "fallback": m.fallback}
               for m in report.modules]
    print("ENVJSON " + json.dumps({"installed": xla_pass.installed(), "skipped": report.skipped,
                                   "modules": modules, "outputs": out}), flush=True)


def run_env(records: list[dict[str, Any]]) -> dict[str, Any]:
    env = dict(os.environ, HLO_PASSES="rewrite", HLO_PASSES_PASSES="MOE006")
    proc = subprocess.run([sys.executable, __file__, "--child-env"], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("ENVJSON ")]
    if proc.returncode != 0 or not lines:
        return {"error": f"child exit {proc.returncode}: {proc.stderr[-2000:]}"}
    return json.loads(lines[-1][len("ENVJSON "):])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--child-env", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_env:
        child_env_mode()
        return 0
    env = run_env([])  # first: the child alone holds the chip while it runs
    import jax  # noqa: F401  (the chip is this process's from here)
    import numpy as np

    records: list[dict[str, Any]] = []
    run_bare(records)
    run_jit(records)
    failures = []
    env_rows = []
    if "error" not in env:
        by_layer = {(o["layer"], o["dtype"]): bytes.fromhex(o["bytes"]) for o in env["outputs"]}
        for name in LAYERS:
            for dtype in DTYPES:
                fn, fargs = _layer(name, dtype)
                ref = np.asarray(jax.jit(fn)(*fargs))
                equal = ref.tobytes() == by_layer[(name, dtype)]
                env_rows.append({"layer": name, "dtype": dtype, "bit_equal": equal})
                if not equal:
                    failures.append(f"HLO_PASSES=rewrite {name} {dtype}: differs from jax.jit")
    else:
        failures.append(f"HLO_PASSES=rewrite child: {env['error']}")
    for rec in records:
        if "layer" not in rec:
            continue
        auto = rec["auto"]
        if not auto["bit_equal"]:
            failures.append(f"hlo_passes.jit {rec['layer']} {rec['dtype']}: not bit-equal to jax.jit")
        pal = rec["pallas"]
        if "error" not in pal and not pal["vs_same_kernel_without_rule"]["bit_equal"]:
            failures.append(f"kernel pallas {rec['layer']} {rec['dtype']}: the rule changed values")
    summary = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "versions": _versions(), "records": records,
               "env_mode": {k: v for k, v in env.items() if k != "outputs"}, "env_compare": env_rows,
               "failures": failures}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "moe006.json").write_text(json.dumps(summary, indent=1))
    (args.out / "moe006.md").write_text(_markdown(summary))
    print(f"tpu_moe006: {len(failures)} failures; {sum('layer' in r for r in records)} layer runs; "
          f"{summary['versions']}", flush=True)
    for f in failures:
        print("FAIL", f, flush=True)
    return 1 if failures else 0


def _markdown(s: dict[str, Any]) -> str:
    v = s["versions"]
    lines = [f"# MOE006 on {v['device']} ({s['date']}; jax {v['jax']}, jaxlib {v['jaxlib']}, libtpu {v['libtpu']})",
             "", "`python tools/tpu_moe006.py` (examples/moe_mask.py: T=64, D=32, F=48, E=4, 20 dropped tokens "
             "whose rows hold NaN/Inf/3e38).", "",
             "## XLA's own ragged-dot past the groups (no mask; [256,128] x [3,128,128], 150 rows in groups)", "",
             "| dtype | lhs rows past hold | values past the groups not +0 | non-finite | max abs |",
             "|---|---|---:|---:|---:|"]
    for r in s["records"]:
        if "bare_ragged_dot" in r:
            lines.append(f"| {r['bare_ragged_dot']} | {r['rows_past_hold']} | {r['nonzero']} of {r['rows'] * 128} | "
                         f"{r['nonfinite']} | {r['max_abs_past']:.3g} |")
    lines += ["", "## hlo_passes.jit(layer, passes=['MOE006']) vs jax.jit, every row", "",
              "| layer | dtype | kernel auto: sites | refused (check) | bit-equal to jax.jit | kernel pallas: sites | "
              "bit-equal to pallas without the rule | max abs diff vs jax.jit |", "|---|---|---|---|---|---|---|---:|"]
    for r in s["records"]:
        if "layer" not in r:
            continue
        a, p = r["auto"], r["pallas"]
        refused = ", ".join(sorted({x.split(":")[0] for x in a["refused"]})) or "-"
        if "error" in p:
            pal = (p["error"][:60], "-", "-")
        else:
            pal = (", ".join(p["sites"]) or "-", str(p["vs_same_kernel_without_rule"]["bit_equal"]),
                   f"{p['vs_jax_jit']['max_abs_diff']:.3g}")
        lines.append(f"| {r['layer']} | {r['dtype']} | {', '.join(a['sites']) or '-'} | {refused} | {a['bit_equal']} | "
                     f"{pal[0]} | {pal[1]} | {pal[2]} |")
    reasons = sorted({x for r in s["records"] if "layer" in r for x in r["auto"]["refused"]})
    lines += ["", "Refusal reasons (kernel auto):", ""] + [f"- {x}" for x in reasons]
    e = s["env_mode"]
    lines += ["", "## HLO_PASSES=rewrite HLO_PASSES_PASSES=MOE006 (the pass inside XLA) vs jax.jit", ""]
    if "error" in e:
        lines.append(f"error: {e['error']}")
    else:
        lines.append(f"installed: {e['installed']}; modules skipped by the pre-filter (no collective): {e['skipped']}; "
                     f"modules parsed: {len(e['modules'])}")
        for m in e["modules"]:
            lines.append(f"- {m['module']}: rewritten {m['rewritten']} refused {m['refused']} fallback {m['fallback']}")
        lines.append("")
        lines.append("| layer | dtype | bit-equal to jax.jit |")
        lines.append("|---|---|---|")
        lines += [f"| {r['layer']} | {r['dtype']} | {r['bit_equal']} |" for r in s["env_compare"]]
    lines += ["", f"Failures: {len(s['failures'])}"] + [f"- {f}" for f in s["failures"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
