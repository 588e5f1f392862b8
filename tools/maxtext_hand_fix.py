"""MaxText 0.2.5's training loop with the hand fix in its model code: the target counts (issue 46).

    python tools/maxtext_hand_fix.py VARIANT MODE [--dump DIR] ...   (train_main.py's arguments)

Runs ``../shared/trainers/maxtext/train_main.py`` as it is, with one change made to the copy of
``maxtext/layers/moe.py`` that is imported (its source patched in memory as it is loaded; the
venv's file and the repository are untouched): the prefused expert weight ``wi[E, D, 2F]`` is
gathered whole and multiplied in one grouped matmul whose output is split into gate and up
(``moe.py``: the weight is no longer sliced into ``w0_kernel``/``w1_kernel`` before the
shard_map gathers them, and ``gmm_up`` no longer concatenates them).  ``w1_kernel`` still
reaches the shard_map (the whole weight, unread there), so nothing else in MaxText changes.
Only for the prefused variants: the apart layout's fix is the prefused layout.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import os
import runpy
import sys

TRAINERS = os.environ.get("HLO_PASSES_TRAINERS", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                              "..", "..", "shared", "trainers", "maxtext"))

# (what MaxText 0.2.5's moe.py says, what the hand fix says): each must occur exactly once.
PATCHES = [
    ("      w0_kernel = wi[..., :n]\n      w1_kernel = wi[..., n:]\n",
     "      w0_kernel = wi  # hand fix: the whole weight, gathered once\n      w1_kernel = wi\n"),
    ("        w_fused = jnp.concatenate([w0, w1], axis=-1)\n",
     "        w_fused = w0  # hand fix: already whole\n"),
]


class _PatchedMoe(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    name = "maxtext.layers.moe"

    def find_spec(self, fullname, path, target=None):  # noqa: ANN001, ANN201
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        assert spec is not None and spec.origin is not None
        self.origin = spec.origin
        return importlib.util.spec_from_file_location(fullname, spec.origin, loader=self)

    def create_module(self, spec):  # noqa: ANN001, ANN201
        return None

    def exec_module(self, module) -> None:  # noqa: ANN001
        with open(self.origin) as f:
            source = f.read()
        for old, new in PATCHES:
            if source.count(old) != 1:
                raise SystemExit(f"maxtext_hand_fix: {self.origin} is not MaxText 0.2.5's: {old!r} occurs "
                                 f"{source.count(old)} times")
            source = source.replace(old, new)
        exec(compile(source, self.origin, "exec"), module.__dict__)  # noqa: S102


def main() -> None:
    variant = sys.argv[1] if len(sys.argv) > 1 else ""
    if not variant.startswith("prefused"):
        raise SystemExit(f"maxtext_hand_fix: {variant!r}: the hand fix is for the prefused variants")
    sys.meta_path.insert(0, _PatchedMoe())
    script = os.path.join(os.path.abspath(TRAINERS), "train_main.py")
    sys.argv = [script, *sys.argv[1:]]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
