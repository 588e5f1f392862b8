# Two commands do all the set-up on a fresh machine:
#   make demo   install, then parse a bundled MoE module and show what hlo_passes sees
#   make test   install with the test extras, then run the whole test suite
# and one makes a release: make dist (the sdist and wheel, in dist/).
# Recipes are quiet (make prints no command twice); `make V=1 ...` shows them.
PYTHON ?= python3
PIP_FLAGS ?= --quiet --disable-pip-version-check
Q := $(if $(V),,@)

# The test environments CI runs (issue 12): the default Python (3.11: the
# registry serves jax 0.10.2 there), and virtual environments under $(VENVS)
# with Python 3.12 and the newest jax, and with Python 3.12 and jax 0.11.2 (the
# GPU machine's release) for the jax-facing tests.  tools/test_env.sh finds
# the interpreter (tools/find_python.sh), installs jax first and fails if
# installing hlo_passes changes it.
VENVS ?= .venv
PY312 = $(VENVS)/py312/bin/python
PY312_JAX011 = $(VENVS)/py312-jax011/bin/python
# The Python 3.12 stage's jax: the newest release (jax 0.12.1 since 2026-12-06: its XLA:CPU runs
# batched dots through YNNPACK, where the split rules keep each GMM and fuse the collectives only;
# docs/testing.md, "jax 0.12.1").  NEWEST_JAX='jax<0.12.1' 'jaxlib<0.12.1' runs it on an older one.
NEWEST_JAX ?= jax jaxlib

.PHONY: install install-test demo test test-trainers envs-py312 env-py312 env-py312-jax011 test-py311 test-py312 test-py312-jax011 test-py311-run test-py312-run test-py312-jax011-run test-long bench golden fuzz soundness check-maxtext dist

install:
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) -e .

install-test:
	$(Q)tools/pip_lock.sh $(PYTHON) -m pip install $(PIP_FLAGS) -e '.[test]'

# The rewrite and its report go to a temporary directory, removed at the end.
demo: install
	$(Q)$(PYTHON) examples/demo.py
	$(Q)tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/hlo_passes_demo.XXXXXX") && trap 'rm -rf "$$tmp"' EXIT && \
	echo "== hlo-rewrite examples/data/moe_mesh2_concat.mlir -o $$tmp/fused.mlir --report $$tmp/report.json" && \
	$(PYTHON) -m hlo_passes.cli rewrite examples/data/moe_mesh2_concat.mlir -o "$$tmp/fused.mlir" --report "$$tmp/report.json" && \
	echo "== hlo-lint examples/data $$tmp/fused.mlir   (exit 1: findings in the original, none in the rewrite)" && \
	{ $(PYTHON) -m hlo_passes.cli lint examples/data "$$tmp/fused.mlir"; test $$? -eq 1; }

# Everything CI runs (.ci/run): the whole suite in both environments (the tests marked slow in
# one of them), then the jax-facing part on jax 0.11.2, and MaxText's trainer.  The tests marked
# jax_free (the parser, the IR, the rules on text: no jax or jaxlib in them) run once, on the
# default Python, in a run of their own with jax blocked (HLO_PASSES_TESTS_WITHOUT_JAX=1,
# tests/conftest.py), so that one which reaches jax fails; on Python 3.12 the same pure Python runs
# under every jax-facing test (each parses and prints its programs).  tools/ci_lanes.sh runs the stages in two lanes of about equal
# length side by side (CI's two cores; each output line says its stage, and every stage runs even
# after one failed); SERIAL=1 runs them one after another.  docs/testing.md.
# PYTEST_ARGS: more pytest arguments for every run (e.g. -x, or -k to select).
test:
ifdef SERIAL
	$(Q)$(MAKE) --no-print-directory install-test envs-py312 test-py311-run test-py312-run test-py312-jax011-run test-trainers
else
	$(Q)MAKE="$(MAKE)" tools/ci_lanes.sh
endif

envs-py312: env-py312 env-py312-jax011

env-py312:
	$(Q)tools/test_env.sh $(VENVS)/py312 3.12 $(NEWEST_JAX) >/dev/null

env-py312-jax011:
	$(Q)tools/test_env.sh $(VENVS)/py312-jax011 3.12 jax==0.11.2 jaxlib==0.11.2 >/dev/null

test-py311: install-test
	$(Q)$(MAKE) --no-print-directory test-py311-run

test-py312: env-py312
	$(Q)$(MAKE) --no-print-directory test-py312-run

test-py312-jax011: env-py312-jax011
	$(Q)$(MAKE) --no-print-directory test-py312-jax011-run

# The runs alone, in environments already set up.
# The tests marked slow (long, and about neither the Python nor the jax version) run once: the
# jax-free ones in the Python 3.11 run without jax, the others in the Python 3.12 stage;
# `make test-long` runs everything.
# (Both runs, whatever the first gives: a jax-free failure must not hide the jax-facing results.)
test-py311-run:
	$(Q)status=0; \
	HLO_PASSES_TESTS_WITHOUT_JAX=1 $(PYTHON) -m pytest -q -m jax_free $(PYTEST_ARGS) || status=1; \
	$(PYTHON) -m pytest -q -m "not jax_free and not slow" $(PYTEST_ARGS) || status=1; \
	exit $$status

test-py312-run:
	$(Q)$(PY312) -m pytest -q -m "not jax_free" $(PYTEST_ARGS)

test-py312-jax011-run:
	$(Q)$(PY312_JAX011) -m pytest -q -m "jax_facing and not slow" $(PYTEST_ARGS)

# MaxText 0.2.5's own training loop (issue 46), prefused FSDP 8: HLO_PASSES unset, =rewrite, and the
# hand fix; the rewrite must reach the hand fix's counts with equal losses.  Its venv (made once under
# $(VENVS)/maxtext-trainer from ../shared/trainers/maxtext) and the three runs: docs/testing.md.
test-trainers:
	$(Q)VENVS=$(VENVS) tools/ci_trainers.sh $(TRAINER_VARIANTS)

# A release's sdist and wheel in dist/ (docs/install.md: the release step), built in an isolated
# environment as pip builds it for a user; tests/test_wheel.py installs such a wheel in a fresh
# environment and runs it outside the checkout.
dist:
	$(Q)rm -rf dist
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) 'build>=1.2'
	$(Q)$(PYTHON) -m build --outdir dist .
	$(Q)ls dist

# The longer Hypothesis profile (more examples per property).
test-long: install-test
	$(Q)HYPOTHESIS_PROFILE=dev $(PYTHON) -m pytest -q

# Every benchmark, then benchmarks/RESULTS.md (BENCH_ARGS=--quick: a smoke run into a scratch folder).
bench: install
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) -e '.[bench]'
	$(Q)$(PYTHON) benchmarks/run_all.py $(BENCH_ARGS)

# tests/golden/: the rewritten text and report of every module the tests and examples
# produce, written again for both jax sets (jax-0.10/ with the default Python, jax-0.12/
# with the test-py312 environment) and common/; review with `git diff tests/golden`.
golden: install-test
	$(Q)tools/test_env.sh $(VENVS)/py312 3.12 $(NEWEST_JAX) >/dev/null
	$(Q)$(PYTHON) tests/golden_cases.py --write
	$(Q)$(PY312) tests/golden_cases.py --write

# The fuzz campaign at scale (issue 21): FUZZ_MUTANTS mutants of the corpus, samples and examples
# through parse, print, validate, verify and run_passes in worker processes; findings and reduced
# reproducers go to FUZZ_OUT; exit 1 if anything broke the contract.
FUZZ_MUTANTS ?= 100000
FUZZ_SEED ?= 21
FUZZ_OUT ?= $(CURDIR)/fuzz-out
fuzz: install-test
	$(Q)cd tests && $(PYTHON) -m fuzzing --mutants $(FUZZ_MUTANTS) --seed $(FUZZ_SEED) --out $(FUZZ_OUT)

# The differential soundness campaign at scale (issue 43): SOUNDNESS_PROGRAMS generated programs
# (MoE, dense-MLP and attention weights; FSDP over 1-8 CPU devices; explicit and partitioner
# gathers; scan + checkpoint; forward and training steps; f32/bf16/int8), each compiled with the
# pass inside XLA with every rule enabled and without it, in SOUNDNESS_WORKERS worker processes;
# every value difference printed as a DIFF line with its seed and program, a summary line last;
# exit 1 on any difference.  docs/robustness.md records the runs.
SOUNDNESS_PROGRAMS ?= 2000
SOUNDNESS_SEED ?= 0
SOUNDNESS_WORKERS ?= 2
SOUNDNESS_OUT ?= $(CURDIR)/soundness-out.jsonl
soundness: install-test
	$(Q)cd tests && $(PYTHON) -m soundness --programs $(SOUNDNESS_PROGRAMS) --seed $(SOUNDNESS_SEED) \
		--workers $(SOUNDNESS_WORKERS) --out $(SOUNDNESS_OUT)

# MaxText's own MoE layer (prefuse_moe_weights=False: gate and up as two weights) through
# moe-pair-gather-fusion (issue 17).  Optional, not in CI: it downloads MaxText 0.2.5 and what its
# layer imports into $(VENVS)/maxtext (Python 3.12, newest jax), then runs tools/check_maxtext.py.
MAXTEXT_PY = $(VENVS)/maxtext/bin/python
MAXTEXT_DEPS = maxtext==0.2.5 flax tokamax aqtp qwix jinja2 pathwaysutils omegaconf huggingface_hub \
	transformers grain drjax pillow
check-maxtext:
	$(Q)tools/test_env.sh $(VENVS)/maxtext 3.12 jax jaxlib >/dev/null
	$(Q)$(MAXTEXT_PY) -m pip install $(PIP_FLAGS) $(MAXTEXT_DEPS)
	$(Q)$(MAXTEXT_PY) tools/check_maxtext.py $(MAXTEXT_ARGS)
