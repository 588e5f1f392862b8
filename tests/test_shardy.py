"""Shardy's shardings read once into typed values (``hlo_passes.dialects.shardy``), in every spelling the
texts carry them, and compared by what they say rather than how they are spelled."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlo_passes.dialects import shardy
from hlo_passes.dialects.shardy import AxisRef, DimSharding, SdySharding
from hlo_passes.ir import Sharding
from hlo_passes.rewrites.split.layouts import Layout, layout_from_sharding, layout_from_text

# No jax or jaxlib here, nor in a process these tests start: run once, with jax blocked (docs/testing.md).
pytestmark = pytest.mark.jax_free

FSDP = SdySharding((DimSharding(), DimSharding((AxisRef("fsdp"), AxisRef("fsdp_transpose"))), DimSharding()),
                   mesh="mesh")


@pytest.mark.parametrize("text", [
    '#sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>',  # StableHLO
    '<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>',  # an entry of a per-value list
    '#sdy.sharding<@mesh, [{}, {\\22fsdp\\22, \\22fsdp_transpose\\22}, {}]>',  # inside an MLIR string
    '#sdy.sharding<@mesh, [{}, {\\"fsdp\\", \\"fsdp_transpose\\"}, {}]>',  # inside an HLO string
    'sdy.sharding = #sdy.sharding<@mesh, [{}, {"fsdp", "fsdp_transpose"}, {}]>, jax.result_info = "w"',
])
def test_one_sharding_in_every_spelling(text: str) -> None:
    assert shardy.decode(text) == FSDP
    assert layout_from_text(text, 3, None) == Layout(((), ("fsdp", "fsdp_transpose"), ()), None)


def test_what_else_a_sharding_says() -> None:
    got = shardy.decode('#sdy.sharding<mesh<["a"=4, "b"=2]>, [{"a":(1)2, ?}p1, {}], replicated={"b"}>')
    assert got == SdySharding((DimSharding((AxisRef("a", (1, 2)),), open=True, priority=1), DimSharding()),
                              mesh_axes=(("a", 4), ("b", 2)), replicated=(AxisRef("b"),))
    assert str(got.dims[0].axes[0]) == "a:(1)2" and got.shards(2, {}) == (2, 1)
    # jax 0.12's HLO: the mesh inline; an axis of size 1 splits nothing, whatever the module says.
    named = Sharding("tiled", named="mesh['x'=8,'y'=1], [{}, {'y'}, {'x'}]")
    assert layout_from_sharding(named, 3, None) == Layout(((), ("y",), ("x",)), (1, 1, 8))
    replicated = Sharding("replicated", named="mesh[], replicated")
    assert layout_from_sharding(replicated, 2, None) == Layout(((), ()), (1, 1))
    # Another rank, or no sharding at all, states no layout.
    assert layout_from_text('#sdy.sharding<@mesh, [{}, {"x"}]>', 3, None) is None
    assert shardy.decode("{devices=[1,8]<=[8]}") is None and shardy.decode('<@mesh, [{"x"') is None


def test_shardings_compare_by_meaning_and_lists_keep_their_entries() -> None:
    assert shardy.same('<@mesh, [{}, {"x"}]>', '#sdy.sharding<@mesh, [{}, {\\22x\\22}]>')
    assert not shardy.same('<@mesh, [{}, {"x"}]>', '<@mesh, [{"x"}, {}]>')
    listed = '#sdy.sharding_per_value<[<@mesh, [{}, {"x", "y"}]>, <@mesh, [{}]>]>'
    entries = shardy.per_value(listed)
    assert entries == ['<@mesh, [{}, {"x", "y"}]>', "<@mesh, [{}]>"]
    assert shardy.per_value_text(entries) == listed and shardy.per_value("#sdy.sharding_per_value<[]>") == []


def test_every_sharding_of_the_samples_and_fixtures_is_read(shared_dir: Path) -> None:
    root = Path(__file__).resolve().parent
    texts: set[str] = set()
    pattern = re.compile(r"#sdy\.sharding<[^\n]*?\]>|<@\w+, \[[^\n]*?\]>|\{mesh\[[^\]]*\], (?:\[[^\n]*?\]|replicated)\}")
    for path in [*(shared_dir / "samples").rglob("*"), *(shared_dir / "corpus").rglob("*"),
                 *(root / "fixtures").rglob("*")]:
        if path.is_file():
            texts.update(m.group(0) for m in pattern.finditer(path.read_text(errors="replace")))
    assert len(texts) > 50
    assert [t for t in texts if shardy.decode(t) is None] == []
