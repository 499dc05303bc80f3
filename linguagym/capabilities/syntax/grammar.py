"""The reference grammar: phrase-level productions ``LHS -> RHS`` with relative frequencies
``P(RHS | LHS) = count(LHS -> RHS) / count(LHS)``.

Sources (``--reference``):
- ``auto`` (default, ``choose_reference``): ``treebank`` when it is found, else ``induced`` with a warning;
- ``treebank``: gold trees of NLTK's Penn Treebank sample (``corpora/treebank.zip``) under ``$NLTK_DATA`` or
  NLTK's usual places (``treebank.default_treebank``). No registry package ships it (PyPI's ``treebank`` holds
  the language-modelling text without trees; ``nltkdata`` is empty; Debian has no NLTK data package);
- ``induced``: a grammar induced by parsing the dataset's own sentences (``induced_grammar``), so expansion
  needs nothing beyond the registries, at the cost of the parser's errors (bracket F1 0.81 for the default);
- a path: gold trees in PTB/NLTK bracket format (a file, a directory of ``.mrg`` files, or a zip);
- ``induced:PATH``: a reference corpus (one sentence per line, or a treebank whose words are re-parsed)
  parsed with the chosen parser, so seeds and reference share one annotation style.
Function tags are stripped and ``-NONE-`` dropped (``trees.clean``). Grammars are cached as JSON under
``<cache>/capabilities/grammar-<key>.json``, keyed by the source's content hash (and the parser's identity).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from linguagym.atomic import write_cache_text
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax import treebank
from linguagym.capabilities.syntax.parsers import load_parser, unescape_words
from linguagym.capabilities.syntax.trees import Tree
from linguagym.scoring.cache import resolve_cache_dir

GRAMMAR_FORMAT = 1
INDUCED = "induced"  # the reference induced from the dataset the seeds come from (``pipeline``)
log = logging.getLogger(__name__)

# Figures from docs/capabilities.md ("Parser choice"): the spaCy-based default parser against the treebank's gold
# trees. The induced grammar inherits its errors; the treebank's productions are gold.
FALLBACK_WARNING = (
    "no Penn Treebank sample found (NLTK's corpora/treebank.zip under $NLTK_DATA or ~/nltk_data): expansion uses "
    "a reference grammar induced from the dataset by the parser instead of the treebank's gold trees. The default "
    "parser's bracket F1 against the treebank is 0.81: about one bracket in five it finds is wrong, and the grammar "
    "that picks where words are inserted inherits those errors. To use the treebank, run "
    "`python -m nltk.downloader treebank` (needs the web) or set NLTK_DATA to a folder holding "
    "corpora/treebank.zip; `reference` induced chooses the induced grammar without this warning")


def choose_reference(reference: str) -> str:
    """``reference`` with ``auto`` resolved: ``treebank`` when NLTK's Penn Treebank sample is found, else
    ``INDUCED``, logging ``FALLBACK_WARNING`` (the command line prints it as ``warning: ...``)."""
    if reference != "auto":
        return reference
    if treebank.default_treebank() is not None:
        return "treebank"
    log.warning(FALLBACK_WARNING)
    return INDUCED


@dataclass
class Grammar:
    counts: dict[str, Counter]  # lhs -> Counter(rhs tuple -> count); not changed once the grammar is built
    source: dict = field(default_factory=dict)
    # (lhs, shortest, longest) -> ``expansions(lhs)`` of those lengths: differentiation asks for every node of
    # every seed, and sorting a label's thousands of productions each time was a third of its time
    _sized: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def probability(self, lhs: str, rhs: tuple[str, ...]) -> float:
        total = sum(self.counts.get(lhs, {}).values())
        return self.counts[lhs][rhs] / total if total else 0.0

    def expansions(self, lhs: str) -> list[tuple[tuple[str, ...], float]]:
        """The productions of ``lhs`` with their probabilities, most probable first."""
        found = self.counts.get(lhs)
        if not found:
            return []
        total = sum(found.values())
        return sorted(((rhs, n / total) for rhs, n in found.items()), key=lambda item: (-item[1], item[0]))

    def expansions_sized(self, lhs: str, shortest: int, longest: int) -> list[tuple[tuple[str, ...], float]]:
        """``expansions(lhs)`` whose right-hand side has ``shortest`` to ``longest`` symbols, in the same order."""
        key = (lhs, shortest, longest)
        if key not in self._sized:
            self._sized[key] = [(rhs, p) for rhs, p in self.expansions(lhs) if shortest <= len(rhs) <= longest]
        return self._sized[key]

    @property
    def size(self) -> int:
        return sum(len(c) for c in self.counts.values())

    def to_json(self) -> dict:
        return {"format": GRAMMAR_FORMAT, "source": self.source,
                "productions": [[lhs, list(rhs), n] for lhs, c in sorted(self.counts.items())
                                for rhs, n in sorted(c.items())]}

    @classmethod
    def from_json(cls, data: dict) -> Grammar:
        counts: dict[str, Counter] = defaultdict(Counter)
        for lhs, rhs, n in data["productions"]:
            counts[lhs][tuple(rhs)] = n
        return cls(dict(counts), data.get("source", {}))


def grammar_from_trees(trees: Iterable[Tree], source: dict | None = None) -> Grammar:
    counts: dict[str, Counter] = defaultdict(Counter)
    for tree in trees:
        for lhs, rhs in tree.productions():
            counts[lhs][rhs] += 1
    return Grammar(dict(counts), dict(source or {}))


def load_reference_grammar(reference: str = "treebank", *, parser=None, cache_dir: Path | None = None) -> Grammar:
    """The reference grammar named by ``reference`` (see the module doc), from the cache when it is there."""
    if reference in ("auto", INDUCED):
        raise CapabilityError(f"reference {reference!r} is chosen with the dataset (pipeline.generate_tests)",
                              hint="pass 'treebank', a path of PTB bracket files, or induced:PATH; or call "
                              "induced_grammar with the sentences")
    induced = reference.startswith("induced:")
    target = reference.split(":", 1)[1] if induced else reference
    if target == "treebank":
        found = treebank.default_treebank()
        if found is None:
            raise CapabilityError("no reference treebank: NLTK's corpora/treebank.zip is not under $NLTK_DATA",
                                  hint="set NLTK_DATA to a directory holding corpora/treebank.zip, give "
                                  "`reference` PATH (PTB bracket files) or `reference` induced:SENTENCES.txt, "
                                  "or skip expansion (`expand` off)", settings=["reference", "expand"])
        path = found
    else:
        path = Path(target).expanduser()
        if not path.exists():
            raise CapabilityError(f"reference {path} does not exist",
                                  hint="give PTB bracket files (a file, directory or zip), or induced:FILE with "
                                  "one sentence per line")
    is_trees = path.is_dir() or path.suffix in (".zip", *treebank.TREE_SUFFIXES[:-1]) or _looks_bracketed(path)
    raw = None if is_trees else treebank.read_corpus_bytes(path)  # read once: hashed, then parsed
    content = treebank.fingerprint(path) if raw is None else hashlib.sha256(raw).hexdigest()
    if induced and parser is None:
        parser = load_parser("spacy")
    key_data = {"format": GRAMMAR_FORMAT, "content": content, "induced": induced,
                "parser": parser.identity if induced else None}
    source = {"reference": reference, "path": str(path), "sha256": content, "induced": induced,
              "parser": key_data["parser"]}

    def build() -> Grammar:
        if not induced:
            return grammar_from_trees(treebank.read_treebank(path), source)
        if is_trees:
            sentences = [t.leaves() for t in treebank.read_treebank(path)]
            return grammar_from_trees(parser.parse_words([unescape_words(s) for s in sentences]), source)
        text = (raw or b"").decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            raise CapabilityError(f"reference corpus {path} has no sentences", hint="one sentence per line")
        return grammar_from_trees((p.tree for p in parser.parse(lines)), source)

    return _cached(key_data, source, build, cache_dir)


def induced_grammar(sentences: Sequence[str], *, parser, label: str, cache_dir: Path | None = None) -> Grammar:
    """A reference grammar induced by parsing ``sentences`` (e.g. the dataset the seeds come from), so seeds and
    reference share one annotation style; the offline default when no gold treebank is installed."""
    content = hashlib.sha256("\n".join(sentences).encode()).hexdigest()
    key_data = {"format": GRAMMAR_FORMAT, "content": content, "induced": True, "parser": parser.identity}
    source = {"reference": f"induced:{label}", "sentences": len(sentences), "sha256": content, "induced": True,
              "parser": parser.identity}
    return _cached(key_data, source, lambda: grammar_from_trees((p.tree for p in parser.parse(list(sentences))),
                                                                  source), cache_dir)


def _cached(key_data: dict, source: dict, build: Callable[[], Grammar], cache_dir: Path | None) -> Grammar:
    """The grammar from the on-disk cache, or built and stored there (a damaged cache file is rebuilt)."""
    key = hashlib.sha256(json.dumps(key_data, sort_keys=True).encode()).hexdigest()[:24]
    cache = resolve_cache_dir(cache_dir) / "capabilities" / f"grammar-{key}.json"
    if cache.is_file():
        try:
            return Grammar.from_json(json.loads(cache.read_text("utf-8")))
        except (ValueError, KeyError, TypeError):
            pass
    grammar = build()
    source["productions"] = grammar.size
    write_cache_text(cache, json.dumps(grammar.to_json()) + "\n", "the reference grammar")
    return grammar


def _looks_bracketed(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        return handle.read(512).lstrip().startswith(b"(")
