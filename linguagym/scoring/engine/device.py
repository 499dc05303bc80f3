"""Choosing the device, the dtype and the CPU thread count.

``probe_device`` answers without importing torch, so that a scorer's identity (and so a cache lookup) never
needs torch; ``torch_device`` checks the answer against torch when a model is actually loaded.
"""

from __future__ import annotations

import logging
import math
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.scoring.engine import cpu_load

log = logging.getLogger(__name__)

DTYPES = ("float32", "bfloat16", "float16", "bfloat16-mixed")
# Mixed precision (PyTorch Lightning's "bf16-mixed"): the weights stay float32 and torch.autocast runs the matrix
# multiplications in the named dtype; norms, softmax, the residual stream and linguagym's vocabulary projection and
# normaliser stay float32. On a CPU with bfloat16 instructions it is faster than bfloat16 weights and closer to
# float32 (docs/performance.md, "dtype").
MIXED = {"bfloat16-mixed": "bfloat16"}
CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # /proc/cpuinfo flags of CPUs that multiply bfloat16 natively


def autocast(dtype: str, device: Any) -> Any:
    """The context the forward passes of a model loaded for ``dtype`` run in: torch.autocast for a mixed dtype,
    else nothing."""
    import contextlib

    if dtype not in MIXED:
        return contextlib.nullcontext()
    import torch

    return torch.autocast(device.type, dtype=getattr(torch, MIXED[dtype]))


def cpu_multiplies_bfloat16() -> bool | None:
    """Whether this CPU has bfloat16 matrix instructions; None where that cannot be read (not Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return any(flag in flags for flag in CPU_BF16_FLAGS)


def _torch_build() -> str:
    try:
        return version("torch")
    except PackageNotFoundError:
        return ""


def _cuda_hidden() -> bool:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return visible is not None and visible.strip() in ("", "-1")


def probe_device(device: str = "auto") -> str:
    """The device ``device`` names: ``auto`` becomes ``cuda``, else ``mps``, else ``cpu``.

    Without torch imported, ``auto`` is decided from the torch build (a ``+cpu`` wheel has no CUDA) and the
    presence of an NVIDIA driver; where torch is already imported it is asked directly.
    """
    device = device.strip().lower()
    if device != "auto":
        if device.split(":")[0] not in ("cpu", "cuda", "mps"):
            raise ConfigurationError(f"unknown device {device!r}", hint="use auto, cpu, cuda, cuda:N or mps")
        return device
    if "torch" in sys.modules:
        # ``import``, not sys.modules["torch"]: while another thread is importing torch the module is there half
        # made ("partially initialized module 'torch'", a 500 under load); the import statement takes the
        # module's import lock (importlib's, per module) and so waits for that import to finish
        import torch
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    build = _torch_build()
    has_driver = Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None
    if build and "+cpu" not in build and has_driver and not _cuda_hidden() and sys.platform != "darwin":
        return "cuda"
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return "mps"
    return "cpu"


def check_dtype(dtype: str) -> str:
    if dtype not in DTYPES:
        raise ConfigurationError(f"unknown dtype {dtype!r}", hint="use one of " + ", ".join(DTYPES))
    return dtype


def torch_device(name: str) -> Any:
    """A ``torch.device`` for ``name`` (from ``probe_device``), after checking torch can use it; on the CPU,
    torch's thread count is set (``configure_cpu_threads``)."""
    import torch

    kind = name.split(":")[0]
    if kind == "cuda" and not torch.cuda.is_available():
        raise ConfigurationError(
            f"device {name!r} was chosen but torch {torch.__version__} cannot use CUDA here",
            hint="pass device='cpu', or install a CUDA build of torch",
        )
    if kind == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ConfigurationError(f"device {name!r} is not available here", hint="pass device='cpu'")
    if kind == "cpu":
        configure_cpu_threads()
    return torch.device(name)


def torch_dtype(dtype: str, device: Any) -> Any:
    """The torch dtype for ``dtype``, or a ConfigurationError where ``device`` cannot compute in it."""
    import torch

    check_dtype(dtype)
    kind = device.type
    if dtype in MIXED:
        torch_dtype(MIXED[dtype], device)  # computed in it: the device must support it
        if kind == "cpu" and cpu_multiplies_bfloat16() is False:
            log.warning("dtype %s: this CPU has no bfloat16 matrix instructions (%s), so its bfloat16 arithmetic is "
                        "emulated and slower than float32; use float32 here", dtype, " or ".join(CPU_BF16_FLAGS))
        return torch.float32
    result = getattr(torch, dtype)
    if dtype == "float16" and kind == "cpu":
        raise ConfigurationError(
            "dtype float16 is not supported on the CPU (many CPU kernels lack it or are very slow)",
            hint="use dtype='bfloat16' or 'float32' on the CPU, or float16 on a GPU",
        )
    if dtype == "bfloat16" and kind == "cuda" and not torch.cuda.is_bf16_supported():
        raise ConfigurationError(
            f"this GPU ({torch.cuda.get_device_name(device)}) does not support bfloat16",
            hint="use dtype='float16' or 'float32'",
        )
    if kind == "mps" and dtype == "bfloat16":
        try:
            torch.ones(1, dtype=result, device=device)
        except (RuntimeError, TypeError) as error:
            raise ConfigurationError(
                f"bfloat16 is not available on MPS here: {error}", hint="use float16 or float32"
            ) from None
    return result


def usable_cpu_ids() -> set[int] | None:
    """The CPUs this process may run on (its affinity mask), or None where the platform does not say."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return None


def available_cpus() -> int:
    """CPUs this process may use: the affinity mask, capped by a cgroup v2 CPU quota."""
    ids = usable_cpu_ids()
    count = len(ids) if ids else os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, int(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


@dataclass(frozen=True)
class ThreadChoice:
    threads: int
    reason: str  # why, in words (logged, and kept for the benchmarks' records)


_kept_sample: cpu_load.CpuSample | None = None


def start_measuring_cpus() -> None:
    """Sample the usable CPUs now (unless a sample younger than ``cpu_load.MAX_AGE`` is kept): the thread count
    chosen later measures from here, so that slow work in between (importing torch and transformers, loading
    the tokenizer) takes the place of the interval ``choose_cpu_threads`` would otherwise wait for."""
    global _kept_sample
    if _kept_sample is None or time.monotonic() - _kept_sample.at > cpu_load.MAX_AGE:
        _kept_sample = cpu_load.sample(usable_cpu_ids())


def choose_cpu_threads(
    since: cpu_load.CpuSample | None = None,
    *,
    sample: Callable[[set[int] | None], cpu_load.CpuSample | None] = cpu_load.sample,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ThreadChoice:
    """torch's CPU threads: ``LINGUAGYM_THREADS`` where set, else the usable CPUs (affinity, cgroup quota) less
    those other processes keep busy now, at least 1.

    torch's threads meet at a barrier after every operation: when another process holds one of the cores, the
    other threads wait for the descheduled one, and the many small element-wise operations of a small model
    slow down several-fold. Measured on a 2-core machine at load 7: one thread scored 2x faster than two.
    "Now" is the interval since ``since`` (by default the sample ``start_measuring_cpus`` kept), or a fresh
    ``SAMPLE_SECONDS`` interval (``since`` older than ``cpu_load.MAX_AGE`` is not "now"); this process's own CPU
    time in it is not counted as another's. The 1-minute load average is not used: it still counts a job that
    ended a minute ago.
    """
    wanted = os.environ.get("LINGUAGYM_THREADS", "").strip()
    if wanted.isdigit() and int(wanted) > 0:
        return ThreadChoice(int(wanted), f"LINGUAGYM_THREADS={wanted}")
    cpus = available_cpus()
    ids = usable_cpu_ids()
    since = since if since is not None else _kept_sample
    fresh = since is not None and clock() - since.at <= cpu_load.MAX_AGE
    before = since if fresh else sample(ids)
    if before is not None:
        waited = clock() - before.at
        if waited < cpu_load.SAMPLE_SECONDS:
            sleep(cpu_load.SAMPLE_SECONDS - waited)
    after = sample(ids) if before is not None else None
    others = cpu_load.busy_elsewhere(before, after) if before is not None and after is not None else None
    if others is None or before is None or after is None:
        return ThreadChoice(cpus, f"{cpus} usable CPUs (what other processes use could not be measured)")
    # Free CPUs: those sampled (the affinity mask) less the busy ones, capped by the quota; a CPU more than half
    # busy with another process counts as taken.
    threads = max(1, min(cpus, math.floor(after.cpus - others + 0.5)))
    return ThreadChoice(threads, f"{cpus} usable CPUs, {others:.1f} busy with other processes over the last "
                                 f"{after.at - before.at:.2f} s")


_last_choice: ThreadChoice | None = None


def last_thread_choice() -> ThreadChoice | None:
    """The thread count ``configure_cpu_threads`` chose last in this process, and why (None before any)."""
    return _last_choice


def configure_cpu_threads(since: cpu_load.CpuSample | None = None) -> int:
    """Set torch's intra-op threads to ``choose_cpu_threads(since)``'s count and return it.

    torch defaults to the machine's physical cores, which oversubscribes a container limited by quota or a
    machine shared with other jobs.
    """
    import torch

    global _last_choice
    choice = choose_cpu_threads(since)
    _last_choice = choice
    log.info("CPU threads: %d (%s)", choice.threads, choice.reason)
    if torch.get_num_threads() != choice.threads:
        torch.set_num_threads(choice.threads)
    return choice.threads
