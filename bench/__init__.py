"""Benchmarks: seeded positions (``bench.positions``) and the solver timing (``bench.solve_bench``).

Never part of the test suite's timing assertions; see bench/README.md.
"""
