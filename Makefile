# Two commands do all the set-up on a fresh machine:
#   make demo   install, then parse a bundled MoE module and show what hlo_passes sees
#   make test   install with the test extras, then run the whole test suite
# Recipes are quiet (make prints no command twice); `make V=1 ...` shows them.
PYTHON ?= python3
PIP_FLAGS ?= --quiet --disable-pip-version-check
Q := $(if $(V),,@)

.PHONY: install install-test demo test test-long bench

install:
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) -e .

install-test:
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) -e '.[test]'

# The rewrite and its report go to a temporary directory, removed at the end.
demo: install
	$(Q)$(PYTHON) examples/demo.py
	$(Q)tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/hlo_passes_demo.XXXXXX") && trap 'rm -rf "$$tmp"' EXIT && \
	echo "== hlo-rewrite examples/data/moe_mesh2_concat.mlir -o $$tmp/fused.mlir --report $$tmp/report.json" && \
	$(PYTHON) -m hlo_passes.cli rewrite examples/data/moe_mesh2_concat.mlir -o "$$tmp/fused.mlir" --report "$$tmp/report.json" && \
	echo "== hlo-lint examples/data $$tmp/fused.mlir   (exit 1: findings in the original, none in the rewrite)" && \
	{ $(PYTHON) -m hlo_passes.cli lint examples/data "$$tmp/fused.mlir"; test $$? -eq 1; }

test: install-test
	$(Q)$(PYTHON) -m pytest -q

# The longer Hypothesis profile (more examples per property).
test-long: install-test
	$(Q)HYPOTHESIS_PROFILE=dev $(PYTHON) -m pytest -q

# Every benchmark, then benchmarks/RESULTS.md (BENCH_ARGS=--quick: a smoke run into a scratch folder).
bench: install
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) -e '.[bench]'
	$(Q)$(PYTHON) benchmarks/run_all.py $(BENCH_ARGS)
