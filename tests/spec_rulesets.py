"""The ruleset ids SPEC §1 lists, in its order: what every listing of rulesets must show."""

SPEC_IDS = [
    "carrossel",
    "mexe-mexe",
    "vatikan",
    "shangai",
    "manipulation",
    "rummikub",
    "carioca",
    "carosello",
    "carrusel",
    "karusele",
]
