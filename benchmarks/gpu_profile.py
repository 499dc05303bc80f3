"""Where one scoring run's wall time goes on a GPU, from a torch profiler trace, summarised in a few lines of text
(``gpu_engine.py large --torch-profile FILE``; issue 42).

The run is wrapped, and the engine's phases inside it are each wrapped in a ``record_function`` range by patching
the functions by name (nothing in linguagym is changed): encoding the texts, packing the prefix trees, building a
pass's host arrays, the tree mask, the model's body (forward), the vocabulary projection, building the result
objects. A name the engine no longer has is skipped and said so. Per phase the summary gives the host's wall time
(the range on the CPU, Python included) and the GPU time of the kernels launched inside it; then what is left of
``tree_scores`` outside the named phases (reading values back, which waits for the GPU, and bookkeeping); the
GPU's busy time (union of its kernels and copies) over the run's wall time, so its idle fraction; the CPU ops with
the most self time and the kernels with the most GPU time. The profiler's own overhead inflates host times: the
unprofiled wall time of the same setting is printed beside it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

WHOLE = "lg: whole score()"
TREE = "lg: tree_scores"
# (module, attribute, label): the phases, in the order a run meets them; patched where the name exists
PHASES = [
    ("linguagym.scoring.huggingface.causal", "encode_texts", "lg: encode texts"),
    ("linguagym.scoring.engine.prefix", "pack_once", "lg: pack prefix trees"),
    ("linguagym.scoring.engine.prefix", "_pass_inputs", "lg: pass inputs (host arrays)"),
    ("linguagym.scoring.engine.prefix", "tree_mask", "lg: tree mask (device)"),
    ("linguagym.scoring.engine.prefix.Projection", "scores", "lg: vocabulary projection"),
    ("linguagym.scoring.huggingface.causal", "_scored", "lg: build result objects"),
]
FORWARD = "lg: model body forward"


def _owner(path: str) -> Any:
    """The module or class ``path`` names (``package.module`` or ``package.module.Class``)."""
    import importlib

    try:
        return importlib.import_module(path)
    except ImportError:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name, None)


def _wrapped(function: Callable, label: str) -> Callable:
    from torch.profiler import record_function

    @functools.wraps(function)
    def inner(*args: Any, **kwargs: Any) -> Any:
        with record_function(label):
            return function(*args, **kwargs)

    return inner


def annotate(model: Any) -> tuple[Callable[[], None], list[str]]:
    """Wrap the phases (and ``model.base_model``'s forward) in profiler ranges; returns an undo and the names not
    found."""
    undo: list[Callable[[], None]] = []
    missing = []
    for path, attribute, label in [*PHASES, ("linguagym.scoring.huggingface.causal", "tree_scores", TREE)]:
        owner = _owner(path)
        original = None if owner is None else owner.__dict__.get(attribute)
        if original is None:
            missing.append(f"{path}.{attribute}")
            continue
        setattr(owner, attribute, _wrapped(original, label))
        undo.append(lambda owner=owner, attribute=attribute, original=original: setattr(owner, attribute, original))
    body = model.base_model
    body.forward = _wrapped(body.forward, FORWARD)  # an instance attribute: nn.Module.__call__ finds it first
    undo.append(lambda: body.__dict__.pop("forward", None))
    return (lambda: [step() for step in reversed(undo)]), missing


def _union(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def profile_run(run: Callable[[], Any], model: Any, on_cuda: bool, unprofiled_s: float | None) -> str:
    """Profile ``run()`` once (after the caller's warm-up) and return the summary text."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile, record_function

    undo, missing = annotate(model)
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if on_cuda else [])]
    try:
        with profile(activities=activities) as prof:
            clock = time.perf_counter()
            with record_function(WHOLE):
                run()
            if on_cuda:
                torch.cuda.synchronize()
            wall = time.perf_counter() - clock
    finally:
        undo()
    events = prof.events()
    ranges: dict[str, list[Any]] = {}
    gpu: list[tuple[float, float]] = []
    for event in events:
        if event.name.startswith("lg: "):  # the ranges: the host's (the GPU's copies of them are only spans)
            if event.device_type == DeviceType.CPU:
                ranges.setdefault(event.name, []).append(event)
        elif event.device_type == DeviceType.CUDA:  # kernels, copies, sets
            gpu.append((event.time_range.start, event.time_range.end))
    lines = [f"profiled run: {wall:.3f} s wall with the profiler"
             + (f" (unprofiled, same setting: {unprofiled_s:.3f} s)" if unprofiled_s is not None else "")]
    if missing:
        lines.append("not annotated (no such name in this engine): " + ", ".join(missing))
    whole = ranges.get(WHOLE, [])
    span = (whole[0].time_range.end - whole[0].time_range.start) if whole else wall * 1e6
    busy = _union(gpu)
    lines.append(f"GPU busy (union of kernels and copies): {busy / 1e3:.1f} ms of {span / 1e3:.1f} ms "
                 f"= {100 * busy / span:.1f} %; GPU idle {100 - 100 * busy / span:.1f} %"
                 if on_cuda else "no GPU: host times only")
    lines.append(f"{'phase':46} {'calls':>5} {'host ms':>9} {'host %':>7} {'GPU ms':>8}")

    def row(label: str, calls: int, host_us: float, gpu_us: float | None) -> None:
        gpu_text = "" if gpu_us is None else f"{gpu_us / 1e3:8.1f}"
        lines.append(f"{label[4:] if label.startswith('lg: ') else label:46} {calls:5d} {host_us / 1e3:9.1f} "
                     f"{100 * host_us / span:6.1f}% {gpu_text}")

    named = [label for _, _, label in PHASES]
    for label in [*named[:4], FORWARD, *named[4:]]:
        found = ranges.get(label, [])
        if found:
            row(label, len(found), sum(e.cpu_time_total for e in found),
                sum(e.device_time_total for e in found) if on_cuda else None)
    def host(*labels: str) -> float:
        return sum(e.cpu_time_total for label in labels for e in ranges.get(label, []))

    # the phases run one after another on the host: inside tree_scores, what is left of it is reading values back
    # (which waits for the GPU) and bookkeeping; inside score(), what is left is outside every phase
    tree = ranges.get(TREE, [])
    if tree:
        row("read-back + bookkeeping (rest of tree_scores)", len(tree),
            host(TREE) - host(*named[1:5], FORWARD), None)
    row("rest of score() (outside the phases)", 1, span - host(named[0], TREE, named[5]), None)
    lines.append("")
    lines.append("top CPU ops by self time:")
    lines.append(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12, max_name_column_width=55))
    if on_cuda:
        lines.append("top GPU kernels by GPU time:")
        averages = prof.key_averages()
        try:
            lines.append(averages.table(sort_by="self_cuda_time_total", row_limit=10, max_name_column_width=55))
        except (KeyError, AttributeError, ValueError):  # a torch that knows only the newer name
            lines.append(averages.table(sort_by="self_device_time_total", row_limit=10, max_name_column_width=55))
    return "\n".join(lines)
