"""One module in many places: the dump folders of the N hosts of a job, and the stages of a dump.

A site in a module is one thing to fix, however many files hold the module; the lint reports it
once (``diagnostics.fold``).  Two relations between files say where one module appears:

* **Copies** (``group_copies``): every host of a multi-host job dumps the same modules.  Two
  files are copies when their texts are equal once locations are removed — HLO ``metadata={...}``
  (op names, source files and lines: absolute paths may differ per host) and the stack-frame
  tables (``FileNames`` ... ``StackFrames``), MLIR ``loc(...)`` with the ``#loc = ...`` definitions —
  and nothing else: a copy that differs in any instruction, attribute or shape is a module of its
  own.  Copies are linted once.
* **Stages** (``dump_stages``): XLA dumps each module it compiles at several stages, named
  ``[PREFIX-]module_NNNN.NAME.STAGE.txt`` (``NNNN`` the module's id in the process, at least four
  digits; ``NAME`` left out when the file name would pass 255 characters): ``before_optimizations``,
  one ``NNNN.PIPELINE.after_PASS.before_NEXT`` per pass ``--xla_dump_hlo_pass_re`` selects, and
  ``PLATFORM_after_optimizations``; the StableHLO it was handed goes to
  ``module_NNNN.NAME/module.mlir``.  jax's own dumps (``JAX_DUMP_IR_TO``) are
  ``jax_irNNNN_NAME_STAGE.mlir``, numbered by jax, not XLA.  A file whose name carries no XLA
  module id (jax's, or a lowering saved beside the dump) is a stage of the XLA module of the same
  module name in its folder when the folder holds exactly one such module; otherwise it stands
  alone.  Stages are linted one by one, and the same site in several stages folded.

Nothing here imports jax or the parser: it is text, read through ``files.read_input`` (bounded).
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import ParseError
from .files import MAX_INPUT_BYTES, InputError, is_regular_file, read_input

__all__ = ["Stage", "dump_platforms", "dump_stages", "group_copies", "group_stages", "module_key", "module_name",
           "without_locations"]

_STRING = r'"(?:[^"\\]|\\.)*"'
# HLO: a string (kept whole, it may hold braces) or the start of a metadata attribute.
_HLO_SCAN = re.compile(rf"{_STRING}|,[ \t]*metadata=\{{")
# MLIR: a string, an inline location, or a line defining a location alias.
_MLIR_SCAN = re.compile(rf"{_STRING}|[ \t]*\bloc\(|^#loc[\w.$-]*[ \t]*=[^\n]*\n?", re.M)
# jax >= 0.12: the stack-frame tables after the HloModule line (file names are absolute paths).
_HLO_FRAME_TABLES = re.compile(r"^(?:FileNames|FunctionNames|FileLocations|StackFrames)[ \t]*\n(?:\d+[ \t][^\n]*\n)*",
                               re.M)
_BRACES = re.compile(rf"{_STRING}|[{{}}]")
_PARENS = re.compile(rf"{_STRING}|[()]")


def _balanced_end(text: str, start: int, tokens: re.Pattern[str], opening: str) -> int:
    """End of the bracketed group whose opening bracket is at or after ``start`` (strings skipped)."""
    depth = 0
    for m in tokens.finditer(text, start):
        tok = m.group()
        if tok == opening:
            depth += 1
        elif len(tok) == 1:
            depth -= 1
            if depth == 0:
                return m.end()
    return len(text)  # unbalanced: the rest is the location


def _strip(text: str, scan: re.Pattern[str], tokens: re.Pattern[str], opening: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        m = scan.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        tok = m.group()
        if tok.startswith('"'):
            out.append(text[pos:m.end()])
            pos = m.end()
            continue
        out.append(text[pos:m.start()])
        if tok.startswith("#"):  # a whole #loc definition line
            pos = m.end()
        else:
            pos = _balanced_end(text, m.end() - 1, tokens, opening)


def without_locations(text: str) -> str:
    """``text`` without its source locations (HLO op metadata, MLIR ``loc``)."""
    if text.lstrip().startswith("HloModule"):
        return _strip(_HLO_FRAME_TABLES.sub("", text), _HLO_SCAN, _BRACES, "{")
    return _strip(text, _MLIR_SCAN, _PARENS, "(")


def module_key(text: str) -> str:
    """What copies of one module share: the SHA-256 of its text without locations."""
    return hashlib.sha256(without_locations(text).encode("utf-8", "surrogateescape")).hexdigest()


_HLO_NAME = re.compile(r"^\s*HloModule[ \t]+%?([\w.\-]+)", re.M)
_MLIR_NAME = re.compile(r'^[ \t]*module[ \t]+@"?([^\s"{]+)|"builtin\.module"\(\)[ \t]*<\{[^}\n]*?sym_name[ \t]*=[ \t]*"([^"]*)"',
                        re.M)
# The module name is at the top (after comments, or after MLIR's #loc lines).
_NAME_WINDOW = 1 << 16


def module_name(text: str) -> str | None:
    """The module's name: ``HloModule NAME``, MLIR ``module @NAME`` (or its generic form)."""
    head = text[:_NAME_WINDOW]
    m = _HLO_NAME.search(head)
    if m is not None and head.lstrip().startswith(("HloModule", "//", "/*")):
        return m.group(1)
    m = _MLIR_NAME.search(text[:_NAME_WINDOW * 16] if len(text) > _NAME_WINDOW * 16 else text)
    if m is None:
        return None
    return m.group(1) or m.group(2)


def _facts_of_file(path: str, limit: int) -> tuple[str | None, str | None]:
    """(``module_key``, ``module_name``) of a file; (None, None) when it cannot be read within
    ``limit`` bytes, or is no regular file: a pipe, a device or a socket is read once, by the
    lint itself (reading it here would drain it, or never end)."""
    if not is_regular_file(path):
        return None, None
    try:
        text = read_input(path, limit=limit)
    except (InputError, ParseError, MemoryError):
        return None, None  # linted on its own, which reports why it cannot be read
    return module_key(text), module_name(text)


def group_copies(files: Iterable[str], names: dict[str, str | None] | None = None, *,
                 limit: int = MAX_INPUT_BYTES) -> list[list[str]]:
    """``files`` grouped into copies of one module: each group sorted, the groups in the
    order their first (sorted) path comes in ``files``.  ``names``, when given, receives
    each file's module name (read in the same pass, for ``dump_stages``).  Each file is read
    through ``files.read_input`` up to ``limit`` bytes; what is not a regular file stands alone."""
    files = list(files)
    by_key: dict[str, list[str]] = {}
    groups: list[list[str]] = []
    for path in files:
        key, name = _facts_of_file(path, limit)
        if names is not None:
            names[path] = name
        if key is None:
            groups.append([path])
            continue
        if key not in by_key:
            by_key[key] = []
            groups.append(by_key[key])
        by_key[key].append(path)
    for group in groups:
        group.sort()
    position = {p: i for i, p in enumerate(files)}
    groups.sort(key=lambda g: position[g[0]])
    return groups


# ---- stages of one module in a dump folder ------------------------------------------------

# XLA: [PREFIX-]module_NNNN[.NAME].STAGE.txt (dump.cc's FilenameFor).
_XLA_FILE = re.compile(r"^(?:.*-)?(module_\d{4,})\.(.+)\.txt$")
# XLA: module_NNNN[.NAME]/module.mlir, the StableHLO the compiler was handed.
_XLA_MLIR_DIR = re.compile(r"^(?:.*-)?(module_\d{4,})(?:\..*)?$")
# A pass dump: NNNN.PIPELINE.after_PASS[.before_NEXT].
_PASS_STAGE = re.compile(r"^(\d+)\.[^.]*\.(after_.+?)(?:\.before_.*)?$")
# XLA sanitizes these in the module name it puts in a file name.
_UNSAFE_IN_NAME = re.compile(r"[/\\\[\] ]")


@dataclass(frozen=True)
class Stage:
    """Which module of which dump a file holds, and at which stage of compilation.

    ``module``: the module's identity (its folder and XLA id, ``DIR/module_0002``); for a file
    that is no stage of a dumped module, the file's own path.  ``rank`` orders the stages
    (the StableHLO handed to XLA, before optimizations, each pass in order, after
    optimizations).  ``name``: what a user calls the stage (``before_optimizations``,
    ``after_spmd-partitioning``, ``module.mlir``, a file's name).  ``joined``: a file whose name
    carries no XLA module id, taken for a stage by its module name (weaker evidence).
    """

    module: str
    rank: tuple[int, int]
    name: str
    # A file XLA did not name, joined to the module by its module name alone.
    joined: bool = False


def _xla_stage(stage: str) -> tuple[tuple[int, int], str]:
    if stage == "before_optimizations":
        return (1, 0), stage
    if stage.endswith("after_optimizations"):
        return (3, 0), stage
    m = _PASS_STAGE.match(stage)
    if m is not None:
        return (2, int(m.group(1))), m.group(2)
    return (2, 1 << 30), stage


def _xla_file(path: str, name: str | None) -> tuple[str, Stage] | None:
    """(XLA module id, stage) of a file XLA named, None for any other file."""
    folder, base = os.path.split(path)
    if base == "module.mlir":
        parent, sub = os.path.split(folder)
        m = _XLA_MLIR_DIR.match(sub)
        if m is None:
            return None
        return m.group(1), Stage(os.path.join(parent, m.group(1)), (0, 0), "module.mlir")
    m = _XLA_FILE.match(base)
    if m is None:
        return None
    rest = m.group(2)
    if name is not None:
        safe = _UNSAFE_IN_NAME.sub("_", name)
        if rest.startswith(safe + "."):
            rest = rest[len(safe) + 1:]
    rank, label = _xla_stage(rest)
    return m.group(1), Stage(os.path.join(folder, m.group(1)), rank, label)


def dump_stages(files: Iterable[str], names: dict[str, str | None]) -> dict[str, Stage]:
    """Each file's ``Stage`` (``names``: each file's module name, as ``group_copies`` reads them)."""
    stages: dict[str, Stage] = {}
    # (folder, module name) -> the XLA modules of that name there (by identity)
    named: dict[tuple[str, str | None], set[str]] = {}
    others: list[str] = []
    for path in files:
        found = _xla_file(path, names.get(path))
        if found is None:
            others.append(path)
            continue
        stage = found[1]
        stages[path] = stage
        named.setdefault((os.path.dirname(stage.module), names.get(path)), set()).add(stage.module)
    for path in others:
        name = names.get(path)
        modules = named.get((os.path.dirname(path), name), set()) if name is not None else set()
        # A lowering beside the dump: before XLA's stages (StableHLO) or after them (HLO text).
        rank = (0, 1) if path.endswith(".mlir") else (4, 0)
        if len(modules) == 1:
            stages[path] = Stage(next(iter(modules)), rank, os.path.basename(path), joined=True)
        else:
            stages[path] = Stage(path, rank, "")
    return stages


def group_stages(groups: Iterable[list[str]], stages: dict[str, Stage]) -> dict[str, Stage]:
    """The stage of each group of copies, by its first (linted) file: that file's, or, when only
    its module name joined it to a module, the stage XLA's name gives a copy of it in the same
    folder (jax's ``jax_ir*.mlir`` beside XLA's identical ``module_NNNN.NAME/module.mlir``)."""
    out = {}
    for group in groups:
        first = stages[group[0]]
        if first.joined:
            here = os.path.dirname(group[0])
            first = next((stages[p] for p in group if not stages[p].joined
                          and os.path.dirname(stages[p].module) == here), first)
        out[group[0]] = first
    return out


# ---- the platform a dump was compiled for ----------------------------------------------------

# XLA names a module's optimized stage after the compiler's platform: ``cpu_after_optimizations``,
# ``tpu_after_optimizations``, ``sm_9.0_gpu_after_optimizations`` (CUDA), ``gpu_after_optimizations``.
_PLATFORM_STAGE = re.compile(r"(?:^|[._])(cpu|gpu|tpu|cuda|rocm)_after_optimizations(?:[.-]|$)")


def dump_platforms(files: Iterable[str]) -> dict[str, str]:
    """The platform each file of an XLA dump was compiled for, where the dump says it: a module's
    ``PLATFORM_after_optimizations`` file names it for every stage of that module (its folder and
    ``module_NNNN``), and a folder whose modules all name one platform names it for its other
    files (jax's ``jax_ir*`` beside them).  Files the names say nothing of are left out: their
    sites are priced for an assumed platform, and say so."""
    files = list(files)
    by_module: dict[tuple[str, str], set[str]] = {}
    by_folder: dict[str, set[str]] = {}
    for path in files:
        folder, base = os.path.split(path)
        m = _PLATFORM_STAGE.search(base)
        if m is None:
            continue
        platform = {"cuda": "gpu", "rocm": "gpu"}.get(m.group(1), m.group(1))
        module = _XLA_FILE.match(base)
        if module is not None:
            by_module.setdefault((folder, module.group(1)), set()).add(platform)
        by_folder.setdefault(folder, set()).add(platform)
    out: dict[str, str] = {}
    for path in files:
        folder, base = os.path.split(path)
        parent, sub = os.path.split(folder)
        m = _XLA_MLIR_DIR.match(sub) if base == "module.mlir" else None
        key: tuple[str, str] | None
        if m is not None:  # module_NNNN.NAME/module.mlir: the module's folder is the parent
            key = (parent, m.group(1))
            folder = parent
        else:
            m = _XLA_FILE.match(base)
            key = (folder, m.group(1)) if m is not None else None
        named = by_module.get(key, set()) if key is not None else set()
        if not named:
            named = by_folder.get(folder, set())
        if len(named) == 1:
            out[path] = next(iter(named))
    return out
