"""Independent test oracles: an exhaustive brute-force solver and random position generators.

No oracle here imports the CP-SAT model (``solver.rearrangement.search``, ortools): they
are the evidence that the model is right, so they are built from the rulings (SPEC §3) and
the referee (``referee.judge_move``) only (``tests/test_suggest_mexe_twos.py`` checks the
imports). ``differential.py`` is the harness that runs both sides.
"""
