"""The tools at their edges (issue 47), each as a user meets it: a subprocess running the console
script, memory-limited (``ulimit -v``: RLIMIT_AS) where it reads a device or an endless pipe.

* ``hlo-lint /dev/zero`` and an endless pipe stop at ``--max-input-size`` (every reader goes through
  ``hlo_passes.files``; the copies' grouping once read a whole file, unbounded);
* ``cat x | hlo-lint /dev/stdin`` and ``hlo-lint <(cat x)`` lint the module (the grouping drained
  the pipe first, leaving "empty input: no module");
* a stdout that cannot be written (``/dev/full``) is exit 2 naming it, not exit 3 "a bug";
* the stream size error is a sentence;
* docs/cli.md and ``--help`` name the same flags and values (``--platform cuda``);
* the ``HLO_PASSES`` plugin on an unsupported jax says one line.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import script

REPO_ROOT = Path(__file__).resolve().parents[1]

DATA = REPO_ROOT / "examples" / "data"
HLO = DATA / "moe_mesh2_concat.hlo"
DOCS_CLI = REPO_ROOT / "docs" / "cli.md"
# What a run of a console script may map (the interpreter, lark, networkx): well under the machine's
# memory, far under what reading /dev/zero unbounded takes.
MEMORY_LIMIT = 1 << 30


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def _bash(command: str, *, limited: bool = True) -> subprocess.CompletedProcess:
    """``command`` in bash (for ``<(...)`` and pipes), the tools named by their console scripts."""
    tools = {name: shlex.join(script(name)) for name in ("hlo-lint", "hlo-rewrite")}
    for name, cmd in tools.items():
        command = re.sub(rf"(?<![\w/-]){name}\b", lambda _m, c=cmd: c, command)
    # The memory limit set by the shell (``ulimit -v``, KiB), not a preexec_fn: no fork of a process
    # that may have jax's threads running.
    limit = f"ulimit -v {MEMORY_LIMIT // 1024}; " if limited else ""
    return subprocess.run(["bash", "-c", f"{limit}set -o pipefail; {command}"], capture_output=True, text=True,
                          timeout=120, env=_env(), cwd=REPO_ROOT)


# ---- bounded reads: devices and endless pipes ---------------------------------------------------


@pytest.mark.jax_free
@pytest.mark.parametrize("tool", ["hlo-lint", "hlo-rewrite"])
def test_dev_zero_is_refused_within_the_memory_limit(tool: str) -> None:
    proc = _bash(f"{tool} /dev/zero")
    assert proc.returncode == 2, proc.stderr
    out = proc.stdout + proc.stderr
    assert "/dev/zero:1:1: error:" in out and "not a text module (binary data at byte 0)" in out, out
    assert "Traceback" not in out and "out of memory" not in out


# Endless text that counts what the reader took from the pipe (written to the file named).
FEEDER = ("import sys\n"
          "line, n = b'// a comment line that never ends\\n' * 1024, 0\n"
          "try:\n"
          "    while True:\n"
          "        sys.stdout.buffer.write(line); n += len(line)\n"
          "except (BrokenPipeError, OSError):\n"
          "    open(sys.argv[1], 'w').write(str(n))\n")


@pytest.mark.jax_free
@pytest.mark.parametrize("how", ["<({feed})", "/dev/stdin < <({feed})"], ids=["process-substitution", "dev-stdin-pipe"])
def test_an_endless_pipe_stops_at_the_limit_for_lint(how: str, tmp_path: Path) -> None:
    count = tmp_path / "count"
    feed = shlex.join([sys.executable, "-c", FEEDER, str(count)])
    proc = _bash(f"hlo-lint {how.format(feed=feed)} --max-input-size 8M; status=$?; sleep 0.5; exit $status")
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"/dev/(fd/\d+|stdin): error: too-large: input too large: more than the limit of "
                     r"8,388,608 bytes \(--max-input-size\)\n", proc.stdout), proc.stdout + proc.stderr
    # Read once, up to the limit (and a chunk and the pipe's buffer): not until memory runs out first.
    assert int(count.read_text()) < 8 * 2**20 + 4 * 2**20, count.read_text()


@pytest.mark.jax_free
def test_an_endless_pipe_stops_at_the_limit_for_rewrite() -> None:
    proc = _bash("hlo-rewrite <(yes 'HloModule m') --max-input-size 8M")
    assert proc.returncode == 2
    assert re.fullmatch(r"/dev/fd/\d+: error: input too large: more than the limit of 8,388,608 bytes "
                        r"\(--max-input-size\)\n", proc.stderr), proc.stderr


@pytest.mark.jax_free
def test_the_stdin_size_error_is_a_sentence() -> None:
    proc = _bash(f"hlo-rewrite - --max-input-size 1k < {shlex.quote(str(HLO))}")
    assert proc.returncode == 2
    assert proc.stderr == ("<stdin>: error: input too large: more than the limit of 1,024 bytes "
                           "(--max-input-size)\n")


# ---- pipes and process substitution are read once ---------------------------------------------------


@pytest.mark.jax_free
@pytest.mark.parametrize("how", ["cat {x} | hlo-lint /dev/stdin", "hlo-lint <(cat {x})",
                                 "hlo-lint - < <(cat {x})", "hlo-lint <(cat {x}) {x}"],
                         ids=["dev-stdin", "process-substitution", "dash", "beside-its-file"])
def test_a_pipe_is_linted_as_the_file_it_carries(how: str) -> None:
    proc = _bash(how.format(x=shlex.quote(str(HLO))))
    assert proc.returncode == 1, proc.stdout + proc.stderr  # findings, no error
    sites = re.findall(r"^(\S+?):61:3: MOE001 unfused MoE weight gather", proc.stdout, re.M)
    assert len(sites) == how.count("{x}"), proc.stdout
    assert "empty input" not in proc.stdout + proc.stderr


@pytest.mark.jax_free
def test_rewrite_reads_a_process_substitution_once() -> None:
    proc = _bash(f"hlo-rewrite <(cat {shlex.quote(str(HLO))}) | head -c 9")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "HloModule"
    assert re.match(r"/dev/fd/\d+:61:3: MOE001 moe-gather-fusion \[concat\] collectives 4 -> 2", proc.stderr)


# ---- write errors ------------------------------------------------------------------------------------


@pytest.mark.jax_free
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("tool", ["hlo-rewrite", "hlo-lint"])
def test_stdout_that_cannot_be_written_is_exit_2_naming_it(tool: str) -> None:
    proc = _bash(f"{tool} {shlex.quote(str(HLO))} > /dev/full")
    assert proc.returncode == 2, proc.stderr
    assert f"{tool}: error: cannot write stdout (/dev/full): No space left on device\n" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "Exception ignored" not in proc.stderr  # the interpreter's own flush at exit stays quiet


# ---- docs/cli.md and --help agree ----------------------------------------------------------------------


# Flags a section names that belong to another program: the schema generator's (`python -m
# hlo_passes.diagnostics.schema --write`) and hlo-rewrite's `--passes` in the rule table's
# "opt-in for rewriting".
OTHER_PROGRAMS_FLAGS = {"hlo-lint": {"--write", "--passes"}}


def _help(tool: str) -> str:
    proc = subprocess.run([*script(tool), "--help"], capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _doc_section(tool: str) -> str:
    text = DOCS_CLI.read_text()
    sections = re.split(r"(?m)^(?=## )", text)
    (section,) = [s for s in sections if s.startswith(f"## {tool}")]
    return section


def _help_choices(help_text: str) -> dict[str, set[str]]:
    return {flag: set(values.split(",")) for flag, values in re.findall(r"(--[\w-]+) \{([\w,-]+)\}", help_text)}


@pytest.mark.jax_free
@pytest.mark.parametrize("tool", ["hlo-rewrite", "hlo-lint"])
def test_docs_cli_and_help_name_the_same_flags_and_values(tool: str) -> None:
    help_text = _help(tool)
    section = _doc_section(tool)
    common = DOCS_CLI.read_text().split("\n## ", 1)[0]  # the options both tools take, said once on top
    documented = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", section + common))
    offered = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", help_text)) - {"--help"}
    # Flags of the other tool that the section names in passing ("as hlo-rewrite --platform does").
    other = "hlo-lint" if tool == "hlo-rewrite" else "hlo-rewrite"
    in_passing = set(re.findall(rf"{other} (--[\w-]+)", section)) | {f for f in documented if f.startswith("--xla_")}
    in_passing |= OTHER_PROGRAMS_FLAGS.get(tool, set())
    assert documented - offered - in_passing == set(), f"docs/cli.md names flags {tool} --help does not have"
    # A flag the docs name by its short form (`-o`, `-q`) is described.
    short = dict((long, sh) for sh, long in re.findall(r"(?<![\w-])(-\w)(?: [A-Z_,]+)?, (--[\w-]+)", help_text))
    described = {f for f in offered - documented if short.get(f) and re.search(rf"`{short[f]}\b", section)}
    assert offered - documented - described == set(), f"{tool} --help has flags docs/cli.md does not describe"
    # Every value the docs give a flag (`--platform cpu|gpu|tpu`, "also `cuda`, `rocm`") is accepted.
    choices = _help_choices(help_text)
    for flag, values in re.findall(r"`(--[\w-]+) ([\w-]+(?:\|[\w-]+)+)`", section):
        if flag in choices:
            assert set(values.split("|")) <= choices[flag], (flag, values, choices[flag])
    also = re.search(r"`--platform [^`]*` \(also ([^)]*)\)", section)
    if also:
        aliases = set(re.findall(r"`(\w+)`", also.group(1)))
        assert aliases and aliases <= choices["--platform"], (aliases, choices["--platform"])


@pytest.mark.jax_free
@pytest.mark.parametrize("platform", ["cuda", "rocm", "gpu", "cpu", "tpu"])
def test_lint_takes_every_platform_docs_cli_lists(platform: str) -> None:
    proc = _bash(f"hlo-lint --platform {platform} {shlex.quote(str(HLO))}", limited=False)
    assert proc.returncode in (0, 1), proc.stderr
    assert "invalid choice" not in proc.stderr


# ---- the HLO_PASSES plugin on an unsupported jax -----------------------------------------------------------


@pytest.mark.jax_facing
def test_the_plugin_on_an_unsupported_jax_says_one_line() -> None:
    # jax older than 0.10.2, as hlo_passes sees it: the version jax reports is set before its backends
    # (and with them the plugin discovery that calls jax_plugins.hlo_passes_xla_pass) start.
    program = ("import jax\n"
               "jax.__version__ = '0.10.1'\n"
               "import jax.numpy as jnp\n"
               "print(jax.jit(lambda x: x + 1)(jnp.ones(2)).tolist())\n")
    env = {**_env(), "HLO_PASSES": "rewrite", "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "[2.0, 2.0]\n"
    ours = [ln for ln in proc.stderr.splitlines() if "hlo_passes" in ln or "HLO_PASSES" in ln]
    assert ours == [
        "hlo_passes: warning: $HLO_PASSES=rewrite ignored, the pass is off: hlo_passes supports jax>=0.10.2, "
        "found jax 0.10.1: it relies on APIs that older releases lack (see hlo_passes/_jax_compat.py); "
        "upgrade, e.g. pip install -U 'jax>=0.10.2' 'jaxlib>=0.10.2'"], proc.stderr
    assert "Jax plugin configuration error" not in proc.stderr and "Traceback" not in proc.stderr
