"""The fishing games (carosello, carrusel, karusele): rulings F1-F10.

``items`` holds card values and table items, ``position`` parses what the player to move
sees, ``referee`` judges one play, ``plays`` lists every legal play, ``model`` is the CP-SAT
choice of capture groups, ``search`` ranks the best plays, ``scoring`` counts a deal,
``endgame`` solves the rest of a deal exactly once the stock is empty, and ``notation``
reads a table written as text (``3C 4D [2H 3S AC =6 @1]``).
"""
