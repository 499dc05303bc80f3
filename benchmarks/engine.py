"""Scoring-engine benchmark: linguagym against minicons and a plain Hugging Face loop, same sentences, same weights.

For each model (default: smollm2-135m, then gemma-3-270m) it scores the unique sentences of every suite given
(default: the 34 suites of ../shared/data/syntaxgym/suites/) with

  1. linguagym, cold: ``python -m linguagym.cli run`` from a fresh score cache (the de-quantised weights are
     already in place: fetching them is a one-time step, not scoring), end to end as a user runs it;
  2. linguagym, warm: the same command again, served from the score cache;
  3. minicons ``IncrementalLMScorer.token_score`` at batch size 1 and at its best batch size (chosen by a sweep
     on a sample, or ``--minicons-best``), sentences in suite order as a user would pass them;
  4. a plain loop: one sentence at a time, ``model(ids).logits.log_softmax(-1)``.

Each contender runs in its own child process, timed end to end (imports and model load included), with its peak
resident memory from ``wait4``. Alongside: unique tokens per second, and the compute bound, 2 x parameters x
tokens scored divided by the float32 matrix-multiply throughput measured on this machine. linguagym's and
minicons' surprisals are compared with the plain loop's (largest |difference| per token and per region sum).

Extra dependency (benchmark only, never needed by linguagym): minicons, in a separate environment that reuses
linguagym's torch and transformers, e.g.

    python3.11 -m venv ../bench-venv
    echo "$PWD/.venv/lib/python3.11/site-packages" > ../bench-venv/lib/python3.11/site-packages/linguagym.pth
    ../bench-venv/bin/pip install minicons   # its torch/transformers requirements are met through the .pth
    ../bench-venv/bin/python benchmarks/engine.py

(or ``pip install --no-deps minicons pandas wonderwords`` into linguagym's own environment). Without minicons the
minicons rows are reported as skipped. Run from the repository root. ``--help`` lists the options.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # linguagym from this checkout, whichever environment runs the script
DEFAULT_SUITES = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites" / "*.json")


# -- workers (child processes) ---------------------------------------------------------------------------------


def _threads() -> int:
    """Every contender gets the thread count linguagym would pick (``LINGUAGYM_THREADS`` overrides)."""
    from linguagym.scoring.engine.device import configure_cpu_threads

    return configure_cpu_threads()


def _load(model_dir: str, device: str):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device).eval()
    return model, tokenizer


def worker_plain(args: argparse.Namespace) -> dict:
    import math

    import torch

    _threads()
    texts = json.loads(Path(args.texts).read_text())
    started = time.perf_counter()
    model, tokenizer = _load(args.model_dir, args.device)
    loaded = time.perf_counter()
    values = []
    with torch.inference_mode():
        for text in texts:
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            if not ids:
                values.append([])
                continue
            full = torch.tensor([[args.bos_id, *ids]], device=args.device)
            logp = model(full).logits[0, :-1].float().log_softmax(-1)
            picked = logp.gather(-1, full[0, 1:, None]).squeeze(-1)
            values.append((-picked / math.log(2)).cpu().tolist())
    done = time.perf_counter()
    params = sum(p.numel() for p in model.parameters())
    return {"load_s": loaded - started, "score_s": done - loaded, "params": params, "values": values,
            "tokens": sum(len(v) for v in values)}


def worker_minicons(args: argparse.Namespace) -> dict:
    from minicons import scorer as minicons_scorer

    _threads()
    texts = json.loads(Path(args.texts).read_text())
    started = time.perf_counter()
    model, tokenizer = _load(args.model_dir, args.device)
    tokenizer.bos_token = args.bos_token  # minicons prepends the tokenizer's BOS text; use linguagym's start token
    lm = minicons_scorer.IncrementalLMScorer(model, device=args.device, tokenizer=tokenizer)
    # A tokenizer that adds its BOS itself (Gemma's) would get a second one from minicons' bos_token=True.
    adds_bos = tokenizer("a")["input_ids"][:1] == [tokenizer.convert_tokens_to_ids(args.bos_token)]
    options = {"surprisal": True, "base_two": True, "bos_token": not adds_bos}
    loaded = time.perf_counter()
    sweep = {}
    batch = args.batch
    if args.sweep:
        sample = texts[: args.sample]
        for size in [int(s) for s in args.sweep.split(",")]:
            clock = time.perf_counter()
            for start in range(0, len(sample), size):
                lm.token_score(sample[start : start + size], **options)
            sweep[size] = time.perf_counter() - clock
        batch = min(sweep, key=sweep.get)
        return {"sweep": sweep, "best": batch}
    values = []
    clock = time.perf_counter()
    for start in range(0, len(texts), batch):
        for row in lm.token_score(texts[start : start + batch], **options):
            if row and row[0][0] == args.bos_token:  # the start token is context, not scored
                row = row[1:]
            values.append([float(score) for _, score in row])
    done = time.perf_counter()
    return {"load_s": loaded - started, "score_s": done - clock, "values": values, "batch": batch,
            "tokens": sum(len(v) for v in values)}


def worker_matmul(args: argparse.Namespace) -> dict:
    import torch

    _threads()
    best = 0.0
    for n in (1024, 2048, 4096):
        a = torch.randn(n, n, device=args.device)
        b = torch.randn(n, n, device=args.device)
        for _ in range(2):
            a @ b
        for _ in range(3):
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            clock = time.perf_counter()
            repeat = 3 if args.device == "cpu" else 50
            for _ in range(repeat):
                a @ b
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            best = max(best, 2 * n**3 * repeat / (time.perf_counter() - clock))
    return {"flops": best}


# -- the orchestrating process -----------------------------------------------------------------------------------


def child(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int, int, str]:
    """Run ``command``; (wall seconds, peak RSS in bytes, exit status, its output tail)."""
    clock = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - clock
        log.seek(0)
        tail = log.read().decode(errors="replace")[-2000:]
    return wall, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), tail


def run_worker(kind: str, options: list[str], python: str, env: dict[str, str]) -> tuple[dict, float, int]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    wall, rss, code, tail = child([python, str(Path(__file__)), "_worker", kind, "--out", path, *options], env)
    if code != 0:
        raise RuntimeError(f"{kind} worker failed ({code}):\n{tail}")
    result = json.loads(Path(path).read_text())
    os.unlink(path)
    return result, wall, rss


def cold_cache(weights: Path, into: Path) -> Path:
    """A score cache with no scores, sharing the de-quantised weights of ``weights``."""
    into.mkdir(parents=True)
    for name in ("models", "downloads"):
        if (weights / name).is_dir():
            (into / name).symlink_to(weights / name)
    if (weights / "hashes.json").is_file():
        shutil.copy(weights / "hashes.json", into / "hashes.json")
    return into


def max_differences(suites, texts, ours, reference, values=None) -> tuple[float, float] | None:
    """Largest |difference| per token and per region sum between ``values`` (default: linguagym's own) and
    ``reference`` values, on linguagym's tokens and regions; None where the tokenisations differ."""
    import dataclasses

    from linguagym.evaluation.evaluate import evaluate_suite

    def rebuild(table):
        built = {}
        for text, scored, row in zip(texts, ours, table, strict=True):
            if len(row) != len(scored.tokens):
                return None
            built[text] = dataclasses.replace(scored, tokens=tuple(
                dataclasses.replace(t, surprisal=float(v)) for t, v in zip(scored.tokens, row, strict=True)))
        return built

    mine = dict(zip(texts, ours, strict=True)) if values is None else rebuild(values)
    theirs = rebuild(reference)
    if mine is None or theirs is None:
        return None
    token = max((abs(a.surprisal - b.surprisal) for text in texts
                 for a, b in zip(mine[text].tokens, theirs[text].tokens, strict=True)), default=0.0)
    region = 0.0 if suites else float("nan")
    for suite in suites:
        left, right = evaluate_suite(suite, mine), evaluate_suite(suite, theirs)
        for x, y in zip(left.conditions, right.conditions, strict=True):
            for number, metrics in x.values.items():
                region = max(region, abs(metrics["sum"] - y.values[number]["sum"]))
    return token, region


def _agreement(suites, texts, ours, reference, values=None):
    return max_differences(suites, texts, ours, reference, values)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu}, {cores} usable cores, {platform.system()} {platform.release()}, load average {load:.1f} at start"


def benchmark(args: argparse.Namespace) -> None:
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.scoring import load_scorer
    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.suites.load import read_suite

    paths = sorted(p for pattern in args.suites for p in glob.glob(pattern))
    if not paths:
        sys.exit(f"no suites match {args.suites}")
    suites = [read_suite(p).suite for p in paths]
    texts = list(dict.fromkeys(s.text for suite in suites for s in suite_sentences(suite)))
    weights = resolve_cache_dir(Path(args.weights_cache) if args.weights_cache else None)
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    python = sys.executable
    try:
        import minicons  # noqa: F401

        has_minicons = True
    except ImportError:
        has_minicons = False
    work = Path(tempfile.mkdtemp(prefix="linguagym-bench-"))
    texts_file = work / "texts.json"
    texts_file.write_text(json.dumps(texts))
    step = max(1, -(-len(texts) // args.sample)) if args.sample else 1
    sample = texts[::step]
    sample_file = work / "sample.json"
    sample_file.write_text(json.dumps(sample))
    suites_for_cli = paths
    flops, _, _ = run_worker("matmul", ["--device", args.device], python, env)
    report = {"machine": machine(), "device": args.device, "suites": len(paths), "sentences": len(texts),
              "matmul_flops": flops["flops"], "python": python, "command": " ".join(sys.argv), "models": {}}
    print(f"# {report['machine']}; float32 matmul {flops['flops'] / 1e9:.0f} GFLOP/s", flush=True)
    for model in args.models:
        cache = cold_cache(weights, work / f"cache-{model}")
        probe = load_scorer(model, cache_dir=cache)  # identity only: no weights, no torch
        identity = probe.identity
        from linguagym import assets

        model_dir = str(assets.fetch_named_model(model, cache)) if model in assets.NAMED_MODELS else model
        rows = {}
        cli = [python, "-m", "linguagym.cli", "run", "--model", model, "--cache-dir", str(cache),
               "--device", args.device, "--dtype", "float32", "-o", str(work / f"out-{model}"), *suites_for_cli]
        if args.batch_size:
            cli[cli.index("--dtype"):cli.index("--dtype")] = ["--batch-size", str(args.batch_size)]
        for label in ("linguagym (cold cache)", "linguagym (warm cache)"):
            wall, rss, code, tail = child(cli, env)
            if code != 0:
                raise RuntimeError(f"linguagym run failed ({code}):\n{tail}")
            rows[label] = {"wall_s": wall, "rss": rss}
            print(f"{model}: {label}: {wall:.1f} s, {rss / 2**20:.0f} MiB", flush=True)
        if args.transformers_decoder:  # the same command through transformers' model code, from its own cold cache
            other = [*cli, "--model-args", "native=false"]
            other[other.index("--cache-dir") + 1] = str(cold_cache(weights, work / f"cache-{model}-transformers"))
            wall, rss, code, tail = child(other, env)
            if code != 0:
                raise RuntimeError(f"linguagym run --model-args native=false failed ({code}):\n{tail}")
            rows["linguagym, transformers' decoder (cold cache)"] = {"wall_s": wall, "rss": rss}
            print(f"{model}: transformers' decoder (cold cache): {wall:.1f} s, {rss / 2**20:.0f} MiB", flush=True)
        if args.torch_products:  # the same command with torch's float32 products, from its own cold cache
            other = list(cli)
            other[other.index("--cache-dir") + 1] = str(cold_cache(weights, work / f"cache-{model}-torch-products"))
            wall, rss, code, tail = child(other, {**env, "LINGUAGYM_ONEDNN": "0"})
            if code != 0:
                raise RuntimeError(f"linguagym run with LINGUAGYM_ONEDNN=0 failed ({code}):\n{tail}")
            rows["linguagym, torch's products (cold cache)"] = {"wall_s": wall, "rss": rss}
            print(f"{model}: torch's products (cold cache): {wall:.1f} s, {rss / 2**20:.0f} MiB", flush=True)
        ours = load_scorer(model, cache_dir=cache).score(texts)  # served from the cache just filled
        tokens = sum(len(s.tokens) for s in ours)
        common = ["--model-dir", model_dir, "--texts", str(texts_file), "--device", args.device]
        # One-sentence-at-a-time contenders may run on every step-th sentence, their time scaled up by tokens.
        one = ["--model-dir", model_dir, "--texts", str(sample_file), "--device", args.device]
        ours_sample = [s for s in ours[::step]]
        sample_tokens = sum(len(s.tokens) for s in ours_sample)

        def scaled(wall: float, result: dict, factor: float = tokens / sample_tokens) -> float:
            return wall - result["score_s"] + result["score_s"] * factor

        note = f" (timed on {len(sample)} sentences, scaled)" if step > 1 else ""
        plain, wall, rss = run_worker("plain", [*one, "--bos-id", str(identity["bos_token_id"])], python, env)
        rows["plain HF loop (1 sentence at a time)" + note] = {"wall_s": scaled(wall, plain), "rss": rss}
        print(f"{model}: plain loop: {wall:.1f} s on {len(sample)} sentences, {rss / 2**20:.0f} MiB", flush=True)
        if has_minicons:
            best = args.minicons_best
            if best is None:
                sweep, _, _ = run_worker("minicons", [*common, "--bos-token", identity["bos_token"], "--batch", "1",
                                                      "--sweep", args.minicons_sweep, "--sample",
                                                      str(args.minicons_sample)], python, env)
                best = sweep["best"]
                report.setdefault("minicons_sweep", {})[model] = sweep["sweep"]
                print(f"{model}: minicons sweep {sweep['sweep']} -> {best}", flush=True)
            for size in dict.fromkeys([1, best]):
                if size == 1 and args.skip_minicons_1:
                    continue
                sampled = size == 1 or args.sample_batched
                options = [*(one if sampled else common), "--bos-token", identity["bos_token"], "--batch", str(size)]
                result, wall, rss = run_worker("minicons", options, python, env)
                label = f"minicons IncrementalLMScorer, batch {size}" + (" (best)" if size == best else "")
                values = result["values"]
                if sampled:
                    label, wall = label + note, scaled(wall, result)
                else:
                    values = values[::step]
                rows[label] = {"wall_s": wall, "rss": rss, "values": values}
                print(f"{model}: {label}: {wall:.1f} s, {rss / 2**20:.0f} MiB", flush=True)
        # Agreement with the plain loop, on the sentences it scored (regions only where it scored them all).
        whole = step == 1
        for row in rows.values():
            values = row.pop("values", None)
            if values is not None:
                row["diff"] = _agreement(suites if whole else [], sample, ours_sample, plain["values"], values)
        rows["linguagym (cold cache)"]["diff"] = _agreement(suites if whole else [], sample, ours_sample,
                                                            plain["values"])
        token_diff, region_diff = rows["linguagym (cold cache)"]["diff"] or (float("nan"), float("nan"))
        bound = 2 * plain["params"] * tokens / flops["flops"]
        report["models"][model] = {"params": plain["params"], "tokens": tokens, "bound_s": bound, "rows": rows}
        print(f"{model}: {tokens} tokens, {plain['params'] / 1e6:.1f} M parameters, compute bound {bound:.1f} s; "
              f"linguagym vs plain loop: max |Δ| token {token_diff:.2e}, region {region_diff:.2e} bits", flush=True)
    print()
    print(table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def table(report: dict) -> str:
    lines = [
        f"Machine: {report['machine']}; device {report['device']}; float32 matmul "
        f"{report['matmul_flops'] / 1e9:.0f} GFLOP/s. {report['suites']} suites, "
        f"{report['sentences']} unique sentences.",
        "",
        "| model | scorer | wall time | unique tokens/s | x compute bound | peak RSS "
        "| max \\|Δ\\| vs plain loop (token / region, bits) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for model, data in report["models"].items():
        lines.append(f"| {model} | compute bound: 2 x {data['params'] / 1e6:.1f} M params x {data['tokens']:,} tokens "
                     f"| {data['bound_s']:.1f} s | | 1.0 | | |")
        for label, row in data["rows"].items():
            found = row.get("diff", "")
            diff = ((f"{found[0]:.1e} / {found[1]:.1e}" if found[1] == found[1] else f"{found[0]:.1e} / n/a")
                    if found else
                    "tokenised differently" if "diff" in row else "—" if label.startswith("plain") else "")
            lines.append(
                f"| {model} | {label} | {row['wall_s']:.1f} s | {data['tokens'] / row['wall_s']:,.0f} | "
                f"{row['wall_s'] / data['bound_s']:.2f} | {row['rss'] / 2**20:,.0f} MiB | {diff} |"
            )
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_worker":
        kind = sys.argv[2]
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", required=True)
        parser.add_argument("--model-dir")
        parser.add_argument("--texts")
        parser.add_argument("--device", default="cpu")
        parser.add_argument("--bos-id", type=int)
        parser.add_argument("--bos-token")
        parser.add_argument("--batch", type=int, default=1)
        parser.add_argument("--sweep")
        parser.add_argument("--sample", type=int, default=256)
        args = parser.parse_args(sys.argv[3:])
        result = {"plain": worker_plain, "minicons": worker_minicons, "matmul": worker_matmul}[kind](args)
        Path(args.out).write_text(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES], help="suite files or globs")
    parser.add_argument("--models", nargs="+", default=["smollm2-135m", "gemma-3-270m"])
    parser.add_argument("--device", default="cpu", help="cpu or cuda (the same for every contender)")
    parser.add_argument("--batch-size", type=int, help="linguagym's --batch-size (default: its own)")
    parser.add_argument("--weights-cache", help="linguagym cache holding the de-quantised named models "
                        "(default: $LINGUAGYM_CACHE_DIR or the user cache)")
    parser.add_argument("--minicons-sweep", default="4,16,64", help="batch sizes tried on a sample")
    parser.add_argument("--minicons-sample", type=int, default=256, help="sentences in that sample")
    parser.add_argument("--minicons-best", type=int, help="skip the sweep and use this batch size")
    parser.add_argument("--sample", type=int, help="time the one-sentence-at-a-time contenders (plain loop, "
                        "minicons at batch 1) on about this many sentences, every k-th, and scale their time by tokens")
    parser.add_argument("--sample-batched", action="store_true", help="time minicons at its best batch size on "
                        "that sample too (scaled by tokens)")
    parser.add_argument("--skip-minicons-1", action="store_true", help="skip minicons at batch size 1")
    parser.add_argument("--torch-products", action="store_true", help="also time linguagym cold with "
                        "LINGUAGYM_ONEDNN=0 (torch's float32 products instead of oneDNN's with packed weights)")
    parser.add_argument("--transformers-decoder", action="store_true", help="also time linguagym cold with "
                        "--model-args native=false (transformers' model code instead of linguagym's own decoder)")
    parser.add_argument("--json", help="also write the raw results here")
    benchmark(parser.parse_args())


if __name__ == "__main__":
    main()
