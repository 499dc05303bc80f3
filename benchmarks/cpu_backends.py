"""CPU inference engines as scoring backends: linguagym's torch path against CTranslate2 and ONNX Runtime, same
sentences, one run.

Over the unique sentences of the suites (default: the 34 suites of ../shared/data/syntaxgym/suites/, or every
k-th item of each suite with ``--sample N`` sentences), each contender scores every sentence in its own child
process, timed with its peak resident memory (``wait4``):

  torch          linguagym's engine as ``linguagym run`` uses it: ``load_scorer(model, dtype=float32)`` with prefix
                 trees, packed passes and the float32 blocked normaliser (``.score(texts)``);
  torch-bfloat16, torch-bfloat16-mixed
                 the same engine with ``dtype="bfloat16"`` (bfloat16 weights and arithmetic) or ``"bfloat16-mixed"``
                 (float32 weights, matrix products in bfloat16 under torch.autocast): fast only on CPUs with
                 bfloat16 instructions (AVX512-BF16, AMX), whose flags the report names;
  ct2-float32    CTranslate2 ``Generator.score_batch`` on a float32 conversion of the same weights (per-token
                 log-probabilities of whole sentences, length-sorted batches of ``--batch-tokens`` tokens);
  ct2-int8       the same, ``compute_type="int8"`` (weights quantised to int8 when the model loads);
  ort            ONNX Runtime running the transformer body in linguagym's own engine: the same prefix trees,
                 passes, tree masks and positions as ``torch``, the body (embeddings to the final norm) exported
                 once to ONNX (``torch.onnx.export``, the mask and positions as inputs) and run by an
                 ``InferenceSession`` (all graph optimisations); the projection and normaliser stay linguagym's.
                 So it computes exactly the positions torch computes, and only the engine running the body differs.
  openvino       the same, with the same ONNX file read and compiled by OpenVINO's CPU plugin, its inference
                 precision held at float32 (``INFERENCE_PRECISION_HINT``: on a CPU with bfloat16 instructions its
                 default would be bfloat16), latency mode, the contenders' thread count.

Every contender gets the same start token, the same token ids (linguagym's tokenizer; CTranslate2 is given the
token pieces) and the same thread count. Repeats are interleaved (A B C, then C B A, ...) so that load on a
shared machine hits every contender alike. Reported (medians over the repeats): process wall time, model load
time, scoring time and its CPU seconds (user + system of every thread: on a shared machine less disturbed than wall
time), scored tokens per second of scoring, the ratios to torch, peak RSS, and against the float32 torch values:
the largest and mean |difference| per token and per region sum (bits), and the suites whose accuracy changes.
``--reference cache`` takes the float32 torch values from linguagym's score cache instead and times only the
CTranslate2 backends (for accuracy over all sentences without a torch run).

Extra dependencies (benchmark only): ``pip install ctranslate2``; ``pip install onnxruntime onnx`` for ``ort``
(the export, once per model, is kept under ``<cache>/onnx/``); ``pip install openvino`` (and ``onnx`` for the
export) for ``openvino``. CTranslate2's converter reads the de-quantised Hugging
Face copy of the named model in the linguagym cache (``linguagym models --fetch smollm2-135m``) offline and
writes the conversion once under ``<cache>/ctranslate2/``. Run from the repository root; ``--help`` lists the
options.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # linguagym from this checkout, whichever environment runs the script
DEFAULT_SUITES = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites" / "*.json")
LN2 = math.log(2.0)
BACKENDS = ("torch", "torch-bfloat16", "torch-bfloat16-mixed", "ct2-float32", "ct2-int8", "ort", "openvino")


# -- workers (child processes) ---------------------------------------------------------------------------------


def worker_torch(args: argparse.Namespace) -> dict:
    """linguagym's own scorer, no score cache; the thread count comes from ``LINGUAGYM_THREADS``."""
    from linguagym.scoring import load_scorer

    texts = json.loads(Path(args.texts).read_text())
    started = time.perf_counter()
    scorer = load_scorer(args.model, dtype=args.dtype or "float32", device="cpu", score_cache=False,
                         cache_dir=Path(args.cache))
    scorer.warm_up()
    loaded, cpu = time.perf_counter(), time.process_time()
    scored = scorer.score(texts)
    done = time.perf_counter()
    return {"load_s": loaded - started, "score_s": done - loaded, "score_cpu_s": time.process_time() - cpu,
            "bos": scorer.lm.bos_token,
            "tokens": [[t.to_json() for t in s.tokens] for s in scored]}


def worker_ct2(args: argparse.Namespace) -> dict:
    """CTranslate2's scoring of whole sentences, the start token first; log-probabilities turned into bits."""
    import ctranslate2

    pieces = json.loads(Path(args.texts).read_text())  # per sentence: [start token, its token pieces...]
    started = time.perf_counter()
    generator = ctranslate2.Generator(args.ct2_dir, device="cpu", compute_type=args.compute_type,
                                      intra_threads=args.threads, inter_threads=1)
    loaded, cpu = time.perf_counter(), time.process_time()
    order = sorted(range(len(pieces)), key=lambda i: len(pieces[i]))  # little padding in each batch
    results = generator.score_batch([pieces[i] for i in order], max_batch_size=args.batch_tokens,
                                    batch_type="tokens")
    done = time.perf_counter()
    values: list[list[float]] = [[] for _ in pieces]
    for i, result in zip(order, results, strict=True):
        values[i] = [-lp / LN2 for lp in result.log_probs]
    return {"load_s": loaded - started, "score_s": done - loaded, "score_cpu_s": time.process_time() - cpu,
            "values": values,
            "version": ctranslate2.__version__}


class _OrtModel:
    """The loaded model with its body (``base_model``) run by an ONNX Runtime session (or anything with its ``run``):
    what the engine's tree passes call, ``base(input_ids=..., attention_mask=..., position_ids=...,
    use_cache=False).last_hidden_state``; the rest (configuration, output embeddings, parameters) is the model's
    own."""

    def __init__(self, model: object, session: object) -> None:
        self._model, self._session = model, session

    def __getattr__(self, name: str) -> object:
        return getattr(self._model, name)

    @property
    def base_model(self) -> _OrtModel:
        return self

    def __call__(self, *, input_ids, attention_mask, position_ids, use_cache=False):  # noqa: ARG002
        import torch

        feeds = {"ids": input_ids.numpy(), "mask": attention_mask.numpy(), "pos": position_ids.numpy()}
        return dataclasses.make_dataclass("Out", ["last_hidden_state"])(
            torch.from_numpy(self._session.run(None, feeds)[0]))


def _export_body(model: object, texts: list[str], tokenizer: object, path: Path) -> None:
    """Export the model's body with a tree pass's inputs (ids, 4-D float mask, positions), dynamic in batch and
    width."""
    import torch

    from linguagym.scoring.engine import prefix
    from linguagym.scoring.huggingface.base import encode_many

    class Body(torch.nn.Module):
        def __init__(self, base: torch.nn.Module) -> None:
            super().__init__()
            self.base = base

        def forward(self, ids, mask, pos):
            return self.base(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=False).last_hidden_state

    rows, _ = prefix.pack([[0, *e.ids] for e in encode_many(tokenizer, texts[:16])], 256)
    inputs = prefix._pass_inputs(rows, list(range(len(rows))))
    example = (torch.from_numpy(inputs.ids), prefix.tree_mask(inputs.up, inputs.depth, torch.float32, "cpu"),
               torch.from_numpy(inputs.positions))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.onnx.export(Body(model.base_model).eval(), example, str(partial), input_names=["ids", "mask", "pos"],
                      output_names=["hidden"], opset_version=17, dynamo=False,
                      dynamic_axes={"ids": {0: "batch", 1: "width"}, "mask": {0: "batch", 2: "width", 3: "keys"},
                                    "pos": {0: "batch", 1: "width"}, "hidden": {0: "batch", 1: "width"}})
    partial.replace(path)


def _score_with_body(args: argparse.Namespace, open_session, version: str) -> dict:
    """linguagym's engine with the body exported to ONNX (once, kept at ``args.onnx``) and run by the session
    ``open_session(path)`` opens (anything with ONNX Runtime's ``run``); timings split into load, export, scoring."""
    from linguagym.scoring import load_scorer

    texts = json.loads(Path(args.texts).read_text())
    started = time.perf_counter()
    scorer = load_scorer(args.model, dtype="float32", device="cpu", score_cache=False, cache_dir=Path(args.cache))
    scorer.warm_up()
    path = Path(args.onnx)
    exported = time.perf_counter()
    if not path.is_file():
        _export_body(scorer.loaded.model, texts, scorer.loaded.tokenizer, path)
    exported = time.perf_counter() - exported
    scorer.loaded.model = _OrtModel(scorer.loaded.model, open_session(path))
    loaded, cpu = time.perf_counter(), time.process_time()
    scored = scorer.score(texts)
    done = time.perf_counter()
    return {"load_s": loaded - started - exported, "export_s": exported, "score_s": done - loaded,
            "score_cpu_s": time.process_time() - cpu, "values": [[t.surprisal for t in s.tokens] for s in scored],
            "version": version}


def worker_ort(args: argparse.Namespace) -> dict:
    """linguagym's engine with the body run by ONNX Runtime (see the module's doc)."""
    import onnxruntime

    def open_session(path: Path) -> object:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = args.threads, 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    return _score_with_body(args, open_session, onnxruntime.__version__)


class _OpenVinoSession:
    """An OpenVINO compiled model behind ONNX Runtime's ``run(None, feeds)``."""

    def __init__(self, compiled: object) -> None:
        self._request = compiled.create_infer_request()

    def run(self, _outputs: object, feeds: dict) -> list:
        self._request.infer(feeds)
        return [self._request.get_output_tensor(0).data.copy()]


def worker_openvino(args: argparse.Namespace) -> dict:
    """linguagym's engine with the body run by OpenVINO from the ONNX export (see the module's doc)."""
    import openvino

    def open_session(path: Path) -> object:
        core = openvino.Core()
        return _OpenVinoSession(core.compile_model(core.read_model(str(path)), "CPU", {
            "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": args.threads, "PERFORMANCE_HINT": "LATENCY"}))

    return _score_with_body(args, open_session, openvino.__version__)


def worker_convert(args: argparse.Namespace) -> dict:
    """Convert the Hugging Face directory to CTranslate2 (float32), offline."""
    from ctranslate2.converters import TransformersConverter

    started = time.perf_counter()
    TransformersConverter(args.model_dir).convert(args.ct2_dir, quantization="float32", force=True)
    return {"convert_s": time.perf_counter() - started}


# -- the orchestrating process -----------------------------------------------------------------------------------


def run_worker(kind: str, options: list[str], env: dict[str, str]) -> tuple[dict, float, int]:
    """Run a worker in a child process: (its result, wall seconds, peak RSS in bytes)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    clock = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([sys.executable, str(Path(__file__)), "_worker", kind, "--out", path, *options],
                                   stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - clock
        log.seek(0)
        tail = log.read().decode(errors="replace")[-3000:]
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{kind} worker failed:\n{tail}")
    result = json.loads(Path(path).read_text())
    os.unlink(path)
    return result, wall, usage.ru_maxrss * 1024


def sampled_suites(paths: list[str], sample: int | None):
    """The suites, or every k-th item of each so that about ``sample`` sentences remain (whole items: the
    conditions of an item share prefixes, as in a real run)."""
    from linguagym.evaluation.evaluate import suite_sentences
    from linguagym.suites.load import read_suite

    suites = [read_suite(p).suite for p in paths]
    if sample:
        total = sum(len(suite_sentences(s)) for s in suites)
        step = max(1, round(total / sample))
        suites = [dataclasses.replace(s, items=s.items[::step]) for s in suites]
    texts = list(dict.fromkeys(x.text for s in suites for x in suite_sentences(s)))
    return suites, texts


def cpu_description() -> dict:
    info = {"cpu": platform.processor() or platform.machine(), "flags": []}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        if line.startswith("model name") and info["cpu"] in ("", platform.machine(), platform.processor()):
            info["cpu"] = line.split(":", 1)[1].strip()
        if line.startswith("flags"):
            flags = line.split(":", 1)[1].split()
            info["flags"] = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_bf16",
                                         "amx_int8") if f in flags]
            break
    info["usable_cores"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return info


def compare(suites, texts, reference, values) -> dict:
    """Differences of ``values`` (bits per token, per text) from the ``reference`` ScoredTexts: per token, per
    region sum, and accuracy per suite."""
    from linguagym.evaluation.evaluate import evaluate_suite

    token_diffs = [abs(v - t.surprisal) for text, row in zip(texts, values, strict=True)
                   for v, t in zip(row, reference[text].tokens, strict=True)]
    theirs = {text: dataclasses.replace(reference[text], tokens=tuple(
        dataclasses.replace(t, surprisal=float(v)) for t, v in zip(reference[text].tokens, row, strict=True)))
        for text, row in zip(texts, values, strict=True)}
    region_diffs, changed, accuracies = [], [], []
    for suite in suites:
        ours, other = evaluate_suite(suite, reference), evaluate_suite(suite, theirs)
        for x, y in zip(ours.conditions, other.conditions, strict=True):
            for number, metrics in x.values.items():
                if number is not None:
                    region_diffs.append(abs(metrics["sum"] - y.values[number]["sum"]))
        a, b = ours.accuracy(), other.accuracy()
        accuracies.append((a, b))
        if not (a == b or (math.isnan(a) and math.isnan(b))):
            changed.append(f"{suite.name} {a:.3f}->{b:.3f}")
    defined = [(a, b) for a, b in accuracies if not math.isnan(a)]
    return {"token_max": max(token_diffs), "token_mean": statistics.fmean(token_diffs),
            "region_max": max(region_diffs), "region_mean": statistics.fmean(region_diffs),
            "suites_changed": changed, "accuracy_ref": statistics.fmean(a for a, _ in defined),
            "accuracy": statistics.fmean(b for _, b in defined)}


def benchmark(args: argparse.Namespace) -> dict:
    from linguagym import assets
    from linguagym.scoring.cache import resolve_cache_dir
    from linguagym.scoring.protocol import ScoredText, TokenScore

    paths = sorted(p for pattern in args.suites for p in glob.glob(pattern))
    if not paths:
        sys.exit(f"no suites match {args.suites}")
    suites, texts = sampled_suites(paths, args.sample)
    cache = resolve_cache_dir(Path(args.cache_dir) if args.cache_dir else None)
    if args.model not in assets.NAMED_MODELS:
        sys.exit(f"--model must be a named model already in the linguagym cache, not {args.model!r}")
    model_dir = assets.fetch_named_model(args.model, cache)
    threads = args.threads or cpu_description()["usable_cores"]
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "LINGUAGYM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    work = Path(tempfile.mkdtemp(prefix="linguagym-cpu-backends-"))
    texts_file = work / "texts.json"
    texts_file.write_text(json.dumps(texts))
    backends = [b for b in args.backends]
    ct2_dir = cache / "ctranslate2" / f"{model_dir.name}"
    report: dict = {"command": " ".join(sys.argv), "machine": cpu_description(), "threads": threads,
                    "load_average_start": os.getloadavg(), "model": args.model, "suites": len(suites),
                    "sentences": len(texts), "batch_tokens": args.batch_tokens, "runs": {b: [] for b in backends}}
    machine = report["machine"]
    print(f"# {machine['cpu']} ({', '.join(machine['flags'])}), {machine['usable_cores']} usable cores, {threads} "
          f"threads, load average {os.getloadavg()[0]:.1f}; {len(suites)} suites, {len(texts)} unique sentences",
          flush=True)
    if any(b.startswith("ct2") for b in backends) and not (ct2_dir / "model.bin").is_file():
        done, wall, _ = run_worker("convert", ["--model-dir", str(model_dir), "--ct2-dir", str(ct2_dir)], env)
        print(f"converted {model_dir} to CTranslate2 in {wall:.1f} s -> {ct2_dir}", flush=True)
    reference = None  # the first torch run (or the score cache's): {text: ScoredText}
    pieces_file = work / "pieces.json"
    if args.reference == "cache":  # the float32 torch values from linguagym's score cache, computing what is missing
        from linguagym.scoring import load_scorer

        cached = load_scorer(args.model, dtype="float32", device="cpu", cache_dir=cache)
        scored = cached.score(texts)
        reference = dict(zip(texts, scored, strict=True))
        pieces_file.write_text(json.dumps([[cached.identity["bos_token"], *(t.token for t in s.tokens)]
                                           for s in scored]))
        report["tokens"] = sum(len(s.tokens) for s in scored)
        report["reference"] = "linguagym's score cache (float32, torch, CPU)"
        backends = [b for b in backends if b != "torch"]
        report["runs"].pop("torch", None)
    order = ["torch", *[b for b in backends if b != "torch"]]  # torch first: the others need its token pieces
    for repeat in range(args.repeats):
        for backend in order if repeat % 2 == 0 else order[::-1]:
            if backend not in backends:
                continue
            if backend.startswith("torch"):
                dtype = backend.split("-", 1)[1] if "-" in backend else "float32"
                result, wall, rss = run_worker("torch", ["--texts", str(texts_file), "--model", args.model,
                                                         "--cache", str(cache), "--dtype", dtype], env)
                scored = [ScoredText(text, tuple(TokenScore.from_json(t) for t in tokens))
                          for text, tokens in zip(texts, result["tokens"], strict=True)]
                values = [[t.surprisal for t in s.tokens] for s in scored]
                if reference is None and backend == "torch":
                    reference = dict(zip(texts, scored, strict=True))
                    pieces_file.write_text(json.dumps([[result["bos"], *(t.token for t in s.tokens)]
                                                       for s in scored]))
                    report["tokens"] = sum(len(s.tokens) for s in scored)
            elif backend in ("ort", "openvino"):
                result, wall, rss = run_worker(backend, ["--texts", str(texts_file), "--model", args.model,
                                                         "--cache", str(cache), "--threads", str(threads), "--onnx",
                                                         str(cache / "onnx" / model_dir.name / "body.onnx")], env)
                values = result["values"]
                report["onnxruntime" if backend == "ort" else "openvino"] = result["version"]
                if result["export_s"]:
                    print(f"exported the body to ONNX in {result['export_s']:.1f} s (kept for later runs)", flush=True)
            else:
                options = ["--texts", str(pieces_file), "--ct2-dir", str(ct2_dir), "--threads", str(threads),
                           "--compute-type", backend.split("-", 1)[1], "--batch-tokens", str(args.batch_tokens)]
                result, wall, rss = run_worker("ct2", options, env)
                values = result["values"]
                report["ctranslate2"] = result["version"]
            run = {"repeat": repeat, "wall_s": wall, "load_s": result["load_s"], "score_s": result["score_s"],
                   "score_cpu_s": result["score_cpu_s"], "rss": rss, "load_average": os.getloadavg()[0]}
            if backend not in report.setdefault("diffs", {}):  # the first run of each; later runs are timings
                assert reference is not None
                report["diffs"][backend] = compare(suites, texts, reference, values)
            report["runs"][backend].append(run)
            print(f"repeat {repeat + 1}: {backend}: wall {wall:.1f} s, load {result['load_s']:.1f} s, "
                  f"scoring {result['score_s']:.1f} s ({result['score_cpu_s']:.1f} CPU s), {rss / 2**20:.0f} MiB "
                  f"(load average {run['load_average']:.1f})",
                  flush=True)
    report["load_average_end"] = os.getloadavg()
    shutil.rmtree(work, ignore_errors=True)
    import torch

    report["torch"] = torch.__version__
    return report


def table(report: dict) -> str:
    tokens = report["tokens"]
    machine = report["machine"]
    lines = [
        f"CPU: {machine['cpu']} ({', '.join(machine['flags']) or 'no AVX2'}), {machine['usable_cores']} usable cores, "
        f"{report['threads']} threads for every contender; load average {report['load_average_start'][0]:.1f} at the "
        f"start, {report['load_average_end'][0]:.1f} at the end (a shared machine: other jobs ran beside these). "
        f"torch {report['torch']}, CTranslate2 {report.get('ctranslate2', 'absent')}, ONNX Runtime "
        f"{report.get('onnxruntime', 'absent')}, OpenVINO {report.get('openvino', 'absent')}. "
        f"{report['suites']} suites, "
        f"{report['sentences']} unique sentences, {tokens:,} scored tokens. "
        f"Medians of {len(next(iter(report['runs'].values())))} interleaved runs.",
        "",
        "| backend | wall (process) | load | scoring | scoring CPU s | tokens/s (scoring) | torch / this (wall, CPU) "
        "| peak RSS | max / mean \\|Δ\\| token (bits) | max / mean \\|Δ\\| region sum | suites whose accuracy "
        "changes | mean accuracy |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |",
    ]
    keys = ("wall_s", "load_s", "score_s", "score_cpu_s", "rss")
    medians = {b: {k: statistics.median(r[k] for r in runs) for k in keys}
               for b, runs in report["runs"].items() if runs}
    base = medians.get("torch")
    if "reference" in report:
        lines.insert(1, f"Differences against {report['reference']}.")
    for backend, m in medians.items():
        d = report["diffs"][backend]
        ratio = f"{base['score_s'] / m['score_s']:.2f}x, {base['score_cpu_s'] / m['score_cpu_s']:.2f}x" if base else ""
        lines.append(
            f"| {backend} | {m['wall_s']:.1f} s | {m['load_s']:.1f} s | {m['score_s']:.1f} s | "
            f"{m['score_cpu_s']:.1f} | "
            f"{tokens / m['score_s']:,.0f} | {ratio} | {m['rss'] / 2**20:,.0f} MiB | "
            f"{d['token_max']:.1e} / {d['token_mean']:.1e} | {d['region_max']:.1e} / {d['region_mean']:.1e} | "
            f"{len(d['suites_changed'])} of {report['suites']} | {d['accuracy']:.4f} |")
    for backend, d in report["diffs"].items():
        if d["suites_changed"]:
            lines.append(f"\n{backend}: accuracy changed in {', '.join(d['suites_changed'])}")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_worker":
        kind = sys.argv[2]
        parser = argparse.ArgumentParser()
        for option in ("--out", "--texts", "--model", "--cache", "--model-dir", "--ct2-dir", "--compute-type",
                       "--onnx", "--dtype"):
            parser.add_argument(option)
        parser.add_argument("--threads", type=int)
        parser.add_argument("--batch-tokens", type=int)
        args = parser.parse_args(sys.argv[3:])
        result = {"torch": worker_torch, "ct2": worker_ct2, "ort": worker_ort, "openvino": worker_openvino,
                  "convert": worker_convert}[kind](args)
        Path(args.out).write_text(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES], help="suite files or globs")
    parser.add_argument("--model", default="smollm2-135m", help="a named model in the linguagym cache")
    parser.add_argument("--cache-dir", help="linguagym cache (default: $LINGUAGYM_CACHE_DIR or the user cache)")
    parser.add_argument("--sample", type=int, help="about this many sentences: every k-th item of each suite")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved runs of every backend (default 2)")
    parser.add_argument("--threads", type=int, help="threads for every contender (default: the usable cores)")
    parser.add_argument("--batch-tokens", type=int, default=4096, help="CTranslate2's tokens per batch")
    parser.add_argument("--backends", nargs="+", default=["torch", "ct2-float32", "ct2-int8"], choices=BACKENDS,
                        help="which to run (default: torch, ct2-float32, ct2-int8); torch, the float32 reference, "
                        "runs first whenever it is named")
    parser.add_argument("--reference", choices=("torch", "cache"), default="torch",
                        help="torch: the first torch run's values (default); cache: the float32 torch values of "
                        "linguagym's score cache (no torch row: for accuracy over many sentences)")
    parser.add_argument("--json", help="also write the raw results here")
    args = parser.parse_args()
    report = benchmark(args)
    print()
    print(table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
