"""bench/validate_bench.py (issue 51, ValidateMove through the call) runs end to end: its
echo servers and a ``carrossel serve`` answer every call, and it prints a line per server
and pause, and per ruleset and kind of proposal. No timing is asserted."""

from __future__ import annotations

import pathlib
import re

import pytest

from bench import validate_bench


def test_a_small_run_prints_every_server_and_proposal_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--n", "1", "--rounds", "1", "--gap-ms", "1", "--rulesets", "carrossel,shangai"]
    assert validate_bench.main(argv) == 0
    out = capsys.readouterr().out
    for server in ("echo", "echo+interceptor", "ValidateMove"):
        for pause in ("back to back", "gap 1 ms"):
            assert re.search(rf"^{re.escape(server)}, {pause} +\d+ ", out, re.MULTILINE), out
    labels = set(re.findall(r"^  (\S+ (?:legal|illegal)) ", out, re.MULTILINE))
    assert {"carrossel legal", "carrossel illegal"} <= labels, out


def test_proposals_are_what_they_say() -> None:
    """The legal proposals are the solver's best moves, the illegal ones a referee's no."""
    from service.rummy.convert import validate_move_call
    from solver.rearrangement.search import validate_move

    found = validate_bench.proposals(["carrossel", "rummikub"], 2, 3)
    assert any(p.legal for p in found) and any(not p.legal for p in found)
    for proposal in found:
        call = validate_move_call(proposal.request)
        assert call.move is not None
        assert validate_move(call.position, call.move).legal is proposal.legal


def test_parts_prints_a_row_per_ruleset_and_the_profile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--parts", "--n", "1", "--rounds", "1", "--rulesets", "rummikub", "--profile", "3"]
    assert validate_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^ruleset +bounds +parse +referee +answer +total$", out, re.MULTILINE), out
    assert re.search(r"^rummikub( +\d+){5}$", out, re.MULTILINE), out
    assert "Ordered by: internal time" in out, out


def test_the_proto_echo_answers_what_validate_move_answers() -> None:
    """``--proto-echo`` carries ValidateMove's real messages: its answer to a proposal is
    the servicer's, and the raw-answer client gets the same bytes unparsed."""
    from carrossel.v1 import rummy_pb2

    found = validate_bench.proposals(["carrossel"], 1, 3)
    parsed, raw = validate_bench.proto_echo_targets()
    served = validate_bench.carrossel_target(None, 1)
    try:
        for proposal in found:
            answer = served.call(proposal)
            assert isinstance(answer, rummy_pb2.ValidateMoveResponse)
            for _ in range(2):  # the first call makes the answer, the second sends it again
                assert parsed.call(proposal) == answer
                assert raw.call(proposal) == answer.SerializeToString()
    finally:
        parsed.close()
        served.close()


def test_a_proto_echo_run_prints_its_two_clients(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--n", "1", "--rounds", "1", "--gap-ms", "0", "--rulesets", "rummikub"]
    assert validate_bench.main([*argv, "--proto-echo", "--no-echo", "--no-pin-calls"]) == 0
    out = capsys.readouterr().out
    for server in ("proto echo", "proto echo, raw answer", "ValidateMove"):
        assert re.search(rf"^{re.escape(server)}, back to back +\d+ ", out, re.MULTILINE), out


def test_answers_are_written_for_saved_proposals(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--save-proposals`` then ``--load-proposals --answers``: the same requests judged
    twice each, their answers written, the digest printed; a second run prints the same."""
    import pickle

    from carrossel.v1 import rummy_pb2

    saved = str(tmp_path / "proposals.pkl")
    argv = ["--n", "1", "--rulesets", "carrossel", "--save-proposals", saved, "--answers"]
    assert validate_bench.main([*argv, str(tmp_path / "a.pkl")]) == 0
    first = capsys.readouterr().out.strip().splitlines()[-1]
    assert validate_bench.main(["--load-proposals", saved, "--answers", str(tmp_path / "b")]) == 0
    second = capsys.readouterr().out.strip().splitlines()[-1]
    digest = re.compile(r"sha256 ([0-9a-f]{64})$")
    first_digest, second_digest = digest.search(first), digest.search(second)
    assert first_digest and second_digest and first_digest[1] == second_digest[1]
    calls = validate_bench.load_proposals(saved)
    with open(tmp_path / "b", "rb") as source:
        answers = pickle.load(source)
    assert len(answers) == 2 * len(calls) > 0
    for proposal, wire in zip(calls, answers, strict=False):
        answer = rummy_pb2.ValidateMoveResponse.FromString(wire)
        assert answer.legal is proposal.legal
