"""The default worker and solve counts follow the cores the server may keep busy: its
affinity mask capped by a cgroup CPU quota (docs/deploy.md, ``--workers``). SPEC §5 bounds
concurrent solves; by default the bound is one solve per usable core."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import cores, limits, workers


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_cgroup_v2_quota_of_the_process_cgroup(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "0::/kubepods/pod1/ctr\n")
    write(tmp_path / "fs/kubepods/pod1/ctr/cpu.max", "150000 100000\n")
    write(tmp_path / "fs/kubepods/cpu.max", "max 100000\n")
    assert cores.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc_cgroup") == 1.5


def test_an_ancestor_cgroup_limit_applies_too(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "0::/a/b\n")
    write(tmp_path / "fs/a/b/cpu.max", "400000 100000\n")
    write(tmp_path / "fs/a/cpu.max", "200000 100000\n")
    assert cores.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc_cgroup") == 2.0


def test_inside_a_container_the_mount_root_is_its_own_cgroup(tmp_path: Path) -> None:
    """/proc/self/cgroup names the host's path, which the container's mount does not have."""
    write(tmp_path / "proc_cgroup", "0::/system.slice/docker-abc.scope\n")
    write(tmp_path / "fs/cpu.max", "300000 100000\n")
    assert cores.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc_cgroup") == 3.0


def test_cgroup_v1_quota(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n")
    write(tmp_path / "fs/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "50000\n")
    write(tmp_path / "fs/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n")
    assert cores.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc_cgroup") == 0.5


@pytest.mark.parametrize(
    "files",
    [
        {"fs/cpu.max": "max 100000\n"},
        {"fs/cpu/cpu.cfs_quota_us": "-1\n", "fs/cpu/cpu.cfs_period_us": "100000\n"},
        {"fs/cpu.max": "garbage\n"},
        {},
    ],
)
def test_no_quota(tmp_path: Path, files: dict[str, str]) -> None:
    write(tmp_path / "proc_cgroup", "1:cpu:/\n0::/\nnot a cgroup line\n")
    for name, text in files.items():
        write(tmp_path / name, text)
    assert cores.cgroup_cpu_quota(tmp_path / "fs", tmp_path / "proc_cgroup") is None


@pytest.mark.parametrize(
    ("mask", "quota", "usable"), [(8, None, 8), (8, 2.0, 2), (8, 1.5, 2), (2, 4.0, 2), (8, 0.2, 1)]
)
def test_defaults_follow_the_mask_capped_by_the_quota(
    monkeypatch: pytest.MonkeyPatch, mask: int, quota: float | None, usable: int
) -> None:
    monkeypatch.setattr("service.cores.os.sched_getaffinity", lambda pid: set(range(mask)))
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: quota)
    assert cores.usable_cores() == usable
    assert workers.default_workers() == usable
    assert limits.default_concurrent_solves(usable) == 1


def test_this_machine_has_at_least_one_usable_core() -> None:
    assert cores.usable_cores() >= 1
