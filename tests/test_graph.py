"""--graph DIR: a picture of each site, before and after, as SVG where Graphviz's dot is
installed and as a .dot file with a note on how to render it where it is not.

Where Graphviz's ``dot`` is installed (.ci/run installs Debian's graphviz) the
pictures are rendered and their SVG checked; where it is not, the same test
checks the ``.dot`` files structurally and says, as a warning in pytest's
summary, what it did not render (``make test`` on a machine without Graphviz
passes).  The no-dot path of the tools is tested by running them with ``dot``
hidden from PATH.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import hlo_passes
from hlo_passes.graph import to_dot
from hlo_passes.passes import run_passes
from test_cli import HLO, MLIR, run

SVG = "{http://www.w3.org/2000/svg}"


def _dot_structure(text: str) -> dict[str, dict]:
    """Clusters of a DOT file: their node labels and edges (what the tools write, parsed back)."""
    clusters: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"subgraph cluster_(\w+) \{", line)
        if m:
            current = clusters.setdefault(m.group(1), {"nodes": {}, "edges": []})
            continue
        if line == "}":
            current = None
            continue
        if current is None:
            continue
        m = re.match(r'(\w+) -> (\w+) \[label="([^"]*)"\];', line)
        if m:
            current["edges"].append((m.group(1), m.group(2), m.group(3)))
            continue
        m = re.match(r'(\w+) \[label="((?:[^"\\]|\\.)*)"', line)
        if m:
            current["nodes"][m.group(1)] = m.group(2).replace("\\n", "\n")
    return clusters


def _check_site_structure(text: str) -> None:
    clusters = _dot_structure(text)
    assert set(clusters) == {"before", "after"}
    before, after = clusters["before"], clusters["after"]
    gathers = lambda c: [n for n, label in c["nodes"].items() if label.startswith("all-gather")]  # noqa: E731
    assert len(gathers(before)) == 4 and len(gathers(after)) == 2  # two stages per half -> two stages
    assert sum(label.startswith("slice [") for label in before["nodes"].values()) == 2
    assert any(label.startswith("concatenate") for label in before["nodes"].values())
    assert not any(label.startswith(("slice", "concatenate")) for label in after["nodes"].values())
    # Every edge joins two nodes of its cluster and carries a shape and its bytes.
    for c in (before, after):
        for src, dst, label in c["edges"]:
            assert src in c["nodes"] and dst in c["nodes"]
            assert re.fullmatch(r"f32\[[\d,]+\] · [\d.]+ (B|KiB|MiB|GiB)", label), label
    # The weight feeds both slices before, and the first gather after.
    (w,) = [n for n, label in before["nodes"].items() if label.startswith("W = ")]
    assert sum(src == w for src, _, _ in before["edges"]) == 2
    assert [dst for src, dst, _ in after["edges"] if src == w.replace("b_", "a_")] == [gathers(after)[0]]
    assert ("f32[4,64,64] · 64 KiB" in {label for _, _, label in after["edges"]})


def _without_dot() -> dict[str, str]:
    """The environment with Graphviz's dot off PATH (the tools need nothing else from it)."""
    return {**os.environ, "PATH": "/nonexistent-dir-without-dot"}


@pytest.mark.parametrize("source", [HLO, MLIR], ids=["hlo", "stablehlo"])
def test_dot_text_of_a_site_has_both_sides(source: Path) -> None:
    (site,) = run_passes(hlo_passes.parse_file(source), rewrite=False).sites
    _check_site_structure(to_dot(site.picture, where=str(source)))


def test_without_dot_the_dot_file_is_written_with_how_to_render_it(tmp_path: Path) -> None:
    out = tmp_path / "pictures"
    proc = run("hlo-rewrite", HLO, "-o", tmp_path / "out.hlo", "--graph", out, env=_without_dot())
    assert proc.returncode == 0, proc.stderr
    (dot_file,) = out.iterdir()
    assert dot_file.name == "moe_mesh2_concat.MOE001.L61.dot"
    _check_site_structure(dot_file.read_text())
    assert f"hlo-rewrite: wrote {dot_file}" in proc.stderr
    assert f"render it with `dot -Tsvg {dot_file} -o {dot_file.with_suffix('.svg')}`" in proc.stderr
    assert "Graphviz's dot program was not found on PATH" in proc.stderr
    lint = run("hlo-lint", MLIR, "--graph", out, env=_without_dot())
    assert lint.returncode == 1
    _check_site_structure((out / "moe_mesh2_concat.MOE001.L11.dot").read_text())


class NotRendered(UserWarning):
    """What a test could not check on this machine (shown in pytest's warnings summary)."""


def test_picture_of_each_site_as_svg_where_dot_is_installed(tmp_path: Path) -> None:
    out = tmp_path / "pictures"
    proc = run("hlo-lint", HLO, MLIR, "--graph", out)
    assert proc.returncode == 1, proc.stderr
    dots = sorted(p.name for p in out.glob("*.dot"))
    assert dots == ["moe_mesh2_concat.MOE001.L11.dot", "moe_mesh2_concat.MOE001.L61.dot"]
    for name in dots:
        _check_site_structure((out / name).read_text())
    if shutil.which("dot") is None:
        assert "no SVG: Graphviz's dot program was not found on PATH" in proc.stderr
        assert not list(out.glob("*.svg"))
        warnings.warn(NotRendered(
            "Graphviz's dot is not installed: the --graph pictures were checked as .dot files, their SVG "
            "rendering was not (apt-get install graphviz; .ci/run installs it)"), stacklevel=1)
        return
    svgs = sorted(p.name for p in out.glob("*.svg"))
    assert svgs == ["moe_mesh2_concat.MOE001.L11.svg", "moe_mesh2_concat.MOE001.L61.svg"]
    for name in svgs:
        root = ET.parse(out / name).getroot()
        assert root.tag == f"{SVG}svg"
        clusters = {g.find(f"{SVG}title").text: g for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"}
        assert set(clusters) == {"cluster_before", "cluster_after"}
        for side, gathers in (("before", 4), ("after", 2)):
            texts = [t.text for t in clusters[f"cluster_{side}"].iter(f"{SVG}text")]
            nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"
                     and g.find(f"{SVG}title").text.startswith(side[0] + "_")]
            assert sum(any((t.text or "") == "all-gather" for t in n.iter(f"{SVG}text")) for n in nodes) == gathers
            assert texts  # the cluster's own label
        assert "collectives 4 -> 2" in " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    rewrite = run("hlo-rewrite", MLIR, "--dry-run", "--graph", tmp_path / "rewrite")
    assert rewrite.returncode == 0 and (tmp_path / "rewrite" / "moe_mesh2_concat.MOE001.L11.svg").is_file()


def test_picture_names_do_not_collide_across_inputs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(HLO, tmp_path / "a" / "m.hlo")
    # Two different modules of one file name (identical ones would be folded into one finding).
    text = HLO.read_text()
    (tmp_path / "b" / "m.hlo").write_text(text.replace("HloModule jit_moe_body", "HloModule other_moe_body", 1))
    proc = run("hlo-lint", tmp_path / "a", tmp_path / "b", "--graph", tmp_path / "out", env=_without_dot())
    assert proc.returncode == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["m.MOE001.L61-2.dot", "m.MOE001.L61.dot"]


def test_copies_of_one_module_get_one_picture(tmp_path: Path) -> None:
    for host in ("host0", "host1"):
        (tmp_path / host).mkdir()
        shutil.copy(HLO, tmp_path / host / "m.hlo")
    proc = run("hlo-lint", tmp_path / "host0", tmp_path / "host1", "--graph", tmp_path / "out", env=_without_dot())
    assert proc.returncode == 1 and "identical in 2 copies" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["m.MOE001.L61.dot"]


def _path_without_dot(tmp_path: Path) -> str:
    """PATH with every folder that holds a ``dot`` replaced by a copy of it (links) without it."""
    folders = []
    for i, folder in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        if not (Path(folder) / "dot").exists():
            folders.append(folder)
            continue
        copy = tmp_path / f"path{i}"
        copy.mkdir()
        for entry in Path(folder).iterdir():
            if entry.name != "dot":
                (copy / entry.name).symlink_to(entry)
        folders.append(str(copy))
    return os.pathsep.join(folders)


def test_make_test_passes_without_graphviz_and_says_what_it_did_not_render(tmp_path: Path) -> None:
    """`make test` on a machine without Graphviz (.ci/run's comment): the picture test passes,
    having checked the .dot files, and its warning names what was not rendered."""
    env = {**os.environ, "PATH": _path_without_dot(tmp_path)}
    test = f"{__file__}::{test_picture_of_each_site_as_svg_where_dot_is_installed.__name__}"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
                          capture_output=True, text=True, env=env, cwd=Path(__file__).parent, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "1 passed, 1 warning" in proc.stdout, proc.stdout
    assert "NotRendered: Graphviz's dot is not installed: the --graph pictures were checked as .dot files, " \
           "their SVG rendering was not" in proc.stdout
