"""linguagym's own decoders (``scoring/native/llama.py``, ``native_gemma3.py``) against transformers on the same
weights and device (``gpu_engine.py native``; issue 42).

For each configuration directory (a config.json: smollm2-135m's Llama shape, gemma-3-270m's Gemma 3 shape), a
model with random weights is saved (float32 safetensors, with the tokenizer files of ``--tokenizer-dir``: any
tokenizer whose ids fit the vocabulary will do), then, per dtype, loaded twice through linguagym's own loader
(``CausalScorer``: model argument ``native=true``, the default, and ``native=false``, transformers' model code)
and both score the same sentences, by prefix trees (``--budget`` tokens a pass) and by plain batches (4,096).
Reported: which class loaded, load and scoring seconds (best of ``--repeat`` after a warm-up), peak GPU memory,
and the largest per-token surprisal difference between the two (and of each against transformers in float32,
the reference).

Random weights are drawn with a standard deviation of ``--init-std`` (0.1 by default, not the configs' 0.02)
so that the distributions are far from uniform and a difference in the arithmetic shows in the surprisals.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
PLAIN_BUDGET = 4096  # tokens a plain pass
SHRUNK = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 16}  # --shrink: to try the script out on a CPU


def save_random(config_dir: Path, tokenizer_dir: Path, out: Path, device: str, *, shrink: bool,
                init_std: float) -> dict[str, Any]:
    """A model of ``config_dir``'s configuration with random weights, saved in float32 to ``out`` with the
    tokenizer files; its configuration (as saved) is returned."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = json.loads((config_dir / "config.json").read_text(encoding="utf-8"))
    tokens = json.loads((tokenizer_dir / "config.json").read_text(encoding="utf-8"))
    for key in ("bos_token_id", "eos_token_id", "pad_token_id"):  # the tokenizer's specials, not the config's
        config[key] = tokens.get(key)
    if shrink:
        config.update(SHRUNK)
        if "layer_types" in config:
            config["layer_types"] = config["layer_types"][: SHRUNK["num_hidden_layers"] - 1] + ["full_attention"]
        if "query_pre_attn_scalar" in config:
            config["query_pre_attn_scalar"] = SHRUNK["head_dim"]
    config["initializer_range"] = init_std
    config.pop("transformers_version", None)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config), encoding="utf-8")
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(out), dtype=torch.float32)
    model.save_pretrained(out)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).is_file():
            shutil.copy(tokenizer_dir / name, out / name)
    del model
    return json.loads((out / "config.json").read_text(encoding="utf-8"))


def score_both_ways(directory: Path, texts: list[str], dtype: str, device: str, budget: int, repeat: int,
                    synced: Any) -> dict[str, Any]:
    """Per loader (native, transformers): class, seconds, peak memory and the flat surprisals, tree and plain."""
    import torch

    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.huggingface.causal import CausalScorer
    from linguagym.scoring.huggingface.sources import resolve_source
    from linguagym.scoring.model_args import ModelArgs

    found: dict[str, Any] = {}
    for loader in ("native", "transformers"):
        source = resolve_source(str(directory), resolve_cache_dir(), ModelArgs(native=loader == "native"))
        scorer = CausalScorer(source, dtype=dtype, device=device, batch_tokens=budget)
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        load_s, loaded = synced(lambda s=scorer: s.lm.loaded)
        row: dict[str, Any] = {"class": type(loaded.model).__name__, "load_s": round(load_s, 3),
                               "device": str(next(loaded.model.parameters()).device)}
        for way, sharing in (("tree", True), ("plain", False)):
            # plain batches hold the full float32 logits: 4096 tokens (the CLI's default) x 262,144 words is 4 GiB
            user = scorer if sharing else CausalScorer.on(scorer.lm, batch_tokens=min(budget, PLAIN_BUDGET),
                                                          prefix_sharing=False)
            user.score(texts)  # untimed
            times, values = [], None
            for _ in range(repeat):
                seconds, scored = synced(lambda u=user: u.score(texts))
                times.append(seconds)
                values = [t.surprisal for s in scored for t in s.tokens]
            row[f"{way}_s"] = round(min(times), 4)
            row[f"{way}_values"] = values
        row["peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None
        found[loader] = row
        del scorer, loaded, user
        if device == "cuda":
            torch.cuda.empty_cache()
    return found


def largest_difference(a: list[float], b: list[float]) -> dict[str, float]:
    import numpy as np

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both = np.isfinite(x) & np.isfinite(y)
    d = np.abs(x[both] - y[both])
    return {"max_abs_bits": float(d.max(initial=0.0)), "mean_abs_bits": float(d.mean()) if d.size else 0.0,
            "non_finite": int((~both).sum())}


def native(args: Any, texts: list[str], synced: Any) -> dict[str, Any]:
    """The comparison for every ``--configs`` directory and ``--dtypes``; printed as it goes, returned for JSON."""
    report: dict[str, Any] = {"sentences": len(texts), "budget": args.budget, "init_std": args.init_std,
                              "models": {}}
    with tempfile.TemporaryDirectory(dir=args.work_dir) as work:
        for config_dir in map(Path, args.configs):
            name = config_dir.name
            directory = Path(work) / name
            saved = save_random(config_dir, Path(args.tokenizer_dir), directory, args.device, shrink=args.shrink,
                                init_std=args.init_std)
            print(f"{name}: {saved.get('model_type')}, {saved['num_hidden_layers']} layers, hidden "
                  f"{saved['hidden_size']}, vocabulary {saved['vocab_size']} (random weights, std {args.init_std})",
                  flush=True)
            per_dtype: dict[str, Any] = {}
            for dtype in args.dtypes:
                try:
                    per_dtype[dtype] = score_both_ways(directory, texts, dtype, args.device, args.budget, args.repeat,
                                                       synced)
                except Exception as error:  # noqa: BLE001 (report it and go on with the next)
                    per_dtype[dtype] = {"error": f"{type(error).__name__}: {error}"}
                    print(f"  {dtype}: FAILED {type(error).__name__}: {error}", flush=True)
            reference = per_dtype.get("float32", {}).get("transformers", {}).get("tree_values")
            summary = {}
            for dtype, found in per_dtype.items():
                if "error" in found:
                    summary[dtype] = found
                    continue
                entry: dict[str, Any] = {}
                for loader, row in found.items():
                    entry[loader] = {k: v for k, v in row.items() if not k.endswith("_values")}
                    entry[loader]["mean_surprisal_bits"] = round(sum(row["tree_values"]) / len(row["tree_values"]), 3)
                    if reference is not None:
                        entry[loader]["tree_vs_transformers_float32"] = largest_difference(row["tree_values"],
                                                                                           reference)
                for way in ("tree", "plain"):
                    entry[f"native_vs_transformers_{way}"] = largest_difference(
                        found["native"][f"{way}_values"], found["transformers"][f"{way}_values"])
                summary[dtype] = entry
                n, t = entry["native"], entry["transformers"]
                print(f"  {dtype:9} native {n['class']} on {n['device']}: load {n['load_s']:.2f} s, tree "
                      f"{n['tree_s']:.3f} s, plain {n['plain_s']:.3f} s, peak {n['peak_gib']} GiB | "
                      f"transformers {t['class']}: load {t['load_s']:.2f} s, tree {t['tree_s']:.3f} s, plain "
                      f"{t['plain_s']:.3f} s, peak {t['peak_gib']} GiB", flush=True)
                print(f"  {'':9} max |native - transformers| per token: tree "
                      f"{entry['native_vs_transformers_tree']['max_abs_bits']:.2e} bits, plain "
                      f"{entry['native_vs_transformers_plain']['max_abs_bits']:.2e} bits"
                      + (f"; vs transformers float32 (tree): native "
                         f"{n['tree_vs_transformers_float32']['max_abs_bits']:.2e}, transformers "
                         f"{t['tree_vs_transformers_float32']['max_abs_bits']:.2e}" if reference else "")
                      + f"; mean surprisal {n['mean_surprisal_bits']} bits", flush=True)
            report["models"][name] = {"config": {k: saved.get(k) for k in ("model_type", "hidden_size",
                                                                            "num_hidden_layers", "vocab_size")},
                                      "dtypes": summary}
            shutil.rmtree(directory, ignore_errors=True)
    return report
