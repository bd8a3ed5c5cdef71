"""Contract rummy (carioca, rulings C1-C8): meld reading, the referee, the CP-SAT search."""
