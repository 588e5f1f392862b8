"""help(hlo_passes) tells the truth (issue 28): every signature the package docstring writes is
the function's own, every public function is in it, and help() lists the jax entry points that
are loaded on first use."""
from __future__ import annotations

import inspect
import pydoc
import re

import pytest

import hlo_passes

# ``name(params)`` as the docstring writes each function.
_WRITTEN = re.compile(r"``(\w+)\(([^`]*)\)``")


def _written() -> dict[str, str]:
    return {name: params for name, params in _WRITTEN.findall(hlo_passes.__doc__ or "")}


def _plain(fn) -> str:
    """The parameters of ``fn`` as the docstring spells them: no annotations, defaults in double quotes."""
    sig = inspect.signature(fn)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    text = str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))[1:-1]
    return text.replace("'", '"')


@pytest.mark.parametrize("name", sorted(_written()))
def test_each_signature_in_the_docstring_is_the_functions(name: str) -> None:
    assert name in hlo_passes.__all__, f"{name} is written in the docstring but not public"
    assert _written()[name] == _plain(getattr(hlo_passes, name))


def test_every_public_function_is_in_the_docstring() -> None:
    functions = {n for n in hlo_passes.__all__ if inspect.isfunction(getattr(hlo_passes, n))}
    assert functions == set(_written()), functions ^ set(_written())
    assert {"jit", "lint_fn", "install", "uninstall"} <= functions


def test_help_lists_the_functions_loaded_on_first_use() -> None:
    text = pydoc.render_doc(hlo_passes, renderer=pydoc.plaintext)
    functions = text.split("\nFUNCTIONS\n", 1)[1]
    for name in ("jit", "lint_fn", "install", "uninstall", "run_passes", "parse"):
        assert re.search(rf"^    {name}\(", functions, re.M), name
    assert re.search(r"^    jit\(fun: .*kernel: 'str \| None' = None", functions, re.M)
    assert re.search(r"^    run_passes\(module: .*copy: 'bool' = True, strict: 'bool' = False", functions, re.M)
    assert {"jit", "lint_fn", "install", "uninstall"} <= set(dir(hlo_passes))
