"""What every game family shares: cards and their notation, errors, violations, rulesets and
the registry that says which family serves which RPC."""
