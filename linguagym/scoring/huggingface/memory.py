"""Will a model's weights fit? Checked before loading them, so that a model too large for this machine (or this
Ray worker) is refused with the sizes, instead of the process being killed half-way by the kernel.

The need is the parameter count (read from the safetensors headers, no tensor loaded) times the bytes of the
dtype asked for; what is free is the device's free memory (CUDA) or the memory the kernel and this process's
cgroup still allow (CPU). Weights are not all a run needs, so passing this check does not promise a run that
fits; failing it promises one that does not.
"""

from __future__ import annotations

import functools
import json
import socket
import struct
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "bfloat16-mixed": 4}  # mixed: float32 weights
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
    smaller = " `dtype` bfloat16 (half of it)," if dtype == "float32" else ""
    raise ConfigurationError(
        f"model {name!r} needs {need / 2**30:.1f} GiB for its {count / 1e6:,.0f} M parameters in {dtype}, but the "
        f"{where} has {free / 2**30:.1f} GiB free",
        hint=f"use{smaller} a smaller model, or a machine (or Ray workers) with more memory", settings=["dtype"],
    )


# ------------------------------------------------------------------------------------------- batch size "auto"

AUTO = "auto"
CPU_BATCH_SIZE = 16  # the default batch size; on a CPU a larger one buys nothing (see default_batch_tokens)
MAX_AUTO_BATCH_SIZE = 1024
_TOKENS_PER_TEXT = 64  # the token budget of a forward pass is 64 tokens a text (hf_base.default_batch_tokens)


def is_auto_batch_size(value: object) -> bool:
    """``auto``, or lm-evaluation-harness's ``auto:N`` (re-tune N times; here the size is chosen once)."""
    if not isinstance(value, str):
        return False
    name, colon, times = value.partition(":")
    return name == AUTO and (not colon or times.isdigit())


def batch_size_for_memory(free: int, weights: int, vocab_size: int, hidden: int, layers: int, dtype: str) -> int:
    """Texts per forward pass that fit ``free`` bytes next to ``weights`` bytes, half of what is left kept spare.

    Per token, a pass holds the float32 log-probabilities over the vocabulary (logits, log-softmax and a copy)
    and about sixteen hidden-size activations per layer; 64 tokens a text, as the token budget counts them."""
    per_token = 3 * 4 * vocab_size + 16 * DTYPE_BYTES.get(dtype, 4) * hidden * max(1, layers)
    spare = (free - weights) // 2
    texts = spare // (per_token * _TOKENS_PER_TEXT) if per_token > 0 else 0
    return int(min(MAX_AUTO_BATCH_SIZE, max(CPU_BATCH_SIZE, texts)))


def _model_shape(directory: Path) -> tuple[int, int, int]:
    """Vocabulary size, hidden size and layers from config.json (GPT-2's and Llama's names); 0 where absent."""
    try:
        config = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0, 0, 0
    config = {**config, **(config.get("text_config") or {})}

    def first(*keys: str) -> int:
        values = [config.get(key) for key in keys]
        return next((int(v) for v in values if isinstance(v, int) and v > 0), 0)

    return (first("vocab_size"), first("hidden_size", "n_embd", "d_model"),
            first("num_hidden_layers", "n_layer", "num_layers"))


def auto_batch_size(model: str, *, device: str, dtype: str, cache_dir: str | None = None,
                    model_args: tuple[tuple[str, Any], ...] = ()) -> int:
    """The batch size ``--batch-size auto`` picks for ``model``: on CUDA from the GPU's free memory and the size of
    the model (its parameters, vocabulary and hidden size); elsewhere the default, 16. Decided once per process
    for the same options (the free memory changes once weights are loaded), so every scorer of a run agrees."""
    from linguagym.scoring.engine.device import probe_device

    if probe_device(device).split(":")[0] != "cuda" or model.lower().endswith(".tsv"):
        return CPU_BATCH_SIZE
    return _cuda_batch_size(model, device, dtype, cache_dir, model_args)


@functools.cache
def _cuda_batch_size(model: str, device: str, dtype: str, cache_dir: str | None,
                     pairs: tuple[tuple[str, Any], ...]) -> int:
    import torch  # only on CUDA, where the weights are about to be loaded with it anyway

    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.huggingface.sources import resolve_source
    from linguagym.scoring.model_args import effective_dtype, model_args

    if not torch.cuda.is_available():
        return CPU_BATCH_SIZE  # loading the model then says why CUDA cannot be used
    args = model_args(pairs)  # revision, subfolder, gguf_file pick the files to size
    dtype = effective_dtype(dtype, args)
    directory, gguf_file = resolve_source(model, resolve_cache_dir(Path(cache_dir) if cache_dir else None),
                                          args).files()
    target = torch.device("cuda" if device.strip().lower() == "auto" else device.strip().lower())
    torch.cuda.empty_cache()  # blocks the allocator kept from an earlier model are free for this one
    free = int(torch.cuda.mem_get_info(target)[0])
    count = None if gguf_file else parameter_count(directory)
    vocab, hidden, layers = _model_shape(directory)
    if count is None or not vocab:
        return CPU_BATCH_SIZE
    return batch_size_for_memory(free, count * DTYPE_BYTES.get(dtype, 4), vocab, hidden, layers, dtype)
