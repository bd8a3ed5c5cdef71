"""Independent test oracles: an exhaustive brute-force solver and random position generators.

Nothing in this package may import the CP-SAT model (``solver.rearrangement.search``): it is the
evidence
that the model is right, so it is built from the rulings (SPEC §3) and ``validate_move`` only.
"""
