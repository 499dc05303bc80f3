"""GPU benchmarks of the scoring engine (issue 22): tree attention per dtype, and large models against minicons and a
plain batched loop, in one process per invocation so that every contender scores the same weights.

  python benchmarks/gpu_engine.py attention --model-dir DIR      # per dtype: seconds, which attention kernels ran
  python benchmarks/gpu_engine.py large --tokenizer-dir DIR      # ~1B, ~3B and ~8B Llama-style models, bfloat16
  python benchmarks/gpu_engine.py native --tokenizer-dir DIR --configs CONFIG_DIR...  # own decoders vs transformers
  python benchmarks/gpu_engine.py save --tokenizer-dir DIR --out MODEL_DIR   # a random-weight model for the CLI

``benchmarks/gpu_session.sh`` runs them all in one call of a lent GPU (issue 42).

``attention`` scores the unique sentences of the suites with linguagym's prefix trees in float32, bfloat16 and
float16 (``DIR`` holds a config and tokenizer; its weights if it has them, else random ones), each after a
warm-up, best of ``--repeat``, and prints the CUDA kernels that took the most time, so that the attention kernel
SDPA chose can be read off (``fmha``/``efficient``/``flash`` kernels, or the math path's ``bmm`` + ``softmax``).

``large`` builds each model from its real configuration with random weights directly on the GPU (timing needs no
trained weights; correctness is checked on real small models elsewhere), then scores the same sentences with

  1. linguagym's scorer (prefix trees), at each token budget of ``--budgets``;
  2. minicons ``IncrementalLMScorer.token_score`` at each batch size of ``--minicons-batches`` (where installed);
  3. a plain loop: length-sorted batches, right padding, ``model(ids).logits.float().log_softmax(-1)``;

and reports, for each contender at its best setting: seconds, scored tokens per second, peak GPU memory, and the
fraction of the GPU's bfloat16 dense peak (``--peak-tflops``, 989 for an H100 SXM) that 2 x parameters x tokens
is. Each timed run follows an untimed one of the same setting (kernels chosen, memory pools grown).
``--torch-profile FILE`` then profiles one run of linguagym's best setting and writes where its time goes, per
phase (``gpu_profile.py``); ``--bow`` times linguagym's best setting with the word-boundary correction too.

``native`` compares linguagym's own Llama and Gemma 3 decoders with transformers' on the same random weights and
device (``gpu_native.py``). ``save`` writes a model of a ``LLAMA`` shape with random weights in bfloat16, with
the tokenizer files, for timing ``linguagym run`` end to end on it.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# LINGUAGYM_ROOT: score with the linguagym of another checkout (e.g. `git worktree add ../before HEAD~1`), to
# compare engines in one invocation; default: this checkout
sys.path.insert(0, os.environ.get("LINGUAGYM_ROOT", str(ROOT)))
DEFAULT_SUITES = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites" / "*.json")
DEVICE = "cuda"  # --device: cpu only to try the script out

# Real configurations, weights random: Llama 3.2 1B and 3B, Llama 3.1 8B.
LLAMA = {
    "llama-1b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "tie_word_embeddings": True},
    "llama-3b": {"hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 28, "num_attention_heads": 24,
                 "num_key_value_heads": 8, "tie_word_embeddings": True},
    "llama-8b": {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "tie_word_embeddings": False},
    # not a real model: to try the script out on a CPU
    "llama-tiny": {"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "tie_word_embeddings": True},
}
LLAMA_COMMON = {"vocab_size": 128256, "max_position_embeddings": 131072, "rope_theta": 500000.0,
                "rms_norm_eps": 1e-5, "hidden_act": "silu", "bos_token_id": 0, "eos_token_id": 0}


def sentences(patterns: list[str]) -> list[str]:
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites.load import read_suite

    paths = sorted(p for pattern in patterns for p in glob.glob(pattern))
    if not paths:
        sys.exit(f"no suites match {patterns}")
    return list(dict.fromkeys(s.text for p in paths for s in suite_sentences(read_suite(p).suite)))


def synced(function):
    """Seconds ``function()`` took, the GPU's work included; and its result."""
    import torch

    if DEVICE == "cuda":
        torch.cuda.synchronize()
    clock = time.perf_counter()
    result = function()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - clock, result


def scorer_on(model, tokenizer, model_dir: Path, dtype: str, budget: int, bow: bool = False):
    """linguagym's causal scorer running ``model`` (already on the GPU) instead of loading one; ``bow``: with the
    word-boundary correction."""
    import torch

    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.huggingface.base import Loaded
    from linguagym.scoring.huggingface.causal import CausalScorer
    from linguagym.scoring.huggingface.sources import resolve_source

    scorer = CausalScorer(resolve_source(str(model_dir), resolve_cache_dir()), dtype=dtype, device=DEVICE,
                          batch_tokens=budget, **({"bow_correction": True} if bow else {}))
    scorer.lm._loaded = Loaded(model, tokenizer, torch.device(DEVICE), None)
    return scorer


def top_kernels(function, count: int = 12) -> str:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        function()
    return prof.key_averages().table(sort_by="cuda_time_total", row_limit=count, max_name_column_width=70)


# -- attention ------------------------------------------------------------------------------------------------------


def attention(args: argparse.Namespace) -> None:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    if args.probe:
        probe_sdpa()
    texts = sentences(args.suites)
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    has_weights = any(Path(args.model_dir).glob("*.safetensors"))
    print(f"{len(texts)} sentences; weights: {'the directory' if has_weights else 'random'}", flush=True)
    results = {}
    for dtype_name in args.dtypes:
        dtype = getattr(torch, dtype_name)
        with torch.device(DEVICE):
            if has_weights:
                model = AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=dtype).eval()
            else:
                torch.manual_seed(0)
                model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(args.model_dir), dtype=dtype).eval()
        for budget in args.budgets:
            scorer = scorer_on(model, tokenizer, Path(args.model_dir), dtype_name, budget)
            scorer.score(texts)  # untimed
            best = min(synced(lambda s=scorer: s.score(texts))[0] for _ in range(args.repeat))
            results[(dtype_name, budget)] = best
            print(f"{dtype_name:9} budget {budget:6}: {best:.3f} s", flush=True)
        if args.profile:
            scorer = scorer_on(model, tokenizer, Path(args.model_dir), dtype_name, args.budgets[0])
            print(top_kernels(lambda s=scorer: s.score(texts)), flush=True)
        del model
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
    print(json.dumps({" | ".join(map(str, k)): round(v, 4) for k, v in results.items()}, indent=1))


def probe_sdpa() -> None:
    """Which SDPA kernels take a tree-shaped mask, per dtype and mask kind: each forced alone, timed or refused."""
    import warnings

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    batch, heads, width, dim = 16, 9, 256, 64
    allowed = torch.rand(batch, 1, width, width, device=DEVICE) < 0.5
    allowed |= torch.eye(width, dtype=torch.bool, device=DEVICE)
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        q, k, v = (torch.randn(batch, heads, width, dim, device=DEVICE, dtype=dtype) for _ in range(3))
        additive = torch.zeros(allowed.shape, dtype=dtype, device=DEVICE).masked_fill(~allowed, torch.finfo(dtype).min)
        for mask_name, mask in (("additive", additive), ("bool", allowed), ("none", None)):
            found = []
            for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
                            SDPBackend.MATH):
                try:
                    with sdpa_kernel([backend]), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
                        seconds, _ = synced(lambda m=mask, q=q, k=k, v=v: [
                            torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
                            for _ in range(20)])
                    found.append(f"{backend.name.lower()} {1000 * seconds / 20:.3f} ms")
                except RuntimeError:
                    found.append(f"{backend.name.lower()} refused")
            print(f"sdpa {str(dtype)[6:]:9} mask {mask_name:8}: " + "; ".join(found), flush=True)


# -- large models ---------------------------------------------------------------------------------------------------


def plain_loop(model, tokenizer, texts: list[str], bos: int, batch: int) -> list[list[float]]:
    """Length-sorted batches, right padding, full logits in float32: what a careful user writes by hand."""
    import torch

    encoded = [[bos, *tokenizer(t, add_special_tokens=False)["input_ids"]] for t in texts]
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    values: list[list[float]] = [[] for _ in texts]
    with torch.inference_mode():
        for start in range(0, len(order), batch):
            group = order[start : start + batch]
            width = max(len(encoded[i]) for i in group)
            ids = torch.zeros((len(group), width), dtype=torch.long)
            mask = torch.zeros((len(group), width), dtype=torch.long)
            for row, i in enumerate(group):
                ids[row, : len(encoded[i])] = torch.tensor(encoded[i])
                mask[row, : len(encoded[i])] = 1
            ids, mask = ids.to(DEVICE), mask.to(DEVICE)
            logp = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float().log_softmax(-1)
            picked = (-logp.gather(-1, ids[:, 1:, None]).squeeze(-1) / math.log(2)).cpu().tolist()
            for row, i in enumerate(group):
                values[i] = picked[row][: len(encoded[i]) - 1]
    return values


def minicons_loop(model, tokenizer, texts: list[str], batch: int) -> list:
    from minicons import scorer as minicons_scorer

    lm = minicons_scorer.IncrementalLMScorer(model, device=DEVICE, tokenizer=tokenizer)
    found = []
    for start in range(0, len(texts), batch):
        found.extend(lm.token_score(texts[start : start + batch], surprisal=True, base_two=True, bos_token=True))
    return found


def best_of(label: str, settings: list[int], run) -> dict:
    import torch

    timings = {}
    for setting in settings:
        try:
            run(setting)  # untimed
            if DEVICE == "cuda":
                torch.cuda.reset_peak_memory_stats()
            seconds, _ = synced(lambda s=setting: run(s))
            timings[setting] = (seconds, torch.cuda.max_memory_allocated() if DEVICE == "cuda" else 0)
        except torch.OutOfMemoryError:
            timings[setting] = None
            torch.cuda.empty_cache()
        shown = "out of memory" if timings[setting] is None else f"{timings[setting][0]:.3f} s"
        print(f"  {label} {setting}: {shown}", flush=True)
    done = {k: v for k, v in timings.items() if v is not None}
    setting = min(done, key=lambda k: done[k][0])
    return {"setting": setting, "seconds": done[setting][0], "peak_bytes": done[setting][1],
            "sweep": {k: (None if v is None else round(v[0], 4)) for k, v in timings.items()}}


def large(args: argparse.Namespace) -> None:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    texts = sentences(args.suites)[: args.sample or None]
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_dir)
    tokenizer.bos_token = tokenizer.bos_token or tokenizer.eos_token  # minicons prepends this text
    bos = tokenizer.convert_tokens_to_ids(tokenizer.bos_token) if tokenizer.bos_token else 0
    tokens = sum(len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)
    try:
        import minicons.scorer  # noqa: F401
        have_minicons = True
    except ImportError:
        have_minicons = False
    device = torch.cuda.get_device_name() if DEVICE == "cuda" else DEVICE
    print(f"{len(texts)} sentences, {tokens} scored tokens; {device}; torch {torch.__version__}", flush=True)
    report = {"device": device, "sentences": len(texts), "tokens": tokens, "models": {}}
    for name in args.models:
        config = LlamaConfig(**LLAMA_COMMON, **LLAMA[name])
        torch.manual_seed(0)
        clock = time.perf_counter()
        with torch.device(DEVICE):
            model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
        params = sum(p.numel() for p in model.parameters())
        # FLOPs a token needs: every matrix but the input embedding (a lookup); the output head counts.
        matrix = params - model.get_input_embeddings().weight.numel() + (
            model.get_output_embeddings().weight.numel() if config.tie_word_embeddings else 0)
        print(f"{name}: {params / 1e9:.2f} B parameters, built in {time.perf_counter() - clock:.1f} s", flush=True)
        rows = {}
        # one scorer per budget, made in the untimed run: like the other contenders, handed a loaded model
        scorers: dict[int, object] = {}

        def linguagym_run(budget: int, model=model, scorers=scorers):
            if budget not in scorers:
                scorers[budget] = scorer_on(model, tokenizer, Path(args.tokenizer_dir), "bfloat16", budget)
            return scorers[budget].score(texts)

        rows["linguagym"] = best_of("linguagym budget", args.budgets, linguagym_run)
        if args.cprofile:  # where the host's time goes in linguagym's best run
            import cProfile
            import pstats

            best = rows["linguagym"]["setting"]
            profiler = cProfile.Profile()
            profiler.runcall(linguagym_run, best)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        if args.torch_profile:  # where the wall time of linguagym's best run goes, per phase
            from gpu_profile import profile_run

            best = rows["linguagym"]["setting"]
            text = f"== {name}, linguagym at {best} tokens a pass, bfloat16, {DEVICE} ==\n" + profile_run(
                lambda b=best: linguagym_run(b), model, DEVICE == "cuda", rows["linguagym"]["seconds"])
            print(text, flush=True)
            with open(args.torch_profile, "a", encoding="utf-8") as handle:
                handle.write(text + "\n\n")
        if args.bow:  # the word-boundary correction's cost, same model and setting
            best = rows["linguagym"]["setting"]
            corrected: dict[int, object] = {}

            def bow_run(budget: int, model=model, corrected=corrected):
                if budget not in corrected:
                    corrected[budget] = scorer_on(model, tokenizer, Path(args.tokenizer_dir), "bfloat16", budget,
                                                  bow=True)
                return corrected[budget].score(texts)

            rows["linguagym, bow-corrected"] = best_of("linguagym bow-corrected budget", [best], bow_run)
        if args.linguagym_only:
            pass
        elif args.profile:
            best = rows["linguagym"]["setting"]
            print(top_kernels(lambda b=best: linguagym_run(b), count=8), flush=True)
        if not args.linguagym_only:
            rows["plain batched loop"] = best_of("plain batch", args.plain_batches,
                                                 lambda b, m=model: plain_loop(m, tokenizer, texts, bos, b))
        if have_minicons and not args.linguagym_only:
            rows["minicons"] = best_of("minicons batch", args.minicons_batches,
                                       lambda b, m=model: minicons_loop(m, tokenizer, texts, b))
        for row in rows.values():
            row["tokens_per_s"] = tokens / row["seconds"]
            row["peak_fraction"] = 2 * matrix * tokens / row["seconds"] / (args.peak_tflops * 1e12)
        report["models"][name] = {"parameters": params, "rows": rows}
        for contender, row in rows.items():
            print(f"  {contender:20} best {row['setting']:6}: {row['seconds']:.3f} s, {row['tokens_per_s']:,.0f} tok/s,"
                  f" peak {row['peak_bytes'] / 2**30:.1f} GiB, {100 * row['peak_fraction']:.1f}% of bf16 peak",
                  flush=True)
        del model
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


# -- linguagym's own decoders; a saved model for the CLI -----------------------------------------------------------


def native(args: argparse.Namespace) -> None:
    import platform

    import torch
    import transformers
    from gpu_native import native as compare

    texts = sentences(args.suites)[: args.sample or None]
    device = torch.cuda.get_device_name() if DEVICE == "cuda" else DEVICE
    print(f"{len(texts)} sentences; {device}; torch {torch.__version__}, transformers {transformers.__version__}, "
          f"Python {platform.python_version()}", flush=True)
    report = {"device": device, **compare(args, texts, synced)}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


def save(args: argparse.Namespace) -> None:
    """``args.model``'s shape, random weights in bfloat16, saved with the tokenizer files of ``--tokenizer-dir``."""
    import shutil

    import torch
    from gpu_native import TOKENIZER_FILES
    from transformers import AutoModelForCausalLM, LlamaConfig

    specials = json.loads((Path(args.tokenizer_dir) / "config.json").read_text(encoding="utf-8"))
    common = {**LLAMA_COMMON, **{k: specials.get(k) for k in ("bos_token_id", "eos_token_id", "pad_token_id")}}
    config = LlamaConfig(**common, **LLAMA[args.model])
    torch.manual_seed(0)
    with torch.device(DEVICE):  # drawn on the GPU: 8 B random numbers take minutes on the host
        seconds, model = synced(lambda: AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16))
    out = Path(args.out)
    clock = time.perf_counter()
    model.save_pretrained(out)
    for name in TOKENIZER_FILES:
        if (Path(args.tokenizer_dir) / name).is_file():
            shutil.copy(Path(args.tokenizer_dir) / name, out / name)
    size = sum(f.stat().st_size for f in out.iterdir())
    params = sum(p.numel() for p in model.parameters())
    print(f"{args.model}: {params / 1e9:.2f} B parameters built in {seconds:.1f} s, saved to {out} "
          f"({size / 2**30:.1f} GiB) in {time.perf_counter() - clock:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("attention")
    one.add_argument("--model-dir", required=True)
    one.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES])
    one.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16", "float16"])
    one.add_argument("--budgets", nargs="+", type=int, default=[4096, 16384, 65536])
    one.add_argument("--repeat", type=int, default=3)
    one.add_argument("--probe", action="store_true", help="first, which SDPA kernels take a tree mask")
    one.add_argument("--profile", action="store_true", help="print the CUDA kernels of one run per dtype")
    two = commands.add_parser("large")
    two.add_argument("--tokenizer-dir", required=True)
    two.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES])
    two.add_argument("--models", nargs="+", default=["llama-1b", "llama-3b", "llama-8b"], choices=list(LLAMA))
    two.add_argument("--budgets", nargs="+", type=int, default=[4096, 16384, 65536])
    two.add_argument("--plain-batches", nargs="+", type=int, default=[128, 512])
    two.add_argument("--minicons-batches", nargs="+", type=int, default=[128, 512])
    two.add_argument("--peak-tflops", type=float, default=989.0)
    two.add_argument("--profile", action="store_true", help="print the CUDA kernels of linguagym's best run")
    two.add_argument("--cprofile", action="store_true", help="print where the host's time goes in linguagym's "
                     "best run (Python's profiler)")
    two.add_argument("--linguagym-only", action="store_true", help="time linguagym alone")
    two.add_argument("--json")
    two.add_argument("--sample", type=int, default=0, help="the first N sentences only (to try the script out)")
    two.add_argument("--torch-profile", metavar="FILE", help="profile one run of linguagym's best setting per "
                     "model; append the summary (per phase: host and GPU time; GPU idle) to FILE")
    two.add_argument("--bow", action="store_true", help="also time linguagym's best setting with the "
                     "word-boundary correction")
    three = commands.add_parser("native", help="linguagym's own decoders against transformers, same weights")
    three.add_argument("--tokenizer-dir", required=True, help="tokenizer files and a config.json (its special ids)")
    three.add_argument("--configs", nargs="+", required=True, help="directories holding a config.json each")
    three.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES])
    three.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    three.add_argument("--budget", type=int, default=16384, help="tokens a pass (default 16384)")
    three.add_argument("--repeat", type=int, default=2)
    three.add_argument("--init-std", type=float, default=0.1)
    three.add_argument("--sample", type=int, default=0, help="the first N sentences only (to try the script out)")
    three.add_argument("--shrink", action="store_true", help="tiny layers of the same kind (to try it out on a CPU)")
    three.add_argument("--work-dir", default=None, help="where the random models are saved (default: $TMPDIR)")
    three.add_argument("--json")
    four = commands.add_parser("save", help="a random-weight model of a LLAMA shape in bfloat16, with a tokenizer")
    four.add_argument("--tokenizer-dir", required=True, help="tokenizer files and a config.json (its special ids)")
    four.add_argument("--model", default="llama-8b", choices=list(LLAMA))
    four.add_argument("--out", required=True)
    for command in (one, two, three, four):
        command.add_argument("--device", default="cuda", help="cuda (cpu: only to try the script out)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    {"attention": attention, "large": large, "native": native, "save": save}[args.command](args)


if __name__ == "__main__":
    main()
