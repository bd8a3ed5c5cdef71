"""Issue 52: what can be checked of the deployment without a cluster or a Docker engine.

- The Kubernetes manifests parse, pass the Kubernetes schemas (``kubernetes-validate``,
  strict, offline) and carry what docs/deploy.md promises: gRPC probes, a non-root pod,
  resource requests, a headless Service selecting the Deployment's pods, an autoscaler on
  CPU and an Envoy front that balances per call.
- The Dockerfile passes ``hadolint``, runs as a non-root user with the gRPC health probe,
  and its command line is one ``carrossel serve`` accepts.
- Two ``carrossel serve`` processes behind one client channel with ``round_robin`` both get
  calls, and one of them stopping gracefully (SIGTERM) fails no call.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from bench import over_grpc
from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc
from service.cli import build_parser
from tests.conftest import REPO

yaml = pytest.importorskip("yaml", reason="PyYAML (a dev dependency) reads the manifests")

K8S = REPO / "deploy" / "kubernetes"
RESOURCES = sorted(
    p for p in K8S.rglob("*.yaml") if p.name not in ("kustomization.yaml", "envoy.yaml")
)


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _by_kind() -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for path in RESOURCES:
        for doc in _docs(path):
            found[doc["kind"], doc["metadata"]["name"]] = doc
    return found


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    if not path.exists():
        pytest.skip(f"{name} (a dev dependency) is not installed")
    return str(path)


def test_every_kustomization_lists_files_that_exist() -> None:
    for kustomization in K8S.rglob("kustomization.yaml"):
        (doc,) = _docs(kustomization)
        listed = doc.get("resources", []) + [
            f for gen in doc.get("configMapGenerator", []) for f in gen.get("files", [])
        ]
        assert listed
        for name in listed:
            assert (kustomization.parent / name).is_file(), f"{kustomization}: {name}"


def test_the_manifests_pass_the_kubernetes_schemas() -> None:
    done = subprocess.run(
        [_tool("kubernetes-validate"), "--strict", "-k", "1.29.0", *map(str, RESOURCES)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_deployment_probes_health_over_grpc_and_runs_unprivileged() -> None:
    kinds = _by_kind()
    deployment = kinds["Deployment", "carrossel"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == ports["grpc"], probe
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])
    assert "memory" in container["resources"]["limits"]
    # The arguments are ones `carrossel serve` accepts, and they match the ports.
    args = build_parser().parse_args(["serve", *container["args"]])
    assert (args.port, args.metrics_port) == (ports["grpc"], ports["metrics"])
    assert args.host == "0.0.0.0"
    grace = pod["terminationGracePeriodSeconds"]
    assert grace > 5 + 5  # preStop's sleep and the server's own 5 s grace


def test_the_headless_service_and_the_autoscaler_point_at_the_deployment() -> None:
    kinds = _by_kind()
    deployment = kinds["Deployment", "carrossel"]
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    headless = kinds["Service", "carrossel-headless"]["spec"]
    assert headless["clusterIP"] == "None"
    assert headless["selector"].items() <= pod_labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    (grpc_port,) = [p for p in headless["ports"] if p["name"] == "grpc"]
    assert grpc_port["appProtocol"] == "kubernetes.io/h2c"
    hpa = kinds["HorizontalPodAutoscaler", "carrossel"]["spec"]
    assert hpa["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "carrossel",
    }
    assert hpa["minReplicas"] >= 2
    (metric,) = hpa["metrics"]
    assert metric["resource"]["name"] == "cpu"
    pdb = kinds["PodDisruptionBudget", "carrossel"]["spec"]
    assert pdb["selector"]["matchLabels"].items() <= pod_labels.items()


def test_envoy_balances_each_call_over_the_headless_service() -> None:
    (config,) = _docs(K8S / "envoy" / "envoy.yaml")
    (cluster,) = config["static_resources"]["clusters"]
    address = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"][
        "socket_address"
    ]
    kinds = _by_kind()
    headless = kinds["Service", "carrossel-headless"]
    (grpc_port,) = [p for p in headless["spec"]["ports"] if p["name"] == "grpc"]
    assert (address["address"], address["port_value"]) == ("carrossel-headless", grpc_port["port"])
    assert cluster["type"] == "STRICT_DNS"  # every pod's address, refreshed
    options = cluster["typed_extension_protocol_options"][
        "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
    ]
    assert "http2_protocol_options" in options["explicit_http_config"]
    assert "grpc_health_check" in cluster["health_checks"][0]
    front = kinds["Service", "carrossel"]["spec"]
    envoy = kinds["Deployment", "carrossel-envoy"]["spec"]["template"]
    assert front["selector"].items() <= envoy["metadata"]["labels"].items()
    listener = config["static_resources"]["listeners"][0]
    (envoy_port,) = envoy["spec"]["containers"][0]["ports"]
    assert listener["address"]["socket_address"]["port_value"] == envoy_port["containerPort"]


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of the Dockerfile, continuation lines joined."""
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(
        [_tool("hadolint"), str(REPO / "Dockerfile")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_image_runs_carrossel_serve_as_a_non_root_user_with_the_probe() -> None:
    steps = _dockerfile()
    final = steps[max(i for i, (op, _) in enumerate(steps) if op == "FROM") :]
    ops = dict(final)
    assert ops["FROM"].startswith("python:") and "slim" in ops["FROM"]
    assert ops["USER"].split(":")[0] not in ("root", "0")
    assert "grpc_health_probe" in ops["HEALTHCHECK"]
    entry = json.loads(ops["ENTRYPOINT"]) + json.loads(ops["CMD"])
    assert entry[:2] == ["carrossel", "serve"]
    args = build_parser().parse_args(entry[1:])
    assert args.host == "0.0.0.0" and args.port == 50051
    assert str(args.port) in ops["EXPOSE"].split()
    ignored = (REPO / ".dockerignore").read_text().splitlines()
    for op, arguments in final + steps:
        if op == "COPY" and "--from" not in arguments:
            for source in shlex.split(arguments)[:-1]:
                assert f"!{source.rstrip('/')}/" in ignored or f"!{source}" in ignored, source


# --- two replicas behind a round_robin client ---------------------------------------------


class Replica:
    """``carrossel serve`` in a process of its own; its log goes to a file."""

    def __init__(self, log: Path) -> None:
        self.port = over_grpc.free_port()
        self.log = log
        self._log_file = log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=self._log_file,
            cwd=REPO,
        )

    def calls(self, method: str) -> int:
        """Calls to ``method`` this replica logged."""
        return self.log.read_text().count(f'"method": "{method}"')

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self._log_file.close()


@pytest.fixture
def two_replicas(tmp_path: Path) -> Iterator[tuple[Replica, Replica]]:
    replicas = (Replica(tmp_path / "a.log"), Replica(tmp_path / "b.log"))
    try:
        for replica in replicas:
            with grpc.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                over_grpc.wait_serving(channel, replica.process)
        yield replicas
    finally:
        for replica in replicas:
            replica.close()


# Client-side balancing as docs/deploy.md configures it: round_robin over every address,
# skipping a replica whose health is not SERVING (it is shutting down).
ROUND_ROBIN = json.dumps(
    {"loadBalancingConfig": [{"round_robin": {}}], "healthCheckConfig": {"serviceName": ""}}
)
LIST = "/carrossel.v1.RulesetService/ListRulesets"


def test_round_robin_reaches_both_replicas_and_survives_a_graceful_stop(
    two_replicas: tuple[Replica, Replica],
) -> None:
    first, second = two_replicas
    target = f"ipv4:127.0.0.1:{first.port},127.0.0.1:{second.port}"
    options = [("grpc.service_config", ROUND_ROBIN), ("grpc.enable_retries", 1)]
    failures: list[str] = []
    answered = 0
    stop = threading.Event()
    with grpc.insecure_channel(target, options=options) as channel:
        stub = rulesets_pb2_grpc.RulesetServiceStub(channel)

        def client() -> None:
            nonlocal answered
            while not stop.is_set():
                try:
                    stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=10)
                    answered += 1
                except grpc.RpcError as error:
                    failures.append(f"{error.code().name}: {error.details()}")

        clients = [threading.Thread(target=client) for _ in range(4)]
        for thread in clients:
            thread.start()
        time.sleep(2.0)
        # SIGTERM: health NOT_SERVING, no new calls accepted, in-flight ones finish.
        first.process.send_signal(signal.SIGTERM)
        assert first.process.wait(timeout=30) == 0
        served_before_stop = answered
        time.sleep(1.5)
        stop.set()
        for thread in clients:
            thread.join(timeout=30)
    assert failures == []
    assert answered > served_before_stop  # calls went on, on the replica left
    assert first.calls(LIST) > 0 and second.calls(LIST) > 0
