"""Where a finding is, for a pull request: the user's source file inside the repository, or the dump.

CI annotates the files of the repository being checked; a dump folder is not among them.  When a
finding's source line (``Diagnostic.source``, ``file:line`` as jax recorded it) is a file of the
repository, that is where GitHub annotations and SARIF results point, and the dump position
becomes a related location; otherwise the dump position stays the primary one.

The repository is ``--source-root`` (default: the git top level of the working directory, else
the working directory).  jax records absolute paths of the machine that lowered the program; a
dump made elsewhere (a TPU job, another checkout) names files that do not exist here, so such a
path is matched by its longest tail that is a file under the root (``/home/runner/work/p/p/
model/moe.py`` -> ``model/moe.py``).  A file of an installed package (``site-packages``,
``dist-packages``) is the repository's only when the repository holds that package path, at its
top or under ``src/`` (``pip install .`` of the checkout); another library's never is.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

__all__ = ["SourceRoot", "default_source_root"]

_INSTALLED = ("site-packages", "dist-packages")


def default_source_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The git top level of ``cwd`` (default: the working directory), else ``cwd`` itself."""
    start = Path(cwd if cwd is not None else os.getcwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():  # a directory, or a file in a worktree or submodule
            return folder
    return start


class SourceRoot:
    """The repository findings are shown in: which paths are its files, relative to it."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root).resolve() if root is not None else default_source_root()
        self._in_repo = lru_cache(maxsize=4096)(self._find)

    def relative(self, path: str) -> str | None:
        """``path`` (a file given on the command line, relative to the working directory, or
        absolute) relative to the root, POSIX-style; None when it is outside."""
        p = Path(os.path.abspath(path))
        try:
            return p.relative_to(self.root).as_posix()
        except ValueError:
            try:
                return p.resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError):
                return None

    def file(self, path: str) -> str | None:
        """``relative(path)`` for a file that exists (not ``<string>`` and the like)."""
        return self.relative(path) if os.path.isfile(path) else None

    def source(self, source: str | None) -> tuple[str, int] | None:
        """(file relative to the root, line) of a finding's ``file:line`` when the file is the
        repository's; None otherwise (or when there is no source)."""
        if not source:
            return None
        file, sep, line = source.rpartition(":")
        if not sep or not line.isdigit():
            file, line = source, "0"
        found = self._in_repo(file)
        return (found, int(line)) if found is not None else None

    def _find(self, file: str) -> str | None:
        parts = Path(file.replace("\\", "/")).parts
        installed = [i for i, part in enumerate(parts) if part in _INSTALLED]
        if installed:
            # An installed package: the repository's own when the repository holds that package's
            # file (``pip install .`` of the checkout), at its top or under src/.
            package = parts[installed[-1] + 1:]
            for prefix in ((), ("src",)):
                if package and self.root.joinpath(*prefix, *package).is_file():
                    return Path(*prefix, *package).as_posix()
            return None
        if os.path.isabs(file) and os.path.isfile(file):
            # A file of this machine: the repository's only when it is under the root.
            return self.relative(file)
        # Recorded on another machine (or relative to where it ran): its longest tail that is
        # a file of the repository.
        tail = [p for p in parts if p not in ("/", "\\", "..", ".") and not p.endswith(":\\")]
        for k in range(len(tail)):
            candidate = self.root.joinpath(*tail[k:])
            if candidate.is_file():
                return Path(*tail[k:]).as_posix()
        return None
