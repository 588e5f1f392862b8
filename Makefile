# Two commands do all the set-up on a fresh machine:
#   make demo   install, then parse a bundled MoE module and show what hlo_passes sees
#   make test   install with the test extras, then run the whole test suite
PYTHON ?= python3
PIP_FLAGS ?= --quiet --disable-pip-version-check

.PHONY: install install-test demo test test-long bench golden

install:
	$(PYTHON) -m pip install $(PIP_FLAGS) -e .

install-test:
	$(PYTHON) -m pip install $(PIP_FLAGS) -e '.[test]'

demo: install
	$(PYTHON) examples/demo.py
	@echo "== hlo-rewrite examples/data/moe_mesh2_concat.mlir -o /tmp/hlo_passes_demo.mlir --report /tmp/hlo_passes_demo.json"
	hlo-rewrite examples/data/moe_mesh2_concat.mlir -o /tmp/hlo_passes_demo.mlir --report /tmp/hlo_passes_demo.json
	@echo "== hlo-lint examples/data /tmp/hlo_passes_demo.mlir   (exit 1: findings in the original, none in the rewrite)"
	hlo-lint examples/data /tmp/hlo_passes_demo.mlir; test $$? -eq 1

test: install-test
	$(PYTHON) -m pytest -q

# The longer Hypothesis profile (more examples per property).
test-long: install-test
	HYPOTHESIS_PROFILE=dev $(PYTHON) -m pytest -q

# Every benchmark, then benchmarks/RESULTS.md (BENCH_ARGS=--quick: a smoke run into a scratch folder).
bench: install
	$(PYTHON) -m pip install $(PIP_FLAGS) -e '.[bench]'
	$(PYTHON) benchmarks/run_all.py $(BENCH_ARGS)

# tests/golden/: the rewritten text and report of every module the tests and examples
# produce, written again for each interpreter's jax version (jax-X.Y/) and common/;
# review with `git diff tests/golden`.  Both sets: GOLDEN_PYTHONS="py3.11 py3.12".
GOLDEN_PYTHONS ?= $(PYTHON)
golden:
	@for py in $(GOLDEN_PYTHONS); do $$py tests/golden_cases.py --write || exit 1; done
