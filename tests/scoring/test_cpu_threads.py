"""The CPU thread count comes from what other processes use now (``/proc/stat`` sampled), not the load average."""

from __future__ import annotations

import time

import pytest

from linguagym.scoring.engine import cpu_load, device
from linguagym.scoring.engine.cpu_load import CpuSample

HEADER = "cpu  900 0 300 4000 10 0 0 0 0 0\n"
TAIL = "intr 123 0 0\nctxt 456\nbtime 1\nprocesses 7\n"


def proc_stat(*cpus: tuple[int, int, int]) -> str:
    """A /proc/stat with one line per CPU: (user, system, idle) jiffies."""
    lines = [f"cpu{n} {user} 5 {system} {idle} 7 1 2 3 0 0" for n, (user, system, idle) in enumerate(cpus)]
    return HEADER + "\n".join(lines) + "\n" + TAIL


def test_sample_sums_the_usable_cpus_only() -> None:
    text = proc_stat((100, 20, 500), (300, 40, 100), (1000, 0, 0))
    taken = cpu_load.sample({0, 1}, read_stat=lambda: text, own_seconds=lambda: 2.5, clock=lambda: 10.0)
    assert taken is not None
    # busy: user + nice + system + irq + softirq + steal; idle and iowait are not busy
    assert taken.busy == (100 + 5 + 20 + 1 + 2 + 3) + (300 + 5 + 40 + 1 + 2 + 3)
    assert taken.total == taken.busy + (500 + 7) + (100 + 7)
    assert (taken.cpus, taken.own, taken.at) == (2, 2.5, 10.0)
    assert cpu_load.sample(None, read_stat=lambda: text).cpus == 3


def test_sample_without_proc_stat_is_none() -> None:
    def missing() -> str:
        raise FileNotFoundError("/proc/stat")

    assert cpu_load.sample(read_stat=missing) is None
    assert cpu_load.sample(read_stat=lambda: HEADER + TAIL) is None  # no per-CPU lines
    assert cpu_load.sample(read_stat=lambda: "cpu0 1 2 x 4\n") is None


def test_busy_elsewhere_subtracts_this_process() -> None:
    # 2 CPUs over 1 s (200 jiffies): 150 busy = 1.5 CPUs, of which this process used 0.5 s
    before = CpuSample(at=0.0, own=1.0, busy=1000, total=5000, cpus=2)
    after = CpuSample(at=1.0, own=1.5, busy=1150, total=5200, cpus=2)
    assert cpu_load.busy_elsewhere(before, after) == pytest.approx(1.0)
    # our own time counted more than the CPUs' busy time (tick rounding): never below zero
    assert cpu_load.busy_elsewhere(before, CpuSample(1.0, 3.0, 1150, 5200, 2)) == 0.0
    assert cpu_load.busy_elsewhere(before, CpuSample(0.0, 1.0, 1000, 5000, 2)) is None  # no interval
    assert cpu_load.busy_elsewhere(before, CpuSample(1.0, 1.0, 1000, 5200, 3)) is None  # other CPUs


class FakeProc:
    """Successive /proc/stat readings of 2 CPUs, each 0.2 s (20 jiffies a CPU) after the last."""

    def __init__(self, busy_per_step: list[int], own_per_step: list[float]) -> None:
        self.busy, self.own = busy_per_step, own_per_step
        self.step = 0
        self.slept: list[float] = []

    def sample(self, cpus: object) -> CpuSample:
        busy = sum(self.busy[: self.step])
        taken = CpuSample(at=0.2 * self.step, own=sum(self.own[: self.step]), busy=busy, total=40 * self.step,
                          cpus=2)
        self.step += 1
        return taken

    def clock(self) -> float:
        return 0.2 * self.step


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LINGUAGYM_THREADS", raising=False)
    monkeypatch.setattr(device, "available_cpus", lambda: 2)
    monkeypatch.setattr(device, "_kept_sample", None)  # a model loaded by an earlier test left its sample


@pytest.mark.parametrize(
    ("busy", "own", "threads"),
    [
        (0, 0.0, 2),  # idle now (whatever the 1-minute load average still remembers): both CPUs
        (40, 0.0, 1),  # another process holds both CPUs: one thread, which waits on no other
        (20, 0.0, 1),  # one CPU busy elsewhere
        (8, 0.0, 2),  # 0.4 CPUs busy elsewhere: less than half a CPU is not taken
        (20, 0.2, 2),  # busy, but with this very process (importing torch): not another's
    ],
)
def test_thread_count_from_what_others_use_now(two_cpus: None, busy: int, own: float, threads: int) -> None:
    fake = FakeProc([busy], [own])
    choice = device.choose_cpu_threads(sample=fake.sample, sleep=fake.slept.append, clock=fake.clock)
    assert choice.threads == threads
    assert "busy with other processes" in choice.reason


def test_an_earlier_sample_spares_the_wait(two_cpus: None) -> None:
    fake = FakeProc([20], [0.0])
    since = fake.sample(None)
    fake.step = 1  # the clock moved on by 0.2 s (torch was imported meanwhile)
    assert device.choose_cpu_threads(since, sample=fake.sample, sleep=fake.slept.append, clock=fake.clock).threads == 1
    assert fake.slept == []
    fresh = FakeProc([0], [0.0])
    device.choose_cpu_threads(sample=fresh.sample, sleep=fresh.slept.append, clock=lambda: 0.05)
    assert fresh.slept == [pytest.approx(cpu_load.SAMPLE_SECONDS - 0.05)]  # no earlier sample: one interval waited


def test_a_stale_sample_is_not_now(two_cpus: None) -> None:
    fake = FakeProc([40, 0], [0.0, 0.0])  # busy long ago, idle now
    stale = CpuSample(at=-cpu_load.MAX_AGE - 1, own=0.0, busy=0, total=0, cpus=2)
    fake.step = 1
    choice = device.choose_cpu_threads(stale, sample=fake.sample, sleep=fake.slept.append, clock=fake.clock)
    assert choice.threads == 2


def test_override_and_unmeasurable(monkeypatch: pytest.MonkeyPatch, two_cpus: None) -> None:
    assert device.choose_cpu_threads(sample=lambda cpus: None).threads == 2  # no /proc/stat: the usable CPUs
    monkeypatch.setenv("LINGUAGYM_THREADS", "3")
    choice = device.choose_cpu_threads(sample=lambda cpus: pytest.fail("not measured when overridden"))
    assert choice == device.ThreadChoice(3, "LINGUAGYM_THREADS=3")


def test_the_kept_sample_is_measured_from(monkeypatch: pytest.MonkeyPatch, two_cpus: None) -> None:
    taken: list[CpuSample] = []
    monkeypatch.setattr(cpu_load, "sample", lambda cpus: taken.append(CpuSample(time.monotonic(), 0.0, 0, 0, 2))
                        or taken[-1])
    device.start_measuring_cpus()
    device.start_measuring_cpus()  # a second call keeps the first sample: the interval starts at the earliest
    assert len(taken) == 1 and device._kept_sample is taken[0]
