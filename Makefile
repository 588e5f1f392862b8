# Two commands do all the set-up on a fresh machine:
#   make demo   install, then parse a bundled MoE module and show what hlo_passes sees
#   make test   install with the test extras, then run the whole test suite
PYTHON ?= python3
PIP_FLAGS ?= --quiet --disable-pip-version-check

.PHONY: install install-test demo test test-long bench fuzz

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

# The fuzz campaign at scale (issue 21): FUZZ_MUTANTS mutants of the corpus, samples and examples
# through parse, print, validate, verify and run_passes in worker processes; findings and reduced
# reproducers go to FUZZ_OUT; exit 1 if anything broke the contract.
FUZZ_MUTANTS ?= 100000
FUZZ_SEED ?= 21
FUZZ_OUT ?= $(CURDIR)/fuzz-out
fuzz: install-test
	cd tests && $(PYTHON) -m fuzzing --mutants $(FUZZ_MUTANTS) --seed $(FUZZ_SEED) --out $(FUZZ_OUT)
