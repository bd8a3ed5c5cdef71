"""Where a served call's time goes: py-spy samples a server while bench.load loads it.

Run from the repository root (py-spy comes with the ``dev`` extra, which ``make`` installs)::

    python -m bench.served_profile [--rulesets rummikub] [--mix 0.0] [--clients 16] \
        [--duration 15] [--rate 100] [--top 15] [--workers 1] [--target ADDR@PID] [--gil]

It starts ``carrossel serve --workers N`` from this tree (or samples a running server named
``--target 127.0.0.1:PORT@PID``, e.g. one built from another commit), puts ``bench.load``'s
closed-loop load on it (the same clients, mix and positions), and has py-spy sample every
thread of the server's processes meanwhile (``py-spy record --subprocesses --format raw``).
Samples of a thread that waits (for a call, a solve slot, a lock, the orphan check) are
dropped. ``--gil`` keeps only the samples of the thread holding the GIL: the Python work of
a call, which no other thread of the process can do meanwhile (CP-SAT's search lets the GIL
go, so it is then left out). Of the rest it prints:

- the share of samples by what the sampled thread was running: CP-SAT's solve, OR-Tools'
  model API, the solver's Python, the service's Python, protobuf, grpcio, the rest;
- the top functions by own samples (the frame running) and by inclusive samples (on the
  stack), with each one's share.

Without ``--gil`` a thread waiting to take the GIL back counts as running where it waits:
grpcio's ``_status`` (sending the answer) is mostly that on a busy server (0.12 ms of CPU
in 2.3 ms, measured on 2026-12-05 at 16 clients).

Attaching needs the right to trace the server (root, or ``kernel.yama.ptrace_scope`` 0, or
CAP_SYS_PTRACE); py-spy says so when it is missing. A sampled server runs a little slower:
compare profiles, not the throughput printed beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # ``python bench/served_profile.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import LOOPBACK, _start_server, prepare, report, run_load

WAITING = frozenset(
    {
        "Condition.wait",
        "Event.wait",
        "_worker",  # concurrent.futures: a pool thread waiting for work
        "_serve",  # grpcio's polling thread in its completion queue
        "_stop_when_orphaned",  # service.workers: sleeps between looks at its parent
        "Thread.join",
        "_wait_for_tstate_lock",
        "sleep",
        "select",
        "poll",
    }
)
"""Functions that, running at the top of a sampled stack, mean the thread is waiting."""

PARTS = (
    "CP-SAT solve",
    "OR-Tools model API",
    "solver (Python)",
    "service (Python)",
    "protobuf",
    "grpcio",
    "other",
)


@dataclass(frozen=True)
class Frame:
    """One frame of a sampled stack: its function and its file (as py-spy shortens it)."""

    function: str
    file: str

    @classmethod
    def parse(cls, text: str) -> Frame:
        """``function (path/file.py:line)``, py-spy's raw format."""
        function, _, where = text.rpartition(" (")
        if not function:
            return cls(text, "")
        return cls(function, where.rstrip(")").rsplit(":", 1)[0])

    def label(self) -> str:
        return f"{self.function} ({self.file})"


@dataclass
class Profile:
    """Samples by part, by own function and by inclusive function; waiting ones counted."""

    busy: int = 0
    waiting: int = 0
    parts: Counter[str] = field(default_factory=Counter)
    own: Counter[str] = field(default_factory=Counter)
    inclusive: Counter[str] = field(default_factory=Counter)

    def add(self, stack: Sequence[Frame], count: int) -> None:
        if not stack:
            return
        leaf = stack[-1]
        if leaf.function in WAITING:
            self.waiting += count
            return
        self.busy += count
        self.parts[part_of(leaf)] += count
        self.own[leaf.label()] += count
        for label in {frame.label() for frame in stack}:
            self.inclusive[label] += count


def part_of(leaf: Frame) -> str:
    """Which part of the server a sampled thread was running (``PARTS``)."""
    path = leaf.file
    if path.startswith("ortools/"):
        return "CP-SAT solve" if leaf.function == "CpSolver.solve" else "OR-Tools model API"
    if path.startswith("solver/"):
        return "solver (Python)"
    if path.startswith("service/"):
        return "service (Python)"
    if path.startswith(("google/protobuf", "carrossel/v1")):
        return "protobuf"
    if path.startswith("grpc/"):
        return "grpcio"
    return "other"


def read_raw(lines: Iterable[str]) -> Profile:
    """py-spy's raw output: a stack (frames joined by ';', root first) and its count a line;
    with ``--subprocesses`` the root frame names the process, which is dropped."""
    profile = Profile()
    for line in lines:
        line = line.rstrip()
        if not line:
            continue
        stack_text, _, count = line.rpartition(" ")
        frames = [f for f in stack_text.split(";") if not f.startswith("process ")]
        profile.add([Frame.parse(f) for f in frames], int(count))
    return profile


def lines_of(profile: Profile, top: int) -> list[str]:
    """The report: shares by part, then the top functions by own and inclusive samples."""
    busy = max(profile.busy, 1)
    out = [
        f"{profile.busy} samples of running threads ({profile.waiting} of waiting ones dropped)",
        "share by part (the function running):",
    ]
    out += [f"  {part:<20} {100 * profile.parts[part] / busy:5.1f}%" for part in PARTS]
    out.append(f"top {top} functions by own samples:")
    out += [f"  {100 * n / busy:5.1f}%  {label}" for label, n in profile.own.most_common(top)]
    out.append(f"top {top} functions by inclusive samples:")
    out += [f"  {100 * n / busy:5.1f}%  {label}" for label, n in profile.inclusive.most_common(top)]
    return out


def py_spy() -> str:
    """The py-spy next to this Python (the venv's), else one on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is not installed: make install (the dev extra) brings it")
    return found


def sample(pid: int, seconds: float, rate: int, out: Path, gil: bool) -> subprocess.Popen[bytes]:
    """Start py-spy on ``pid`` and its children for ``seconds``; it writes ``out``."""
    command = [py_spy(), "record", "--pid", str(pid), "--subprocesses", "--nonblocking"]
    if gil:
        command.append("--gil")
    command += ["--duration", str(max(1, round(seconds))), "--rate", str(rate)]
    command += ["--format", "raw", "--output", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", help="host:port@PID of a running server (loopback only)")
    parser.add_argument("--workers", type=int, default=1, help="the server's --workers")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=15.0, help="seconds sampled")
    parser.add_argument("--mix", type=float, default=0.6, help="share of ValidateMove calls")
    parser.add_argument("--rulesets", default="carrossel,rummikub")
    parser.add_argument("--n", type=int, default=40, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=int, default=100, help="samples per second")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--gil", action="store_true", help="only the thread holding the GIL")
    args = parser.parse_args(argv)
    target, _, pid_text = (args.target or "").partition("@")
    if args.target and (not pid_text or not target.startswith(LOOPBACK)):
        parser.error("--target is 127.0.0.1:PORT@PID (the server's process, to sample it)")
    calls = prepare(args.rulesets.split(","), "mid", args.n, args.seed, 2000)
    server = None
    if not target:
        server, target = _start_server(args.workers, None)
        pid = server.pid
    else:
        pid = int(pid_text)
    print(
        f"bench.served_profile: {target}, {args.clients} clients, mix {args.mix}, "
        f"mid positions of {args.rulesets}, {args.duration:.0f} s at {args.rate} samples/s"
        + (", the GIL's holder only" if args.gil else ", every thread")
    )
    try:
        with tempfile.TemporaryDirectory() as scratch:
            raw = Path(scratch) / "raw.txt"
            spy = sample(pid, args.duration, args.rate, raw, args.gil)
            tally, elapsed = asyncio.run(
                run_load(target, calls, args.clients, args.duration, args.mix, args.seed, 10.0)
            )
            _, errors = spy.communicate(timeout=60)
            if spy.returncode != 0 or not raw.exists():
                print(errors.decode(errors="replace").strip(), file=sys.stderr)
                return 1
            profile = read_raw(raw.read_text().splitlines())
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    print(*report(tally, elapsed, args.clients), sep="\n")
    print(*lines_of(profile, args.top), sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
