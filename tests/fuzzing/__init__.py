"""The project's own fuzz harness: seeded mutants of real modules through the whole tool.

    python -m fuzzing --mutants 100000 --out fuzz-out     (from tests/; ``make fuzz``)

``mutators`` makes mutants of the shared corpus, the samples and the example
programs (one seeded ``random.Random`` per mutant, so mutant N of seed S is
the same text everywhere); ``oracle`` runs one text through ``parse``,
``to_text``, ``to_text(regenerate=True)`` and its re-parse, ``parse(...,
validate=True)``, the verifier and ``run_passes(strict=True)`` and names
whatever breaks the contract; ``pool`` runs the oracle in worker processes
with a per-input timeout (a hang's stack is dumped before the worker is
killed, a dead worker's input is run again alone); ``reduce`` shrinks each
finding to a small reproducer; ``campaign`` ties them together, writes the
findings and prints the counts per class.  ``tests/test_fuzz_campaign.py`` is
the bounded CI run.
"""
