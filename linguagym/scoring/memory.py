"""Will a model's weights fit? Checked before loading them, so that a model too large for this machine (or this
Ray worker) is refused with the sizes, instead of the process being killed half-way by the kernel.

The need is the parameter count (read from the safetensors headers, no tensor loaded) times the bytes of the
dtype asked for; what is free is the device's free memory (CUDA) or the memory the kernel and this process's
cgroup still allow (CPU). Weights are not all a run needs, so passing this check does not promise a run that
fits; failing it promises one that does not.
"""

from __future__ import annotations

import json
import socket
import struct
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
_STORED_BYTES = {"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


def parameter_count(directory: Path) -> int | None:
    """Floating-point parameters in the safetensors files of ``directory``; None when it has none."""
    files = sorted(Path(directory).glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for path in files:
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length))
        for name, entry in header.items():
            if name == "__metadata__" or not str(entry.get("dtype", "")).startswith(("F", "BF")):
                continue
            count = 1
            for size in entry["shape"]:
                count *= int(size)
            total += count
    return total


def free_bytes(target: Any) -> int | None:
    """Memory still free for weights on ``target`` (a torch device); None where it cannot be told."""
    if getattr(target, "type", str(target)) == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(target)[0])
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    try:  # a container's own limit (cgroup v2), which MemAvailable does not see
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def check_weights_fit(name: str, directory: Path, dtype: str, target: Any) -> None:
    """A ConfigurationError when the weights of model ``name`` in ``dtype`` cannot fit in what ``target`` has
    free. Silent when either side cannot be told (a GGUF file, an unknown platform)."""
    count = parameter_count(directory)
    free = free_bytes(target)
    if count is None or free is None:
        return
    need = count * DTYPE_BYTES.get(dtype, 4)
    if need <= free:
        return
    where = f"{getattr(target, 'type', target)} on {socket.gethostname()}"
    smaller = " --dtype bfloat16 (half of it)," if dtype == "float32" else ""
    raise ConfigurationError(
        f"model {name!r} needs {need / 2**30:.1f} GiB for its {count / 1e6:,.0f} M parameters in {dtype}, but the "
        f"{where} has {free / 2**30:.1f} GiB free",
        hint=f"use{smaller} a smaller model, or a machine (or Ray workers) with more memory",
    )
