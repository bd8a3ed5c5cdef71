"""The rearrangement family (carrossel, mexe-mexe, vatikan, shangai, manipulation, rummikub):
the referee, wild accounting, the CP-SAT turn model, rebuilding a move and the search."""
