"""Runnable MoE programs written in JAX (see ``examples/moe.py``).

A package so that tests and benchmarks can ``from examples import moe`` with
the repository root on ``sys.path``; each module also runs as a script.
"""
