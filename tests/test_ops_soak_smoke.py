"""Issue 52: a few seconds of ``bench/soak.py``'s mixed load, hostile requests among it, end
with no unexpected status (the 60 s soak is a bench run, docs/deploy.md)."""

from __future__ import annotations

from bench import soak


def test_a_short_soak_meets_only_expected_statuses(server_port: int) -> None:
    assert soak.soak(f"127.0.0.1:{server_port}", None, seconds=3.0, clients=3, seed=1) == 0
