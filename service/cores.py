"""How many cores this server may keep busy: the default for ``--workers`` and ``--max-solves``.

The affinity mask (``taskset``, a cpuset) names the cores the process may run on, but a
container limited by a CPU quota (``docker run --cpus 2``, a Kubernetes CPU limit) still sees
every core of its host there. Its quota is in the cgroup files, so the count is the mask's
size capped by the quota rounded up: what the JVM and Go's automaxprocs do as well.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = ["cgroup_cpu_quota", "usable_cores"]

CGROUP_MOUNT = Path("/sys/fs/cgroup")
PROC_SELF_CGROUP = Path("/proc/self/cgroup")


def usable_cores() -> int:
    """The cores in this process's affinity mask, at most its cgroup CPU quota rounded up,
    at least 1."""
    cores = len(os.sched_getaffinity(0))
    quota = cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def cgroup_cpu_quota(
    mount: Path = CGROUP_MOUNT, proc_cgroup: Path = PROC_SELF_CGROUP
) -> float | None:
    """The CPU quota, in cores, of this process's cgroup and its ancestors (the smallest
    counts), cgroup v2 (``cpu.max``) or v1 (``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``);
    None when there is none or the files cannot be read."""
    quotas = [
        quota
        for directory in _cpu_cgroup_dirs(mount, proc_cgroup)
        if (quota := _quota_in(directory)) is not None
    ]
    return min(quotas) if quotas else None


def _cpu_cgroup_dirs(mount: Path, proc_cgroup: Path) -> list[Path]:
    """The directories whose CPU limits apply to this process, from its cgroup up to the
    mount's root. Inside a container the mount's root is the container's own cgroup while
    ``/proc/self/cgroup`` may still name the host's path, so the root is always included."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        lines = []
    directories: list[Path] = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        if controllers == "":
            bases = [mount, mount / "unified"]
        elif "cpu" in controllers.split(","):
            bases = [mount / controllers, mount / "cpu", mount / "cpu,cpuacct"]
        else:
            continue
        for base in bases:
            directories.extend(_up_to(base, path))
    for base in (mount, mount / "cpu", mount / "cpu,cpuacct"):
        directories.append(base)
    return list(dict.fromkeys(directories))


def _up_to(base: Path, cgroup_path: str) -> list[Path]:
    """``base/cgroup_path`` and each of its parents up to ``base``."""
    parts = [part for part in cgroup_path.split("/") if part and part != ".."]
    return [base.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]


def _quota_in(directory: Path) -> float | None:
    """The CPU quota set in one cgroup directory, in cores, or None."""
    try:
        fields = (directory / "cpu.max").read_text().split()
        if len(fields) == 2 and fields[0] != "max":
            return _cores(int(fields[0]), int(fields[1]))
        return None
    except (OSError, ValueError):
        pass
    try:
        quota_us = int((directory / "cpu.cfs_quota_us").read_text())
        period_us = int((directory / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return _cores(quota_us, period_us) if quota_us > 0 else None


def _cores(quota_us: int, period_us: int) -> float | None:
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None
