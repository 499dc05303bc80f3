"""How far linguagym's float32 CPU surprisals are from a float64 computation, and what the settings of its products
cost: the figures of docs/performance.md, "Precision against float64".

  python benchmarks/precision.py figures [--per-suite 12] [--threads 2]   # |Δ| against float64, per setting
  python benchmarks/precision.py speed [--repeat 3]                        # scoring time, per setting

``figures`` takes the first ``--per-suite`` distinct sentences of each SyntaxGym 2020 suite
(../shared/data/syntaxgym/suites), scores them with smollm2-135m in float64 through transformers (a plain loop:
the start token <|endoftext|> and the text's tokens, sentences of one length together, no padding, no mask) and
compares each setting's surprisals with it: per token and per sentence (the sum of its tokens), the largest and
the mean |Δ|, the sentences over 5e-4 and 1e-3 bits, and the first token's mean signed Δ (its bias: every
sentence's first token follows the same start state, so its error is one computation's, repeated). Settings:
linguagym's default; ``LINGUAGYM_ONEDNN=0`` (torch's products throughout); oneDNN for every decoder product,
the MLPs' down products included (the default before they were left to torch); transformers in float32 (the
same loop as the reference).

``speed`` loads the default, the every-product and the ``LINGUAGYM_ONEDNN=0`` model once each and scores the
suites' distinct sentences with each, alternating, no score cache, printing the best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SUITES = ROOT.parent / "shared" / "data" / "syntaxgym" / "suites"
MODEL = "smollm2-135m"
START_ID = 0  # linguagym's start token for smollm2-135m: <|endoftext|>
ALL_PRODUCTS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def cpu_name() -> str:
    """The CPU's model name and its widest vector instructions, as /proc/cpuinfo gives them."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                name = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{name} ({isa}, {os.cpu_count()} CPUs)"


def suite_texts(per_suite: int, directory: Path = SUITES) -> list[str]:
    """The first ``per_suite`` distinct sentences of each suite, once each."""
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites.load import read_suite

    texts: list[str] = []
    for path in sorted(directory.glob("*.json")):
        sentences = dict.fromkeys(s.text for s in suite_sentences(read_suite(path).suite))
        texts += list(sentences)[:per_suite]
    return list(dict.fromkeys(texts))


def transformers_surprisals(texts: list[str], dtype_name: str) -> dict[str, list[float]]:
    """Bits of each text's tokens after the start token, with transformers' model in ``dtype_name``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from linguagym import assets
    from linguagym.scoring.cache import resolve_cache_dir

    directory = assets.fetch_named_model(MODEL, resolve_cache_dir(None))
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=getattr(torch, dtype_name)).eval()
    by_length: dict[int, list[tuple[str, list[int]]]] = {}
    for text in texts:
        ids = [START_ID] + tokenizer(text, add_special_tokens=False)["input_ids"]
        by_length.setdefault(len(ids), []).append((text, ids))
    found: dict[str, list[float]] = {}
    with torch.no_grad():
        for group in by_length.values():
            for start in range(0, len(group), 32):
                chunk = group[start:start + 32]
                logp = torch.log_softmax(model(torch.tensor([ids for _, ids in chunk])).logits.double(), dim=-1)
                for (text, ids), rows in zip(chunk, logp, strict=True):
                    found[text] = [-rows[j - 1, ids[j]].item() / math.log(2) for j in range(1, len(ids))]
    return found


@contextmanager
def setting(name: str) -> Iterator[None]:
    """linguagym's products as ``name`` says: ``default``, ``torch`` (LINGUAGYM_ONEDNN=0) or ``every product``
    (oneDNN for the down products too)."""
    from linguagym.scoring.native import onednn

    saved_env, saved_products = os.environ.get(onednn.ENV), onednn.DECODER_PRODUCTS
    try:
        if name == "torch":
            os.environ[onednn.ENV] = "0"
        if name == "every product":
            onednn.DECODER_PRODUCTS = ALL_PRODUCTS
        yield
    finally:
        onednn.DECODER_PRODUCTS = saved_products
        if saved_env is None:
            os.environ.pop(onednn.ENV, None)
        else:
            os.environ[onednn.ENV] = saved_env


def linguagym_surprisals(texts: list[str], name: str) -> dict[str, list[float]]:
    from linguagym.scoring import load_scorer

    with setting(name):
        scorer = load_scorer(MODEL, score_cache=False)
        scored = scorer.score(texts)
    return {text: [t.surprisal for t in one.tokens] for text, one in zip(texts, scored, strict=True)}


def differences(found: dict[str, list[float]], reference: dict[str, list[float]]) -> dict[str, float]:
    """The figures of one setting against the float64 reference (bits)."""
    tokens, sentences, first = [], [], []
    for text, exact in reference.items():
        ours = found[text]
        if len(ours) != len(exact):
            raise SystemExit(f"{text!r}: {len(ours)} tokens against the reference's {len(exact)}")
        delta = [a - b for a, b in zip(ours, exact, strict=True)]
        tokens += [abs(d) for d in delta]
        sentences.append(abs(sum(delta)))
        first.append(delta[0])
    return {"token max": max(tokens), "token mean": sum(tokens) / len(tokens),
            "sentence max": max(sentences), "sentence mean": sum(sentences) / len(sentences),
            "over 5e-4": sum(s > 5e-4 for s in sentences), "over 1e-3": sum(s > 1e-3 for s in sentences),
            "first bias": sum(first) / len(first), "first max": max(abs(f) for f in first)}


def figures(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(args.threads)
    texts = suite_texts(args.per_suite)
    reference = transformers_surprisals(texts, "float64")
    count = sum(len(v) for v in reference.values())
    runs: list[tuple[str, Callable[[], dict[str, list[float]]]]] = [
        ("linguagym default", lambda: linguagym_surprisals(texts, "default")),
        ("LINGUAGYM_ONEDNN=0", lambda: linguagym_surprisals(texts, "torch")),
        ("oneDNN for every decoder product", lambda: linguagym_surprisals(texts, "every product")),
        ("transformers float32", lambda: transformers_surprisals(texts, "float32")),
    ]
    print(f"\n{MODEL}, {len(texts)} sentences ({count} tokens) of the 34 SyntaxGym suites, |Δ| against a float64 "
          f"transformers loop, in bits; CPU: {cpu_name()}, torch {torch.__version__}, {args.threads} threads\n")
    print("| setting | token max | token mean | sentence max | sentence mean | sentences > 5e-4 | > 1e-3 "
          "| first token: mean signed Δ (bias) | first token max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, run in runs:
        f = differences(run(), reference)
        print(f"| {name} | {f['token max']:.2e} | {f['token mean']:.2e} | {f['sentence max']:.2e} | "
              f"{f['sentence mean']:.2e} | {f['over 5e-4']} | {f['over 1e-3']} | {f['first bias']:+.2e} | "
              f"{f['first max']:.2e} |", flush=True)


def speed(args: argparse.Namespace) -> None:
    import torch

    from linguagym.scoring import load_scorer

    torch.set_num_threads(args.threads)
    texts = suite_texts(10**9)
    names = ["default", "every product", "torch"]
    scorers = {}
    for name in names:
        with setting(name):
            scorers[name] = load_scorer(MODEL, score_cache=False)
            scorers[name].score(texts[:8])  # loads the weights (and packs them) outside the timing
    best = {name: math.inf for name in names}
    for _ in range(args.repeat):
        for name in names:
            with setting(name):  # the projection's packing is decided per call
                started = time.perf_counter()
                scorers[name].score(texts)
                best[name] = min(best[name], time.perf_counter() - started)
    print(f"\n{MODEL}, the {len(texts)} distinct sentences of the 34 suites, best of {args.repeat} (alternating); "
          f"CPU: {cpu_name()}, torch {torch.__version__}, {args.threads} threads, load {os.getloadavg()[0]:.1f}\n")
    for name in names:
        print(f"{name:>14}: {best[name]:.2f} s  ({best[name] / best['default']:.3f} x the default)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    first = commands.add_parser("figures")
    first.add_argument("--per-suite", type=int, default=12)
    first.add_argument("--threads", type=int, default=2)
    first.set_defaults(run=figures)
    second = commands.add_parser("speed")
    second.add_argument("--repeat", type=int, default=3)
    second.add_argument("--threads", type=int, default=2)
    second.set_defaults(run=speed)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
