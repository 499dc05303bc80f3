"""The attested rule (#38, ``linguagym/capabilities/expansion/attested.py``): its precision on the judged samples,
and the default run before and after it, side by side in one invocation.

    .venv/bin/python benchmarks/expansion_attested.py precision
    .venv/bin/python benchmarks/expansion_attested.py runs --out-dir /tmp/attested
    .venv/bin/python benchmarks/expansion_attested.py reader

``precision``: every judged expansion of ``benchmarks/`` (the strict blind reader's 300 rows of
``expansion_blind_38*``, and the older readers' ``expansion_judged*.jsonl``) is tagged as the pipeline tags
sentences; its inserted adjectives and adverbs (the tokens the expansion adds to the original) are held to the
rule with the default dataset's modifier pairs. Per file: acceptable among the rows the rule keeps (every inserted
modifier attested with its head) and among those it refuses. The rows were made without the rule, so this is the
rule's precision on the filler's old proposals, not a measure of the new output (a blind sample is).

``reader``: the three reader rules (``expansion/reader_rules.py``: ``proper``, ``quantifier``, ``own``) on the 240
rows of ``expansion_blind_39*`` (the default output with the attested rule, judged blind): each row's inserted
words held to the rules with the default dataset's usage; acceptable among the rows the rules keep and among those
they refuse, overall and per rule. The rules were chosen on these rows, so this is a tuning-set estimate, not a
measure on new output (a fresh blind sample is).

``runs``: ``lct generate --lc all`` with the defaults, seed 0, twice in this process: ``before`` with the rule off, the
word cap at 4 and 3 masked sentences a seed (the defaults until this change), ``after`` with today's defaults
(``no_lexicon``, a third arm: today's without the reader lexicon, ``reader_lexicon.py``); the
fill cache is off for both (each computes its fills anew, so neither reuses the other's work). Prints the wall time
of each and the expansions per capability, and writes ``before.json`` and ``after.json`` under ``--out-dir``
(``--arms after``: that run alone).
"""

from __future__ import annotations

import argparse
import difflib
import json
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from checkpoints import cpu_name  # (benchmarks/ is the script's folder, first on sys.path)

HERE = Path(__file__).resolve().parent


def _samples() -> list[tuple[str, str, str, bool]]:
    """(file, original, expansion, acceptable) of every judged row."""
    out = []
    tsv = {int(line.split("\t")[0]): line.split("\t")[1:]
           for line in (HERE / "expansion_blind_38.tsv").read_text(encoding="utf-8").splitlines()[1:]}
    for line in (HERE / "expansion_blind_38_judged.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        original, expansion = tsv[row["id"]]
        out.append(("expansion_blind_38", original, expansion, bool(row["acceptable"])))
    for path in sorted(HERE.glob("expansion_judged*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if "seed_text" in row and "expanded_text" in row:
                out.append((path.stem, row["seed_text"], row["expanded_text"], not row["insertion_error"]))
    return out


def _default_vocabulary():
    """The analyser and the default dataset's usage (with the attested pairs and capitals), as the pipeline has them."""
    from linguagym.capabilities.data.analysis import Analyser, analyse_cached, load_spacy
    from linguagym.capabilities.data.catalog import load_dataset
    from linguagym.capabilities.data.lexicon import load_lexicon
    from linguagym.capabilities.expansion.domain import DomainVocabulary

    analyser = Analyser(load_lexicon(None, None), nlp=load_spacy())
    data = load_dataset("rotten-tomatoes")
    vocabulary = DomainVocabulary.from_analyses(analyse_cached(analyser, [e.text for e in data.examples]),
                                                attested=True)
    return analyser, vocabulary


def _added(before, after) -> list[int]:
    """The indices of the tokens ``after`` adds to ``before`` (lower-cased words compared)."""
    old, new = [t.lower for t in before.tokens], [t.lower for t in after.tokens]
    return [j for op, _, _, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
            if op != "equal" for j in range(j1, j2)]


def precision() -> None:
    from linguagym.capabilities.expansion.attested import ADJECTIVE_TAGS, ADVERB_TAGS

    analyser, vocabulary = _default_vocabulary()
    samples = _samples()
    originals = analyser.analyse([s[1] for s in samples])
    expansions = analyser.analyse([s[2] for s in samples])
    tally: dict[str, Counter] = {}
    words: dict[bool, Counter] = {True: Counter(), False: Counter()}
    for (name, _, _, good), before, after in zip(samples, originals, expansions, strict=True):
        added = _added(before, after)
        modifiers = [j for j in added if after.tokens[j].tag in ADJECTIVE_TAGS + ADVERB_TAGS]
        if not modifiers:
            verdict = "no modifier"
        else:
            kept = not any(vocabulary.modifiers_problems(after.tokens, j) for j in modifiers)
            verdict = "kept" if kept else "refused"
            if kept and name == "expansion_blind_38":
                words[good].update(after.tokens[j].lower for j in modifiers)
        tally.setdefault(name, Counter())[(verdict, good)] += 1
    print("| judged file | kept: acceptable | refused: acceptable | no inserted modifier |")
    print("| --- | ---: | ---: | ---: |")
    for name, counts in tally.items():
        cells = []
        for verdict in ("kept", "refused", "no modifier"):
            n, k = counts[(verdict, True)] + counts[(verdict, False)], counts[(verdict, True)]
            cells.append(f"{k}/{n} = {k / n:.2f}" if n else "-")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nstrict reader, kept rows' words, accepted: " + ", ".join(f"{w} {n}" for w, n in words[True].most_common())
          + "; rejected: " + ", ".join(f"{w} {n}" for w, n in words[False].most_common()))


def _rate(k: int, n: int) -> str:
    return f"{k}/{n} = {k / n:.2f}" if n else "-"


def reader() -> None:
    from linguagym.capabilities.expansion.reader_rules import READER_CHECKS
    from linguagym.capabilities.testing.failures import wilson

    analyser, vocabulary = _default_vocabulary()
    tsv = {int(line.split("\t")[0]): line.split("\t")[1:]
           for line in (HERE / "expansion_blind_39.tsv").read_text(encoding="utf-8").splitlines()[1:]}
    judged = [json.loads(line) for line in (HERE / "expansion_blind_39_judged.jsonl").read_text().splitlines()
              if line.strip()]
    originals = analyser.analyse([tsv[row["id"]][0] for row in judged])
    expansions = analyser.analyse([tsv[row["id"]][1] for row in judged])
    kept, refused = Counter(), Counter()
    by_rule: dict[str, Counter] = {check.name: Counter() for check in READER_CHECKS}
    words: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for row, before, after in zip(judged, originals, expansions, strict=True):
        good = bool(row["acceptable"])
        found = {(check.name, after.tokens[j].lower) for j in _added(before, after) for check in READER_CHECKS
                 if check.problems(vocabulary, after.tokens, j)}
        for name, word in sorted(found):
            words[(name, word)][good] += 1
            print(f"  {name:10} {word:8} {'ok ' if good else 'bad'} #{row['id']}: {tsv[row['id']][1]}")
        for name in {name for name, _ in found}:
            by_rule[name][good] += 1
        (refused if found else kept)[good] += 1
    total = sum(kept.values()) + sum(refused.values())
    good = kept[True] + refused[True]
    print(f"\nexpansion_blind_39: {_rate(good, total)} acceptable as judged (the attested rule's default output)")
    print("| rows | acceptable |\n| --- | ---: |")
    low, high = wilson(kept[True], sum(kept.values())) or (0.0, 0.0)
    print(f"| kept by the three rules | {_rate(kept[True], sum(kept.values()))} (95% Wilson [{low:.2f}, {high:.2f}]) |")
    print(f"| refused by any | {_rate(refused[True], sum(refused.values()))} |")
    for name, counts in by_rule.items():
        print(f"| refused by {name} | {_rate(counts[True], sum(counts.values()))} |")
    print("\nrefused words, acceptable/refused: " + ", ".join(
        f"{name} {word} {c[True]}/{c[True] + c[False]}" for (name, word), c in sorted(words.items())))
    print("\nA tuning-set estimate: the rules were chosen on these 240 rows; a fresh blind sample measures them.")


def runs(out_dir: Path, arms_wanted: list[str]) -> None:
    import os

    from linguagym.capabilities.expansion.fit import MAX_USES
    from linguagym.capabilities.expansion.settings import ExpansionSettings
    from linguagym.capabilities.pipeline import generate_tests
    from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings
    from linguagym.capabilities.testfile.save import write_tests

    out_dir.mkdir(parents=True, exist_ok=True)
    today = ExpansionSettings()
    arms = {"before": replace(today, attested=False, max_word_uses=4, masked_per_seed=3, reader_lexicon=False),
            "no_lexicon": replace(today, reader_lexicon=False), "after": today}
    arms = {name: arms[name] for name in arms_wanted}
    seconds, counts = {}, {}
    for name, settings in arms.items():
        started = time.perf_counter()
        document = generate_tests(GenerateSettings(expansion=ExpansionOptions(settings=settings, fill_cache=False)))
        seconds[name] = time.perf_counter() - started
        write_tests(document, out_dir / f"{name}.json")
        counts[name] = {c.id: c.expansions for c in document.capabilities}
        print(f"{name}: {seconds[name]:.0f} s, {sum(counts[name].values())} expansions", flush=True)
    print(f"\nCPU: {os.cpu_count()} cores ({cpu_name()}); word cap today {MAX_USES}")
    if len(counts) < 2:
        return
    first, last = list(counts)[0], list(counts)[-1]
    print(f"| LC | {' | '.join(counts)} | {last}/{first} |\n| --- |" + " ---: |" * (len(counts) + 1))
    for lc in counts[first]:
        b, a = counts[first][lc], counts[last].get(lc, 0)
        cells = " | ".join(str(counts[name].get(lc, 0)) for name in counts)
        print(f"| {lc} | {cells} | {a / b:.2f} |" if b else f"| {lc} | {cells} | - |")
    b, a = sum(counts[first].values()), sum(counts[last].values())
    print(f"| all | {' | '.join(str(sum(c.values())) for c in counts.values())} | {a / b:.2f} |")
    print("\ntime: " + ", ".join(f"{name} {seconds[name]:.0f} s" for name in counts)
          + f"; {last}/{first} {seconds[last] / seconds[first]:.2f} "
          "(one invocation; other processes share the machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("precision")
    commands.add_parser("reader")
    both = commands.add_parser("runs")
    both.add_argument("--out-dir", type=Path, default=Path("/tmp/expansion_attested"))
    both.add_argument("--arms", default="before,after",
                      help="which runs, in order: before, no_lexicon, after (default before,after); the table "
                      "compares the last with the first")
    args = parser.parse_args()
    if args.command == "precision":
        precision()
    elif args.command == "reader":
        reader()
    else:
        runs(args.out_dir, args.arms.split(","))


if __name__ == "__main__":
    main()
