"""carrossel's rules engine: cards, rulesets, melds, moves and the CP-SAT models.

Pure Python + OR-Tools. Nothing here imports gRPC or generated protobuf code.
"""
