"""Make the TPU text corpus of issue 44: what XLA:TPU makes of the project's example programs.

Run on a machine with libtpu (one chip is enough: nothing runs, every program is compiled ahead
of time for a TPU topology that need not be present)::

    python tools/tpu_texts.py --out DIR [--topologies v5e:2x2,v5e:2x4] [--budget-s 170]

For each topology ``jax.experimental.topologies.get_topology_desc`` accepts, it compiles
``examples/moe.py``'s explicit FSDP program (``W[E, D, 2F]`` sliced, halves gathered,
concatenated; E 8, D 2048, F 1024, T 4096, bf16) on one (``mesh1``) and two (``mesh2``) FSDP
stages, forward and ``value_and_grad``: as written (``concat``), hand-fused (``fused``) and
through ``hlo_passes.jit`` (``jit``); then the weight forms of ``docs/weight-forms.md``
(``examples/moe_weight_forms.py``) on the first topology.  It keeps what a user's dump holds
(``XLA_FLAGS=--xla_dump_to=... --xla_dump_hlo_as_text``, which this script sets itself):
the module before optimizations, after SPMD partitioning, before the scheduler, after
optimizations, and ``compiled.as_text()``; and writes ``DIR/manifest.json``: each text's
topology, program, collective counts, jax/jaxlib/libtpu versions and the command.

``--compile-rewritten CORPUS`` instead rewrites each text before optimizations and after SPMD
partitioning of a corpus (hlo_passes' default passes) and compiles it for its topology; on
2026-12-05 (jax 0.10.2, libtpu 0.0.42.1) XLA:TPU refused every rewritten one for the
``ragged-dot`` it holds (``failed to legalize operation 'mhlo.ragged_dot'``); the manifest in
``tests/fixtures/tpu/`` records it (``compiled_rewritten``).

``hlo_passes.install`` is never called here: with a transformation registered a topology
compile hangs (issue 44).  Programs are compiled in order of importance until ``--budget-s``
seconds have passed; what was not reached is listed in the manifest as ``not_reached``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

# The pass dumps kept: after the SPMD partitioner, and the module a scheduler pass is handed.
PASS_RE = "spmd-partitioning|scheduler"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--topologies", default="v5e:2x2,v5e:2x4")
    p.add_argument("--probe", default="v5p:2x2x1,v6e:2x2,v4:2x2x1,v5litepod-4,v5e:4x4",
                   help="topology names only tried with get_topology_desc (and one compile)")
    p.add_argument("--budget-s", type=float, default=170.0)
    p.add_argument("--no-forms", action="store_true")
    p.add_argument("--compile-rewritten", type=Path, default=None, metavar="DIR",
                   help="instead: rewrite (hlo_passes' default passes) each *.before_optimizations.txt and "
                        "*.after_spmd.txt of DIR (a corpus with its manifest.json) and compile the rewritten "
                        "module for its topology; writes OUT/compiled_rewritten.json")
    return p.parse_args(argv)


ARGS = _parse(sys.argv[1:] if __name__ == "__main__" else [])
DUMP = (ARGS.out / "dump").resolve() if __name__ == "__main__" else Path("/nonexistent")
if __name__ == "__main__":
    DUMP.mkdir(parents=True, exist_ok=True)
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
                               f" --xla_dump_to={DUMP} --xla_dump_hlo_as_text"
                               f" --xla_dump_hlo_pass_re={PASS_RE}").strip()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType, Mesh, NamedSharding  # noqa: E402

_COLLECTIVE = re.compile(
    r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=.*?\s(all-gather|all-gather-start|reduce-scatter|all-reduce|all-reduce-start|"
    r"collective-permute|collective-permute-start|all-to-all|ragged-all-to-all)\(", re.M)


def collective_counts(text: str) -> dict[str, int]:
    """Collectives of an HLO text, ``-start`` counted under the base name (``-done`` not at all)."""
    out: dict[str, int] = {}
    for m in _COLLECTIVE.finditer(text):
        name = m.group(1).removesuffix("-start")
        out[name] = out.get(name, 0) + 1
    return dict(sorted(out.items()))


def versions() -> dict[str, str]:
    from importlib import metadata
    got = {"jax": jax.__version__}
    for dist in ("jaxlib", "libtpu", "libtpu-nightly"):
        try:
            got[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return got


def topology_devices(name: str) -> list:
    if name.startswith("cpu:"):  # a dry run of this script off the TPU machine: cpu:4 = 4 host devices
        return jax.devices("cpu")[:int(name[4:])]
    from jax.experimental import topologies
    return list(topologies.get_topology_desc(topology_name=name, platform="tpu").devices)


def mesh_of(devices: list, kind: str) -> Mesh:
    n = len(devices)
    shape, names = ((n,), ("fsdp",)) if kind == "mesh1" else ((2, n // 2), ("fsdp", "fsdp_transpose"))
    return Mesh(np.array(devices, dtype=object).reshape(shape), names, axis_types=(AxisType.Auto,) * len(names))


def _named(fn, name: str):
    def program(*args):
        return fn(*args)

    program.__name__ = program.__qualname__ = name
    return program


def _sds(shapes_specs, mesh: Mesh) -> tuple:
    return tuple(jax.ShapeDtypeStruct(s, d, sharding=NamedSharding(mesh, p)) for s, d, p in shapes_specs)


def moe_program(topo: str, devices: list, variant: str, mesh_kind: str, mode: str):
    from examples import moe
    cfg = moe.MoEConfig(experts=8, embed=2048, mlp=1024, tokens=4096, dtype="bfloat16")
    spec = moe.ProgramSpec(variant="concat" if variant == "jit" else variant, mesh=mesh_kind,
                           num_devices=len(devices), form="explicit", mode=mode, cfg=cfg)
    mesh = mesh_of(devices, mesh_kind)
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    bf = jnp.bfloat16
    shapes = ((t, d), bf), ((e,), jnp.int32), ((e, d, 2 * f), bf), ((e, f, d), bf)
    args = _sds([(s, dt, p) for (s, dt), p in zip(shapes, moe.in_specs(spec))], mesh)
    name = f"moe_{variant}_{mesh_kind}_{mode}_{topo.replace(':', '_')}"
    return name, moe.program_fn(spec, mesh), args, {
        "example": "examples/moe.py", "variant": variant, "mesh": mesh_kind,
        "stages": 1 if mesh_kind == "mesh1" else 2, "mode": mode, "form": "explicit",
        "E": e, "D": d, "F": f, "T": t, "dtype": "bfloat16"}


def form_program(topo: str, devices: list, form: str, variant: str, mode: str, meet: str = "two_gmm"):
    from examples import moe, moe_weight_forms as wf
    cfg = moe.MoEConfig(experts=8, embed=2048, mlp=1024, tokens=4096, dtype="bfloat16")
    spec = wf.FormSpec(form=form, variant=variant, meet=meet, mesh="mesh1", mode=mode,
                       num_devices=len(devices), cfg=cfg)
    mesh = mesh_of(devices, "mesh1")
    e, d, f, t = cfg.experts, cfg.embed, cfg.mlp, cfg.tokens
    bf = jnp.bfloat16
    if form == "up_first_pair":
        weights = [((e, d, f), bf), ((e, d, f), bf)]
    elif form == "size2":
        weights = [((e, 2, d, f), bf)]
    else:
        weights = [((e, d, 2 * f), bf)]
    shapes = [((t, d), bf), ((e,), jnp.int32), *weights, ((e, f, d), bf)]
    args = _sds([(s, dt, p) for (s, dt), p in zip(shapes, wf.in_specs(spec))], mesh)
    name = f"forms_{spec.name}_{topo.replace(':', '_')}"
    return name, wf.program_fn(spec, mesh), args, {
        "example": "examples/moe_weight_forms.py", "weight_form": form, "variant": variant, "meet": meet,
        "mesh": "mesh1", "stages": 1, "mode": mode, "E": e, "D": d, "F": f, "T": t, "dtype": "bfloat16"}


def _dump_files(name: str) -> list[Path]:
    return sorted(p for p in DUMP.iterdir() if f".jit_{name}." in p.name)


def _pick(files: list[Path]) -> tuple[dict[str, Path], list[str]]:
    """The dump files a user's dump holds, by stage; and the pass dump names seen."""
    picked: dict[str, Path] = {}
    passes = []
    for p in files:
        n = p.name
        if not n.endswith(".txt") or "buffer-assignment" in n or "memory-usage" in n:
            continue
        if n.endswith("before_optimizations.txt"):
            picked.setdefault("before_optimizations", p)
        elif n.endswith("after_optimizations.txt"):
            picked.setdefault("after_optimizations", p)
        elif ".after_" in n:
            passes.append(n.split(".jit_", 1)[1])
            after, _, before = n[:-4].split(".after_", 1)[1].partition(".before_")
            if after.endswith("spmd-partitioning"):
                picked.setdefault("after_spmd", p)  # the module the partitioner hands on
            if re.search(r"memory-scheduler|latency-hiding-scheduler", before):
                # the first scheduling pass (XLA:TPU's final_scheduler pipeline): what a pass
                # registered before the scheduler is handed; earlier passes named *sched* annotate
                picked.setdefault("before_scheduler", p)
    return picked, passes


SEEN: list[dict] = []


def compile_one(name: str, fn, args, meta: dict, topo: str, texts: Path, use_jit: bool) -> dict:
    rec = {"name": name, "topology": topo, **meta}
    t0 = time.perf_counter()
    try:
        if use_jit:
            import hlo_passes
            low = hlo_passes.jit(_named(fn, name)).lower(*args)
            rec["hlo_passes_jit_report"] = str(low)
            compiled = low.compile()
        else:
            compiled = jax.jit(_named(fn, name)).lower(*args).compile()
        rec["compile_s"] = round(time.perf_counter() - t0, 2)
        ctext = compiled.as_text()
    except Exception as exc:  # recorded, the run goes on
        rec["error"] = f"{type(exc).__name__}: {str(exc)[:2000]}"
        print(f"  {name}: FAILED {rec['error'][:300]}", flush=True)
        return rec
    files = _dump_files(name)
    picked, passes = _pick(files)
    rec["pass_dumps_seen"] = passes
    rec["texts"] = {}
    for stage, src in picked.items():
        dst = texts / f"{name}.{stage}.txt"
        shutil.copyfile(src, dst)
        rec["texts"][stage] = {"file": dst.name, "dump_file": src.name,
                               "collectives": collective_counts(src.read_text())}
    dst = texts / f"{name}.compiled.txt"
    dst.write_text(ctext)
    after = picked.get("after_optimizations")
    rec["texts"]["compiled"] = {"file": dst.name, "collectives": collective_counts(ctext),
                                "same_as_after_optimizations": bool(after and after.read_text() == ctext)}
    rec["collectives"] = rec["texts"]["compiled"]["collectives"]
    if not any(r.get("texts") for r in SEEN):  # the first program: every pass dump kept, to read the names
        extra = texts.parent / "pass_dumps" / name
        extra.mkdir(parents=True, exist_ok=True)
        for p in files:
            if p.is_file() and ".after_" in p.name:
                shutil.copyfile(p, extra / p.name)
    for p in files:
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    print(f"  {name}: {rec['compile_s']} s, {rec['collectives']}, stages "
          f"{ {k: v.name.split('.jit_', 1)[1] for k, v in picked.items()} }", flush=True)
    if not SEEN:
        print("  pass dumps:", passes, flush=True)
    return rec


def compile_for_topology(text: str, topo: str, partitioned: bool = False) -> str:
    """Compile HLO text for the devices of ``topo`` (ahead of time); the compiled module's text.
    ``partitioned``: a dump after SPMD partitioning, one device's program, compiled as one replica
    per device as ``runtime.compile_text(partitioned=True)`` runs it (its layout copies read through:
    XLA:TPU's hand-over refuses ``mhlo.copy``)."""
    from jax._src import compiler
    from hlo_passes import _jax_compat as compat
    from hlo_passes.runtime import _SHARDY_INPUT_RE, _NAMED_SHARDING_RE, _as_replicas, _explicit_device_ids, chlo_ragged_dots
    devs = topology_devices(topo)
    if partitioned:
        text, _ = _as_replicas(text, len(devs))
    module = compat.parse_mlir(compat.hlo_text_to_stablehlo(_explicit_device_ids(text)))
    if "ragged-dot(" in text:
        # XLA:TPU refuses mhlo.ragged_dot, the import's form of HLO's ragged-dot (runtime.compile_text)
        module = chlo_ragged_dots(module)
    client = devs[0].client
    options = (compat.compile_options(num_partitions=1, num_replicas=len(devs), devices=devs, backend=client)
               if partitioned else compat.compile_options(num_partitions=len(devs), devices=devs, backend=client))
    if not partitioned and _NAMED_SHARDING_RE.search(text) and not _SHARDY_INPUT_RE.search(text):
        options = compat.without_shardy(options)
    exe = compiler.backend_compile_and_load(client, module, compat.device_list(devs), options, [])
    return "\n".join(m.to_string() for m in exe.hlo_modules())


def compile_rewritten(corpus: Path, out: Path) -> int:
    import gzip
    import hlo_passes
    manifest = json.loads((corpus / "manifest.json").read_text())
    by_name = {p["name"]: p for p in manifest["programs"]}
    fused_twin = {p["name"]: by_name[f]
                  for p in manifest["programs"] for v in ("_concat_", "_split_") if v in p["name"]
                  for f in [p["name"].replace(v, "_fused_", 1)] if f in by_name}
    results = []
    t_start = time.perf_counter()
    for prog in manifest["programs"]:
        for stage in ("before_optimizations", "after_spmd"):
            entry = prog.get("texts", {}).get(stage)
            if entry is None or prog.get("variant") not in ("concat", "split"):
                continue
            if time.perf_counter() - t_start > ARGS.budget_s:
                results.append({"name": prog["name"], "stage": stage, "not_reached": True})
                continue
            path = corpus / entry["file"]
            text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
            rec = {"name": prog["name"], "stage": stage, "topology": prog["topology"],
                   "collectives_before": collective_counts(text)}
            twin = fused_twin.get(prog["name"])
            if twin is not None:  # the target: the hand-fused program as XLA:TPU compiled it
                rec["collectives_hand_fused"] = twin["texts"].get("compiled", {}).get("collectives")
            try:
                rewritten = hlo_passes.run_passes(hlo_passes.parse(text)).module.to_text()
                rec["collectives_rewritten_text"] = collective_counts(rewritten)
                compiled = compile_for_topology(rewritten, prog["topology"], partitioned=stage == "after_spmd")
                rec["compiled"] = True
                rec["collectives_compiled"] = collective_counts(compiled)
            except Exception as exc:
                rec["compiled"] = False
                rec["error"] = f"{type(exc).__name__}: {str(exc)[:600]}"
            print(" ", json.dumps(rec)[:400], flush=True)
            results.append(rec)
            (out / "compiled_rewritten.json").write_text(json.dumps(
                {"command": "python " + " ".join(sys.argv), "versions": versions(),
                 "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "results": results}, indent=1))
    return 0


def main() -> int:
    if ARGS.compile_rewritten is not None:
        ARGS.out.mkdir(parents=True, exist_ok=True)
        return compile_rewritten(ARGS.compile_rewritten, ARGS.out)
    t_start = time.perf_counter()
    out: Path = ARGS.out
    texts = out / "texts"
    texts.mkdir(parents=True, exist_ok=True)
    manifest = {"command": "python " + " ".join(sys.argv), "xla_flags": os.environ["XLA_FLAGS"],
                "versions": versions(), "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                "topologies": {}, "programs": [], "not_reached": []}
    print(json.dumps(manifest["versions"]), flush=True)

    work = []
    topos = [t for t in ARGS.topologies.split(",") if t]
    for topo in topos + [t for t in ARGS.probe.split(",") if t]:
        try:
            devs = topology_devices(topo)
            manifest["topologies"][topo] = {"accepted": True, "devices": len(devs),
                                            "device_kind": getattr(devs[0], "device_kind", "?")}
        except Exception as exc:
            manifest["topologies"][topo] = {"accepted": False, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            continue
        if topo in topos:
            for mesh_kind in ("mesh1", "mesh2"):
                for mode in ("forward", "grad"):
                    for variant in ("concat", "fused", "jit"):
                        work.append((topo, devs, "moe", (variant, mesh_kind, mode)))
        else:  # other generations: one compile each, last
            work.append((topo, devs, "moe_probe", ("concat", "mesh1", "forward")))
    print(json.dumps(manifest["topologies"]), flush=True)
    if not ARGS.no_forms and topos and manifest["topologies"][topos[0]].get("accepted"):
        devs = topology_devices(topos[0])
        forms = [("up_first", "split", "forward", "two_gmm"), ("up_first", "split", "forward", "concat"),
                 ("up_first", "fused", "forward", "two_gmm"), ("size2", "split", "forward", "two_gmm"),
                 ("size2", "fused", "forward", "two_gmm"), ("interleaved", "split", "forward", "two_gmm"),
                 ("interleaved", "fused", "forward", "two_gmm"), ("up_first_pair", "split", "forward", "two_gmm"),
                 ("up_first_pair", "fused", "forward", "two_gmm"), ("up_first", "split", "grad", "two_gmm"),
                 ("size2", "split", "grad", "two_gmm")]
        # the forms after the two main topologies' seed programs, before the probes
        probes = [w for w in work if w[2] == "moe_probe"]
        work = [w for w in work if w[2] != "moe_probe"]
        work += [(topos[0], devs, "form", f) for f in forms] + probes

    for topo, devs, kind, params in work:
        if time.perf_counter() - t_start > ARGS.budget_s:
            manifest["not_reached"].append({"topology": topo, "kind": kind, "params": list(params)})
            continue
        if kind == "form":
            name, fn, args, meta = form_program(topo, devs, params[0], params[1], params[2], params[3])
            use_jit = False
        else:
            name, fn, args, meta = moe_program(topo, devs, *params)
            use_jit = params[0] == "jit"
        manifest["programs"].append(compile_one(name, fn, args, meta, topo, texts, use_jit))
        SEEN.append(manifest["programs"][-1])
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    manifest["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    shutil.rmtree(DUMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
