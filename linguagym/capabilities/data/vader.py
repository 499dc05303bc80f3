"""VADER's sentiment lexicon (Hutto & Gilbert 2014) as a second opinion on whether a word is neutral.

VADER lists only words that carry sentiment (about 7,500 tokens, each with the mean of ten raters' scores from
-4 to 4), by surface form in lower case. A word is neutral for VADER when neither its form nor its lemma is listed
with a non-zero mean: "certainly" (1.4), "well" (1.1) and "adversary" (-0.8) are not, though SentiWordNet scores
some senses of them neutral. The file ships inside the ``vaderSentiment`` package (the ``[lct]`` extra); it is
read from there without importing the package.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from linguagym.capabilities.errors import CapabilityError

log = logging.getLogger(__name__)
LEXICON_FILE = "vader_lexicon.txt"
MISSING_WARNING = ("vaderSentiment is not installed: expansions are checked against SentiWordNet alone, so words "
                   "VADER rates as sentiment-bearing (such as 'certainly', 'well') can slip in; "
                   "pip install 'linguagym[lct]' installs it")


@dataclass(frozen=True)
class VaderLexicon:
    valences: dict[str, float]  # lower-case token -> mean rating (-4..4)
    source: str

    def __len__(self) -> int:
        return len(self.valences)

    def valence(self, word: str) -> float:
        return self.valences.get(word.lower(), 0.0)

    def is_neutral(self, *forms: str) -> bool:
        """Whether every form given (the word as written, its lemma) is unrated or rated 0."""
        return all(self.valence(form) == 0.0 for form in forms)

    @property
    def identity(self) -> dict:
        return {"lexicon": "vader", "source": self.source, "words": len(self), "version": _version()}


def read_vader(path: str | Path) -> VaderLexicon:
    """Read ``vader_lexicon.txt``: one token a line, tab-separated ``token, mean, std, [ratings]``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CapabilityError(f"cannot read VADER's lexicon {path}: {error}",
                              hint="reinstall vaderSentiment: pip install --force-reinstall vaderSentiment") from None
    valences = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            valences[fields[0].lower()] = float(fields[1])
        except (IndexError, ValueError):
            raise CapabilityError(f"{path}, line {number}: expected a token and its mean rating, tab-separated",
                                  hint="is this VADER's vader_lexicon.txt?") from None
    return VaderLexicon(valences, str(path))


@lru_cache(maxsize=1)
def load_vader() -> VaderLexicon | None:
    """VADER's lexicon from the installed ``vaderSentiment`` package; None (with a warning) when it is absent."""
    spec = importlib.util.find_spec("vaderSentiment")
    if spec is None or not spec.submodule_search_locations:
        log.warning(MISSING_WARNING)
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / LEXICON_FILE
    if not path.is_file():
        log.warning(MISSING_WARNING)
        return None
    return read_vader(path)


def _version() -> str | None:
    try:
        return version("vaderSentiment")
    except PackageNotFoundError:
        return None
