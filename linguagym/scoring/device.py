"""Choosing the device, the dtype and the CPU thread count.

``probe_device`` answers without importing torch, so that a scorer's identity (and so a cache lookup) never
needs torch; ``torch_device`` checks the answer against torch when a model is actually loaded.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError

DTYPES = ("float32", "bfloat16", "float16")


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
        torch: Any = sys.modules["torch"]
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
    """A ``torch.device`` for ``name`` (from ``probe_device``), after checking torch can use it."""
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
    result = getattr(torch, dtype)
    kind = device.type
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


def available_cpus() -> int:
    """CPUs this process may use: the affinity mask, capped by a cgroup v2 CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        count = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, int(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


def sensible_cpu_threads() -> int:
    """The usable CPUs less those other processes keep busy (1-minute load average beyond one, which may be
    this very process warming up), at least 1.

    torch's threads meet at a barrier after every operation: when another process holds one of the cores, the
    other threads wait for the descheduled one, and the many small element-wise operations of a small model
    slow down several-fold. Measured on a 2-core machine at load 7: one thread scored 2x faster than two.
    """
    cpus = available_cpus()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows
        return cpus
    return max(1, min(cpus, round(cpus - max(0.0, load - 1.0) + 0.25)))


def configure_cpu_threads() -> int:
    """Set torch's intra-op threads to ``sensible_cpu_threads()`` (``LINGUAGYM_THREADS`` overrides).

    torch defaults to the machine's physical cores, which oversubscribes a container limited by quota or a
    machine shared with other jobs.
    """
    import torch

    wanted = os.environ.get("LINGUAGYM_THREADS")
    threads = int(wanted) if wanted and wanted.isdigit() and int(wanted) > 0 else sensible_cpu_threads()
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads
