"""The HTTP front (``carrossel serve --http-port``) without a browser: the Connect JSON API
answers as the gRPC server does, errors follow Connect's format, and only the shipped files
are served (docs/referee-page.md)."""

from __future__ import annotations

import base64
import http.client
import json
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2

from carrossel.v1 import rulesets_pb2, rummy_pb2
from service import limits
from service.web.connect import Forwarder
from service.web.front import WebFront, grpc_target, start_front
from solver.core import registry
from solver.core.rulesets import RULESETS

RUMMY = "/carrossel.v1.RummyService"

# The page's example dispute: the 5 makes the joker a 6 although it stood for 9 (R5), and
# the queen of clubs leaves the table (R6), leaving a two-card meld (R2/R3).
DISPUTE: dict[str, Any] = {
    "position": {
        "ruleset": "carrossel",
        "players": 2,
        "table": [{"cards": ["7H", "8S", "JK=9"]}, {"cards": ["QS", "QD", "QC"]}],
        "hand": ["5C", "9D", "KS"],
        "turn": {"cardsDrawn": 1},
    },
    "move": {"table": [{"cards": ["5C", "JK", "7H", "8S"]}, {"cards": ["QS", "QD"]}]},
}


@pytest.fixture(scope="module")
def front(server_port: int) -> Iterator[WebFront]:
    started = start_front("127.0.0.1", 0, server_port)
    yield started
    started.stop()


def request(
    front: WebFront,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", front.port, timeout=30)
    connection.request(method, path, body=body, headers=headers or {})
    return connection.getresponse()


def post_json(front: WebFront, path: str, message: Any) -> tuple[int, dict[str, Any]]:
    response = request(
        front, "POST", path, json.dumps(message).encode(), {"Content-Type": "application/json"}
    )
    answer: dict[str, Any] = json.loads(response.read())
    return response.status, answer


# --- calls -------------------------------------------------------------------------------


def test_list_rulesets_has_the_version_and_the_served_rpcs(front: WebFront) -> None:
    status, answer = post_json(front, "/carrossel.v1.RulesetService/ListRulesets", {})
    assert status == 200
    assert answer["version"] == metadata.version("carrossel")
    served = {r["id"]: r.get("servedRpcs", []) for r in answer["rulesets"]}
    assert served == {
        ruleset_id: [rpc.value for rpc in registry.served_rpcs(ruleset)]
        for ruleset_id, ruleset in RULESETS.items()
    }


def test_a_dispute_gets_the_grpc_answer_with_every_violation(
    front: WebFront, rummy_stub: Any
) -> None:
    status, answer = post_json(front, f"{RUMMY}/ValidateMove", DISPUTE)
    assert status == 200
    assert "legal" not in answer  # proto3 JSON leaves out false
    assert "Q♣ was on the table before" in answer["violations"][0]["message"]
    assert {v["code"] for v in answer["violations"]} == {
        "VIOLATION_CODE_WILD_VALUE_CHANGED",
        "VIOLATION_CODE_TABLE_CARD_REMOVED",
        "VIOLATION_CODE_INVALID_MELD",
    }
    # The same servicer answered: the gRPC call's answer, in the JSON mapping, is identical.
    direct = rummy_stub.ValidateMove(
        json_format.ParseDict(DISPUTE, rummy_pb2.ValidateMoveRequest()), timeout=10
    )
    assert answer == json_format.MessageToDict(direct)


def test_suggest_passes_through_to_the_nearest_legal_move(front: WebFront, rummy_stub: Any) -> None:
    # R5's seed with a group of 9s (issue #53): the nearest legal play keeps the group (the
    # proposal's meld 1). The page sends "suggest" and reads the answer's camelCase names.
    seed = {
        "position": {
            "ruleset": "carrossel",
            "players": 2,
            "table": [{"cards": ["7H", "8S", "JK=9"]}],
            "hand": ["5C", "9D", "9C", "9H"],
            "turn": {"cardsDrawn": 1},
        },
        "move": {"table": [{"cards": ["5C", "JK=6", "7H", "8S"]}, {"cards": ["9D", "9C", "9H"]}]},
        "suggest": True,
    }
    status, answer = post_json(front, f"{RUMMY}/ValidateMove", seed)
    assert status == 200
    assert answer["nearestKeptMelds"] == [1]
    assert sorted(answer["nearestLegal"]["played"]) == ["9C", "9D", "9H"]
    assert answer["suggestionOptimal"] is True
    assert "3 of the proposal's 4 hand cards" in answer["suggestionNote"]
    assert "nearestSameCards" not in answer  # false, left out
    direct = rummy_stub.ValidateMove(
        json_format.ParseDict(seed, rummy_pb2.ValidateMoveRequest()), timeout=30
    )
    assert answer == json_format.MessageToDict(direct)
    # Without it, the answer has no suggestion at all.
    _, plain = post_json(front, f"{RUMMY}/ValidateMove", {**seed, "suggest": False})
    assert not {"nearestLegal", "nearestKeptMelds", "suggestionNote"} & set(plain)


def test_the_hint_is_solve_move_s_best_move(front: WebFront) -> None:
    hint = {"position": DISPUTE["position"], "maxMoves": 1}
    status, answer = post_json(front, f"{RUMMY}/SolveMove", hint)
    assert status == 200
    best = answer["moves"][0]
    assert sorted(best["played"]) == ["5C", "9D"]
    assert {"cards": ["5C", "JK=6", "7H", "8S", "9D"]} in best["move"]["table"]
    assert answer["stats"]["status"] == "OPTIMAL"


def test_binary_protobuf_bodies_work_too(front: WebFront) -> None:
    message = json_format.ParseDict(DISPUTE, rummy_pb2.ValidateMoveRequest())
    response = request(
        front,
        "POST",
        f"{RUMMY}/ValidateMove",
        message.SerializeToString(),
        {"Content-Type": "application/proto"},
    )
    assert response.status == 200
    assert response.getheader("Content-Type") == "application/proto"
    answer = rummy_pb2.ValidateMoveResponse.FromString(response.read())
    assert not answer.legal and len(answer.violations) == 3


# --- errors in Connect's format ----------------------------------------------------------


def test_an_unknown_ruleset_is_invalid_argument_with_its_bad_request(front: WebFront) -> None:
    bad = {"position": {**DISPUTE["position"], "ruleset": "canasta"}, "move": DISPUTE["move"]}
    status, answer = post_json(front, f"{RUMMY}/ValidateMove", bad)
    assert status == 400
    assert answer["code"] == "invalid_argument"
    assert f"(known rulesets: {', '.join(RULESETS)})" in answer["message"]
    [detail] = answer["details"]
    assert detail["type"] == "google.rpc.BadRequest"
    # "value" is the message's bytes in unpadded base64, "debug" the same message as JSON.
    raw = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    decoded = error_details_pb2.BadRequest.FromString(raw)
    assert json_format.MessageToDict(decoded) == detail["debug"]
    [violation] = detail["debug"]["fieldViolations"]
    assert violation["field"] == "position.ruleset"


def test_an_rpc_refused_for_the_ruleset_is_invalid_argument(front: WebFront) -> None:
    # Carioca has no knock (C6; R10 is carrossel's): the registry refuses CheckKnock.
    carioca = {"position": {"ruleset": "carioca", "players": 3, "turn": {"dealNumber": 1}}}
    status, answer = post_json(front, f"{RUMMY}/CheckKnock", carioca)
    assert (status, answer["code"]) == (400, "invalid_argument")
    assert "carioca has no knock" in answer["message"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"{not json", "not a valid message"),
        (b'{"position": {"rulset": "carrossel"}}', "rulset"),  # unknown fields are refused
        (b'{"maxMoves": "many"}', "maxMoves"),
        (b"[" * 200_000, "not a valid message"),
        (b"\xff\xfe", "not a valid message"),
        (b'{"\\ud800": 1}', "not a valid message"),  # a lone surrogate: refused, not a 500
    ],
)
def test_a_body_that_is_no_message_is_invalid_argument(
    front: WebFront, body: bytes, says: str
) -> None:
    response = request(
        front, "POST", f"{RUMMY}/SolveMove", body, {"Content-Type": "application/json"}
    )
    answer = json.loads(response.read())
    assert (response.status, answer["code"]) == (400, "invalid_argument")
    assert says in answer["message"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"objective": "X" * 1_000_000}, "Invalid enum value XXX"),  # the parser quotes it
        ({"X" * 1_000_000: 1}, "has no field named"),
    ],
)
def test_a_long_value_is_not_quoted_back_whole(
    front: WebFront, body: dict[str, Any], says: str
) -> None:
    response = request(
        front,
        "POST",
        f"{RUMMY}/SolveMove",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    answer = json.loads(response.read())
    assert (response.status, answer["code"]) == (400, "invalid_argument")
    assert says in answer["message"]
    assert len(answer["message"]) == 500 and answer["message"].endswith("...")


def test_a_failure_in_the_front_is_internal_and_the_front_keeps_serving(
    front: WebFront, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("a bug")

    with monkeypatch.context() as patch:
        patch.setattr(Forwarder, "call", broken)
        status, answer = post_json(front, f"{RUMMY}/ValidateMove", DISPUTE)
    assert (status, answer["code"]) == (500, "internal")
    assert "bug in carrossel" in answer["message"]
    assert post_json(front, f"{RUMMY}/ValidateMove", DISPUTE)[0] == 200


def test_an_unknown_method_is_404_unimplemented(front: WebFront) -> None:
    for path in (f"{RUMMY}/DeleteEverything", "/carrossel.v1.Nope/ValidateMove", "/"):
        status, answer = post_json(front, path, {})
        assert (status, answer["code"]) == (404, "unimplemented")


def test_a_refused_call_leaves_the_kept_alive_connection_usable(front: WebFront) -> None:
    # Each refusal reads its body: the next request on the connection is answered as itself.
    connection = http.client.HTTPConnection("127.0.0.1", front.port, timeout=30)
    refusals = [
        (f"{RUMMY}/DeleteEverything", "application/json", 404),
        (f"{RUMMY}/SolveMove", "text/plain", 415),
        (f"{RUMMY}/SolveMove", "application/json", 400),
    ]
    for path, content_type, status in refusals:
        connection.request("POST", path, b'{"x": 1}', {"Content-Type": content_type})
        response = connection.getresponse()
        assert response.status == status
        response.read()
        assert response.getheader("Connection") is None  # kept alive
    connection.request(
        "POST",
        "/carrossel.v1.RulesetService/ListRulesets",
        b"{}",
        {"Content-Type": "application/json"},
    )
    response = connection.getresponse()
    assert response.status == 200 and json.loads(response.read())["version"]


def test_kept_alive_calls_wait_for_no_delayed_ack(front: WebFront) -> None:
    # With the headers and the body in two writes and Nagle on, every answer on a kept-alive
    # connection waited ~40 ms for the client's delayed ACK (measured: 47 ms per call, against
    # 1.2 ms now). A refused call is the cheapest round trip through the front and the server.
    connection = http.client.HTTPConnection("127.0.0.1", front.port, timeout=30)
    times = []
    for _ in range(11):
        start = time.perf_counter()
        connection.request(
            "POST", f"{RUMMY}/SolveMove", b"{}", {"Content-Type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        assert response.status == 400
    assert sorted(times)[5] < 0.025, times


def test_a_content_type_that_is_not_connect_s_is_415(front: WebFront) -> None:
    response = request(front, "POST", f"{RUMMY}/SolveMove", b"{}", {"Content-Type": "text/plain"})
    assert response.status == 415
    assert json.loads(response.read())["code"] == "invalid_argument"


def test_a_compressed_body_is_unimplemented(front: WebFront) -> None:
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    response = request(front, "POST", f"{RUMMY}/SolveMove", b"{}", headers)
    assert (response.status, json.loads(response.read())["code"]) == (501, "unimplemented")


@pytest.mark.parametrize("timeout", ["soon", "-5", "12345678901", "1.5"])
def test_a_bad_connect_timeout_is_invalid_argument(front: WebFront, timeout: str) -> None:
    headers = {"Content-Type": "application/json", "Connect-Timeout-Ms": timeout}
    response = request(front, "POST", "/carrossel.v1.RulesetService/ListRulesets", b"{}", headers)
    assert (response.status, json.loads(response.read())["code"]) == (400, "invalid_argument")


def test_a_tiny_connect_timeout_is_deadline_exceeded(front: WebFront) -> None:
    headers = {"Content-Type": "application/json", "Connect-Timeout-Ms": "0"}
    response = request(
        front,
        "POST",
        f"{RUMMY}/SolveMove",
        json.dumps({"position": DISPUTE["position"]}).encode(),
        headers,
    )
    assert (response.status, json.loads(response.read())["code"]) == (504, "deadline_exceeded")


def test_a_body_over_the_message_bound_is_refused_unread(front: WebFront) -> None:
    # Only the headers are sent: the front answers from the Content-Length alone and closes.
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as sock:
        sock.sendall(
            f"POST {RUMMY}/SolveMove HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {limits.MAX_MESSAGE_BYTES + 1}\r\n\r\n".encode()
        )
        reply = _read_all(sock)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 429")
    assert b"\r\nConnection: close" in head
    assert json.loads(body)["code"] == "resource_exhausted"


def test_a_body_shorter_than_its_length_is_answered_and_closed(front: WebFront) -> None:
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as sock:
        sock.sendall(
            f"POST {RUMMY}/SolveMove HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n{}".encode()
        )
        sock.shutdown(socket.SHUT_WR)
        reply = _read_all(sock)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 499")
    assert json.loads(body)["code"] == "canceled"


def test_a_body_without_a_length_is_411(front: WebFront) -> None:
    with socket.create_connection(("127.0.0.1", front.port), timeout=10) as sock:
        sock.sendall(
            f"POST {RUMMY}/SolveMove HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".encode()
        )
        reply = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 411")


def _read_all(sock: socket.socket) -> bytes:
    """Everything the front sends until it closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


# --- the shipped files, and nothing else -------------------------------------------------


@pytest.mark.parametrize(
    ("path", "content_type", "holds"),
    [
        ("/", "text/html; charset=utf-8", b'<script src="/referee.js"'),
        ("/?ruleset=carrossel", "text/html; charset=utf-8", b'<select id="ruleset">'),
        ("/referee.js", "text/javascript; charset=utf-8", b"ValidateMove"),
        ("/referee.css", "text/css; charset=utf-8", b".card.red"),
        ("/favicon.svg", "image/svg+xml", b"<svg"),
    ],
)
def test_the_page_s_files(front: WebFront, path: str, content_type: str, holds: bytes) -> None:
    response = request(front, "GET", path)
    body = response.read()
    assert response.status == 200
    assert response.getheader("Content-Type") == content_type
    assert holds in body
    assert "script-src 'self'" in response.getheader("Content-Security-Policy", "")
    assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_head_sends_the_headers_only(front: WebFront) -> None:
    response = request(front, "HEAD", "/referee.js")
    assert response.status == 200
    assert int(response.getheader("Content-Length", "0")) > 1000
    assert response.read() == b""


@pytest.mark.parametrize(
    "path",
    [
        "/index.html",  # the page is "/" only: no name in the URL is a file name
        "/static/referee.js",
        "/../pyproject.toml",
        "/..%2f..%2fpyproject.toml",
        "/%2e%2e/%2e%2e/service/web/front.py",
        "/referee.js/../front.py",
        "//etc/passwd",
        "/front.py",
        "/__init__.py",
        "/carrossel.v1.RummyService/ValidateMove",  # calls are POSTs
    ],
)
def test_nothing_else_is_served(front: WebFront, path: str) -> None:
    response = request(front, "GET", path)
    assert response.status == 404
    assert response.read() == b"not found\n"


# --- the wiring --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "target"),
    [
        ("127.0.0.1", "127.0.0.1:50051"),
        ("0.0.0.0", "127.0.0.1:50051"),
        ("::", "[::1]:50051"),
        ("::1", "[::1]:50051"),
        ("localhost", "localhost:50051"),
    ],
)
def test_the_front_reaches_the_grpc_server_on_its_own_host(host: str, target: str) -> None:
    assert grpc_target(host, 50051) == target


def test_serve_http_port_serves_the_page_until_sigterm() -> None:
    grpc_port, http_port = _free_port(), _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.cli",
            "serve",
            "--port",
            str(grpc_port),
            "--http-port",
            str(http_port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        body = _get_when_up(http_port, "/carrossel.v1.RulesetService/ListRulesets", process)
        assert json.loads(body)["version"] == metadata.version("carrossel")
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stderr
    assert f"referee's page on http://127.0.0.1:{http_port}/" in stderr


def test_serve_says_when_the_http_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        http_port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "service.cli",
                "serve",
                "--port",
                str(_free_port()),
                "--http-port",
                str(http_port),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert result.returncode == 2
    assert f"cannot serve the page on 127.0.0.1 port {http_port}" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _get_when_up(port: int, path: str, process: subprocess.Popen[str]) -> bytes:
    """POST ``{}`` to ``path`` once the server answers (at most 20 s)."""
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, process.communicate()[1]
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("POST", path, b"{}", {"Content-Type": "application/json"})
            response = connection.getresponse()
            if response.status == 200:
                return response.read()
        except OSError:
            pass
        assert time.monotonic() < deadline, "the page never came up"
        time.sleep(0.2)


def test_the_proto_json_of_ruleset_names_the_new_fields() -> None:
    # The page reads these JSON names; a rename in the proto must show up here first.
    names = {f.json_name for f in rulesets_pb2.Ruleset.DESCRIPTOR.fields}
    assert "servedRpcs" in names
    assert "version" in {f.json_name for f in rulesets_pb2.ListRulesetsResponse.DESCRIPTOR.fields}
    # And the suggestion's, read under an illegal verdict (issue #53).
    validated = {f.json_name for f in rummy_pb2.ValidateMoveResponse.DESCRIPTOR.fields}
    assert {
        "nearestLegal",
        "nearestKeptMelds",
        "nearestSameCards",
        "suggestionOptimal",
        "suggestionNote",
    } <= validated
    assert "suggest" in {f.json_name for f in rummy_pb2.ValidateMoveRequest.DESCRIPTOR.fields}


# --- docs/referee-page.md's curl examples work as pasted ---------------------------------

DOC = (Path(__file__).resolve().parent.parent / "docs" / "referee-page.md").read_text()


def doc_examples() -> list[tuple[str, str]]:
    """Each ``sh`` block that runs curl, with the block shown after it (its answer)."""
    pairs = re.findall(r"```sh\n(curl .*?)```\n\n```(?:json)?\n(.*?)```", DOC, flags=re.DOTALL)
    assert len(pairs) == 4
    return pairs


def run_curl(command: str, port: int) -> tuple[int, dict[str, Any]]:
    """The curl command sent as curl would send it (no curl binary needed): URL, -H, -d."""
    args = shlex.split(command.replace("127.0.0.1:8080", f"127.0.0.1:{port}"))
    assert args[0] == "curl"
    url = next(a for a in args if a.startswith("http://"))
    headers = dict(args[i + 1].split(": ", 1) for i, a in enumerate(args) if a == "-H")
    body = args[args.index("-d") + 1].encode()
    path = url.split(f"127.0.0.1:{port}", 1)[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, body, headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_the_doc_s_curl_examples_answer_as_shown(front: WebFront) -> None:
    (judge, judged), (suggest, suggested), (hint, hinted), (error, refused) = doc_examples()
    status, answer = run_curl(judge, front.port)
    assert status == 200
    assert answer == json.loads(judged)
    status, answer = run_curl(suggest, front.port)
    assert status == 200
    assert answer == json.loads(suggested)
    status, answer = run_curl(hint, front.port)
    assert status == 200
    assert answer["moves"] == json.loads(hinted)["moves"]  # the stats vary from run to run
    status, answer = run_curl(error, front.port)
    assert refused.startswith(f"HTTP/1.1 {status} ")
    shown = json.loads(refused.rsplit("\n", 2)[-2])
    assert answer["code"] == shown["code"] and answer["message"] == shown["message"]
