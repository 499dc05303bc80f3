"""spaCy's share of ``lct generate``: tagging the dataset and parsing for expansion, as linguagym sets the pipeline
up against spaCy's defaults, with the outputs compared.

    python benchmarks/spacy_pipeline.py [--limit N] [--rounds 2]

Two jobs over the default dataset's sentences (10,605 Rotten Tomatoes sentences; ``--limit`` takes the first N):
- tag: the analyser's pipeline (tagger, attribute ruler, lemmatizer) giving tag, POS, lemma of every token;
- parse: the constituency parser's (tagger and dependency parser, converted to phrase structure by ``depconv``).
Each runs with spaCy's defaults (thinc's blis products; for the parse, the attribute ruler and lemmatizer too)
and as linguagym loads it (``extras.with_numpy_products``; ``parsers._load_for_parsing``), in ABBA order, the
best of ``--rounds`` kept. It prints seconds, the ratio, and how many sentences came out the same (tags, POS and
lemmas; trees as bracket strings).
"""

from __future__ import annotations

import argparse
import subprocess
import time

import spacy

from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.syntax import depconv, parsers
from linguagym.extras import DEFAULT_SPACY_MODEL, with_numpy_products


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        return next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        return "unknown CPU"


def tags(nlp, texts):
    return [[(t.tag_, t.pos_, t.lemma_) for t in doc] for doc in nlp.pipe(texts, batch_size=256)]


def trees(nlp, texts, fix_spaces):
    fix = parsers._space_attributes if fix_spaces else (lambda doc: doc)
    return [str(depconv.doc_to_tree(fix(doc))) for doc in nlp.pipe(texts, batch_size=128)]


def timed(job, nlp, texts, linguagym):
    started = time.perf_counter()
    out = tags(nlp, texts) if job == "tag" else trees(nlp, texts, fix_spaces=linguagym)
    return time.perf_counter() - started, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    texts = [e.text for e in load_dataset().examples][: args.limit]
    contenders = {
        "tag": {
            "spaCy defaults": lambda: spacy.load(DEFAULT_SPACY_MODEL, exclude=["parser", "ner"]),
            "linguagym": lambda: with_numpy_products(spacy.load(DEFAULT_SPACY_MODEL, exclude=["parser", "ner"])),
        },
        "parse": {
            "spaCy defaults": lambda: spacy.load(DEFAULT_SPACY_MODEL, exclude=["ner"]),
            "linguagym": lambda: parsers._load_for_parsing(DEFAULT_SPACY_MODEL),
        },
    }
    print(f"CPU: {cpu_name()}; spaCy {spacy.__version__}; {len(texts)} sentences")
    for job, pipelines in contenders.items():
        loaded = {name: make() for name, make in pipelines.items()}
        best = {name: float("inf") for name in loaded}
        outputs = {}
        order = list(loaded) + list(reversed(loaded))
        for _ in range(args.rounds):
            for name in order:
                seconds, outputs[name] = timed(job, loaded[name], texts, linguagym=name == "linguagym")
                best[name] = min(best[name], seconds)
        same = sum(a == b for a, b in zip(outputs["spaCy defaults"], outputs["linguagym"], strict=True))
        print(f"{job:<6} spaCy defaults {best['spaCy defaults']:6.2f} s   linguagym {best['linguagym']:6.2f} s   "
              f"{best['spaCy defaults'] / best['linguagym']:.2f}x   the same output for {same} of {len(texts)} "
              f"sentences   (pipes: {', '.join(loaded['linguagym'].pipe_names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
