"""The README's "run the rewritten file" quick start: compile and run the module hlo-rewrite wrote
beside the original, on the devices the module asks for, and compare the numbers.

    hlo-rewrite examples/data/moe_mesh2_concat.mlir -o fused.mlir
    python examples/run_rewritten.py examples/data/moe_mesh2_concat.mlir fused.mlir

It runs on 8 fake CPU devices; the README shows the code below the marker and its output.
"""
import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

# --- quick start ---
import numpy as np

from hlo_passes.runtime import compile_text, count_collectives

original, rewritten = sys.argv[1:3]
before = compile_text(open(original).read())  # one device per partition the module names
after = compile_text(open(rewritten).read())
rng = np.random.default_rng(0)
args = [np.full(p.shape, 16, p.dtype) if p.dtype.kind == "i"  # the group sizes: 4 experts, 16 rows each
        else rng.standard_normal(p.shape).astype(p.dtype) for p in after.parameters]
np.testing.assert_array_equal(after.run(*args)[0], before.run(*args)[0])  # bit-identical
print(f"collectives {sum(count_collectives(before.compiled_text).values())} -> "
      f"{sum(count_collectives(after.compiled_text).values())} as XLA compiled them; same numbers")
