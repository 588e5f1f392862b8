"""The pass inside XLA on the TPU machine: compiles for a topology, the chip's kernels, ragged-dot text.

Run on the TPU machine (one v5e chip, jax 0.10.2 + libtpu), from the repository root::

    python3 tools/tpu_aot_check.py --out $OUT            # every experiment, each in its own process
    python3 tools/tpu_aot_check.py --run bare_noop       # one, in this process

Each experiment runs in a subprocess under ``timeout`` (a hang costs its own limit, not the call's)
and prints one ``RESULT {json}`` line; the driver writes them to ``$OUT/tpu_aot_check.json`` and
a Markdown table to ``$OUT/tpu_aot_check.md`` (benchmarks/results/tpu_aot_check.md keeps it).

Experiments (docs/xla-pass.md, "Compiles for a topology"):

* ``bare_*``: jax alone, no hlo_passes: the upstream repro.  An AOT compile of a small sharded
  program for ``v5e:2x2`` (``jax.experimental.topologies``): without any transformation
  (``bare_baseline``); with a no-op one registered for ``tpu`` (``bare_noop``: expected to hang;
  a watchdog dumps the threads after ``--hang-s``); registered then cleared (``bare_cleared``);
  registered, compiled through the topology's own compile-only client instead of the chip's
  client (``bare_compile_only_client``).
* ``env_rewrite_2x2`` / ``env_rewrite_2x4``: ``HLO_PASSES=rewrite`` set, examples/moe.py's
  explicit FSDP program (the seed pattern, E 8, D 2048, F 1024, T 4096, bf16) compiled for the
  topology, forward and ``value_and_grad``: must finish (through the topology's own client, where
  the pass runs); then a compile on the chip reaches the pass again.  ``env_rewrite_4`` /
  ``install_rewrite_8``: the same on XLA:CPU's compile-only devices, a rehearsal off the TPU machine.
* ``install_rewrite_2x2``: the same through ``hlo_passes.install(mode="rewrite")``.
* ``chip_ragged_note``: ``install(mode="rewrite", passes=["MOE005", "MOE006"])`` and
  examples/moe_mask.py's ``ffn`` program compiled and run on the chip: ``installed_report()`` must
  carry the note that XLA:TPU lowered the ragged-dots to its own kernels; the module the pass sees
  is saved (``tpu_ragged_prescheduler.hlo``).
* ``ragged_text``: that program's HLO text (lowered for TPU: ``ragged-dot``), rewritten by
  ``hlo-rewrite --passes MOE006``, compiled on the chip by ``runtime.compile_text`` and run: equal
  to ``jax.jit`` of the program on the chip; and without the ``chlo.ragged_dot`` conversion, XLA's
  refusal.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ("bare_baseline", "bare_noop", "bare_cleared", "bare_compile_only_client",
               "env_rewrite_2x2", "env_rewrite_2x4", "install_rewrite_2x2", "chip_ragged_note", "ragged_text")
OUT = Path(os.environ.get("OUT", "/tmp"))


def result(**fields: object) -> None:
    print("RESULT " + json.dumps(fields, default=str), flush=True)


def _versions() -> dict[str, str]:
    import jax
    import jaxlib
    try:
        from importlib.metadata import version
        libtpu = version("libtpu")
    except Exception:  # noqa: BLE001 - only for the record
        libtpu = "?"
    return {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "libtpu": libtpu}


def _small_aot(topology: str):
    """A small sharded step lowered for ``topology``'s compile-only devices."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import NamedSharding, PartitionSpec as P

    devices = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices
    mesh = jax.sharding.Mesh(np.array(devices), ("data",))
    rows, rep = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P())

    def step(w, x):
        h = jnp.tanh(x @ w)
        return w - 0.1 * (x.T @ h), jnp.sum(h * h)

    return jax.jit(step, in_shardings=(rep, rows)).lower(
        jax.ShapeDtypeStruct((256, 256), jnp.float32, sharding=rep),
        jax.ShapeDtypeStruct((1024, 256), jnp.float32, sharding=rows))


def _bare(kind: str, hang_s: float) -> None:
    import faulthandler
    import threading

    import jax
    from jax.extend.xla import clear_hlo_module_transformation, register_hlo_module_transformation

    calls: list[int] = []
    if kind != "bare_baseline":
        register_hlo_module_transformation(lambda proto: calls.append(len(proto)) or None, name="noop",
                                           platforms=["tpu"])
        jax.devices()  # the TPU client: jax registers the transformation on it as it starts
    if kind == "bare_cleared":
        print("cleared:", clear_hlo_module_transformation("noop", platforms=["tpu"]), flush=True)
    if kind == "bare_compile_only_client":
        from jax._src import compiler
        compiler._get_cross_compile_backend = lambda backend: None  # the topology's own client compiles
    lowered = _small_aot("v5e:2x2")
    beats = [0]

    def heartbeat() -> None:  # stops while a thread holds the GIL through the compile
        while True:
            beats[0] += 1
            time.sleep(0.1)

    threading.Thread(target=heartbeat, daemon=True).start()
    time.sleep(0.3)
    faulthandler.dump_traceback_later(hang_s, exit=False)
    seen = beats[0]
    watch = threading.Timer(hang_s - 1, lambda: print(f"heartbeats during the compile so far: {beats[0] - seen}",
                                                      flush=True))
    watch.daemon = True
    watch.start()
    start = time.time()
    compiled = lowered.compile()
    faulthandler.cancel_dump_traceback_later()
    watch.cancel()
    result(experiment=kind, finished=True, seconds=round(time.time() - start, 2), transform_calls=len(calls),
           heartbeats=beats[0] - seen, **_versions(),
           all_gathers=compiled.as_text().count("all-gather-start("))


def _moe_aot(topology: str, mode: str):
    """examples/moe.py's explicit FSDP program (seed pattern) lowered for ``topology``."""
    import jax
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import NamedSharding

    sys.path.insert(0, str(ROOT))
    from examples import moe

    if topology.startswith("cpu:"):  # a rehearsal off the TPU machine: XLA:CPU's compile-only devices
        from hlo_passes import _jax_compat as compat
        devices = compat.compile_only_devices(jax.devices())[:int(topology[4:])]
    else:
        devices = topologies.get_topology_desc(topology_name=topology, platform="tpu").devices
    spec = moe.ProgramSpec(variant="concat", mesh="mesh1", num_devices=len(devices), form="explicit", mode=mode,
                           cfg=moe.MoEConfig(experts=8, embed=2048, mlp=1024, tokens=4096, dtype="bfloat16"))
    mesh = jax.sharding.Mesh(np.array(devices), (moe.FSDP,))
    fn = moe.program_fn(spec, mesh)
    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(mesh, s))
              for a, s in zip(moe.host_inputs(spec), moe.in_specs(spec))]
    return jax.jit(fn).lower(*shapes)


def _count(text: str, op: str) -> int:
    return text.count(f" {op}(") + text.count(f" {op}-start(")


def _topology_compiles(kind: str, topology: str) -> None:
    import warnings

    import jax
    import jax.numpy as jnp

    import hlo_passes
    from hlo_passes import xla_pass

    jax.devices()  # the backends start: $HLO_PASSES's plugin registers the pass as they do
    if kind.startswith("install"):
        hlo_passes.install(mode="rewrite")
    assert xla_pass.installed() == "rewrite", "the pass is not installed"
    rows = []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for mode in ("forward", "grad"):
            lowered = _moe_aot(topology, mode)
            start = time.time()
            text = lowered.compile().as_text()
            print(f"{topology} {mode}: compiled in {time.time() - start:.1f} s", flush=True)
            rows.append({"mode": mode, "seconds": round(time.time() - start, 2),
                         "all_gathers": _count(text, "all-gather"), "reduce_scatters": _count(text, "reduce-scatter")})
    fallbacks = [str(w.message) for w in record if issubclass(w.category, xla_pass.XlaPassFallbackWarning)]
    before = hlo_passes.installed_report()
    # The hook is back: a compile on the chip reaches it (a module without collectives: skipped).
    jax.jit(lambda a: jnp.sin(a) * 2)(jnp.ones(8)).block_until_ready()
    after = hlo_passes.installed_report()
    result(experiment=kind, finished=True, topology=topology, compiles=rows, warnings=fallbacks,
           report=str(before), hook_back=(after.skipped + len(after.modules)) > (before.skipped + len(before.modules)),
           platforms=list(after.platforms), **_versions())


def _chip_ragged_note() -> None:
    import jax
    import numpy as np
    from jax.extend.xla import register_hlo_module_transformation

    import hlo_passes
    sys.path.insert(0, str(ROOT))
    from examples import moe_mask

    texts: list[str] = []

    def capture(proto: bytes) -> None:
        from hlo_passes import _jax_compat as compat
        texts.append(compat.hlo_module_from_proto(proto).to_string())

    register_hlo_module_transformation(capture, name="capture", platforms=["tpu"])
    hlo_passes.install(mode="rewrite", passes=["MOE005", "MOE006"])
    fn, args = moe_mask.build("ffn")
    out = np.asarray(jax.block_until_ready(fn(*args)))
    report = hlo_passes.installed_report()
    ragged = [t for t in texts if "ragged_dot" in t]
    if ragged:
        (OUT / "tpu_ragged_prescheduler.hlo").write_text(ragged[-1])
    kernels = sorted({line.split("custom_call_target=")[1].split(",")[0]
                      for t in ragged for line in t.splitlines() if "custom_call_target=" in line})
    result(experiment="chip_ragged_note", finished=True, report=str(report), notes=report.notes,
           ragged_dot_ops=sum(t.count(" ragged-dot(") for t in ragged), custom_call_targets=kernels,
           finite_rows=int(np.isfinite(out).all(axis=-1).sum()), **_versions())


def _ragged_text() -> None:
    import jax
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from examples import moe_mask
    from hlo_passes import runtime

    fn, args = moe_mask.build("ffn")
    want = np.asarray(jax.block_until_ready(fn(*args)))
    hlo = fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text(dialect="hlo")
    src, dst = Path("/tmp/ffn.hlo"), Path("/tmp/ffn.out.hlo")
    src.write_text(hlo)
    cli = subprocess.run([sys.executable, "-c", "import sys; from hlo_passes.cli import rewrite_entry; "
                          "sys.argv[0] = 'hlo-rewrite'; sys.exit(rewrite_entry())",
                          str(src), "--passes", "MOE006", "-o", str(dst)], capture_output=True, text=True, timeout=120)
    rewritten = dst.read_text() if dst.exists() else ""
    rows = {"hlo_rewrite_rc": cli.returncode, "hlo_rewrite_stderr": cli.stderr[-600:],
            "ragged_dots_in_output": rewritten.count(" ragged-dot(")}
    for label, text in (("original", hlo), ("rewritten", rewritten)):
        if not text:
            continue
        try:
            got = np.asarray(runtime.compile_text(text, cache=False).run(*args)[0])
            rows[label] = {"compiled": True, "bit_equal_to_jit": bool(np.array_equal(got, want, equal_nan=True)),
                           "max_abs_diff": float(np.nanmax(np.abs(got.astype(np.float64) - want)))}
        except Exception as err:  # noqa: BLE001 - recorded
            rows[label] = {"compiled": False, "error": f"{type(err).__name__}: {str(err)[:400]}"}
    original = runtime.chlo_ragged_dots
    runtime.chlo_ragged_dots = lambda module: module  # what compile_text did before: mhlo.ragged_dot
    try:
        runtime.compile_text(rewritten or hlo, cache=False)
        rows["without_conversion"] = "compiled"
    except Exception as err:  # noqa: BLE001 - recorded
        rows["without_conversion"] = f"{type(err).__name__}: {str(err)[:300]}"
    finally:
        runtime.chlo_ragged_dots = original
    result(experiment="ragged_text", finished=True, **rows, **_versions())


def run_one(name: str, hang_s: float) -> None:
    if name.startswith("bare"):
        _bare(name, hang_s)
    elif name.startswith(("env_rewrite", "install_rewrite")):
        size = name.rsplit("_", 1)[1]
        _topology_compiles(name, f"cpu:{size}" if size.isdigit() else f"v5e:{size}")
    elif name == "chip_ragged_note":
        _chip_ragged_note()
    elif name == "ragged_text":
        _ragged_text()
    else:
        raise SystemExit(f"unknown experiment {name!r}: one of {', '.join(EXPERIMENTS)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="run one experiment in this process")
    parser.add_argument("--only", default=",".join(EXPERIMENTS), help="comma-separated experiments to run")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per experiment")
    parser.add_argument("--hang-s", type=float, default=25, help="bare_*: dump the threads after this long")
    parser.add_argument("--budget", type=float, default=1e9,
                        help="seconds in all: an experiment that would not end inside them is not started")
    args = parser.parse_args()
    if args.run:
        run_one(args.run, args.hang_s)
        return 0
    results = []
    began = time.time()
    for name in args.only.split(","):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        if name.startswith("env_rewrite"):
            env["HLO_PASSES"] = "rewrite"
        limit = args.hang_s + 10 if name.startswith("bare") and name != "bare_baseline" else args.timeout
        start = time.time()
        if start - began + limit > args.budget:
            print(f"=== {name}: not started (budget)", flush=True)
            results.append({"experiment": name, "finished": None, "rc": None, "wall_s": 0, "note": "not started: budget"})
            continue
        print(f"=== {name} (limit {limit:.0f} s)", flush=True)
        proc = subprocess.run(["timeout", "-s", "KILL", str(int(limit)), sys.executable, __file__, "--run", name,
                               "--hang-s", str(args.hang_s)], env=env, capture_output=True, text=True)
        print(proc.stdout[-6000:], proc.stderr[-6000:], sep="\n", flush=True)
        found = [json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
        row = found[-1] if found else {"experiment": name, "finished": False}
        row.update(rc=proc.returncode, wall_s=round(time.time() - start, 1))
        if not found:
            row["tail"] = (proc.stdout + proc.stderr)[-3000:]
        results.append(row)
        _write(results)
    return 0


def _write(results: list[dict]) -> None:
    """Both files, after each experiment: a call cut short keeps what ran."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    (OUT / "tpu_aot_check.json").write_text(json.dumps({"date": stamp, "results": results}, indent=1, default=str))
    lines = [f"## tools/tpu_aot_check.py ({stamp}, TPU v5e machine)", "",
             "| experiment | finished | rc | wall s | what |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        what = {k: v for k, v in r.items() if k not in ("experiment", "finished", "rc", "wall_s", "tail", "report")}
        lines.append(f"| {r['experiment']} | {r.get('finished')} | {r['rc']} | {r['wall_s']} | "
                     f"{json.dumps(what, default=str)[:900].replace('|', '/')} |")
    (OUT / "tpu_aot_check.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
