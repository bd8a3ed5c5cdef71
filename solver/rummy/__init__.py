"""What the rummy families share (rearrangement and contract rummy): melds, positions and
moves, card conservation, table changes, draw rules and round settlement."""
