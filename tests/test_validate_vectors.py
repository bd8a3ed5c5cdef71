"""Every ValidateMove vector (tests/vectors/validate/*.toml) judged by ``validate_move``."""

from __future__ import annotations

import pytest

from solver.contract.referee import ContractVerdict, validate_contract_move
from solver.core.rulesets import Family
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import validate_move
from tests.validate_vectors import Case, all_params, check, parse


@pytest.mark.parametrize("case", all_params())
def test_vector(case: Case) -> None:
    parsed = parse(case)
    contract = parsed.position.ruleset.family is Family.CONTRACT
    verdict: Verdict | ContractVerdict = (
        validate_contract_move(parsed.position, parsed.move)
        if contract
        else validate_move(parsed.position, parsed.move)
    )
    effects = {
        "played": [c.code for c in verdict.played],
        "hand_after": [c.code for c in verdict.hand_after],
        "hand_points_after": verdict.hand_points_after,
        "went_out": verdict.went_out,
        "knock_eligible": verdict.knock_eligible,
        "table": [[tc.code for tc in meld] for meld in verdict.table],
    }
    check(case, verdict.legal, [v.code.name for v in verdict.violations], effects)
    for violation in verdict.violations:
        assert violation.rule.startswith("C" if contract else "R"), violation
        assert violation.message, violation
        assert -1 <= violation.meld < len(parsed.move.table), violation
