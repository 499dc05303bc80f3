"""Validation of a filled sentence. A fill is kept only if every check passes:

1. ``word``: each filled word is a word (letters, inner ``'``/``-``; one letter only for "a" and "I"), so
   a stray letter ("n They ...") fails;
2. ``case``: a word at the start of the sentence is capitalised (so "or That is ..." fails; the filler
   lower-cases the old first word unless it is "I" or a name), a word elsewhere is not capitalised;
3. ``tag``: the sentence is tagged again and each filled word is one token whose Penn tag, **in the new
   sentence**, is the mask's symbol;
4. ``neutral``: an adjective, noun, verb or adverb (by its tag in context) is SentiWordNet pure-neutral,
   and no word is one of those that negate, contrast, hedge or grade (``BLOCKED``: SentiWordNet scores
   "never" or "only" neutral, yet they change what a sentence says);
   ``hedge``: no word is an epistemic, frequency, degree or focus word (``hedges.HEDGE_GROUPS``, each group with
   its reason: "probably", "usually", "hardly", "certainly" change the claim, so the seed's label may not hold);
   ``vader``: no word, as written or by its lemma, is rated by VADER's lexicon (``data/vader.py``): a word is
   neutral only if both lexicons say so ("certainly" 1.4, "well" 1.1 are SentiWordNet-neutral in some senses);
5. ``agreement``: a filled singular determiner ("a", "each", "this") is not the determiner of a plural noun
   and a plural one ("many", "both", "these") not of a singular noun, looking past adjectives and adverbs
   ("A great performances", "change that tables", "both overkill"); "a"/"an" fits the next word's first
   sound ("a uncertain" fails; unclear cases pass); an article is followed by its noun phrase ("The should",
   "the of" fail), no determiner goes before a pronoun or quantifier ("a something", "both enough negatives"),
   no article goes before a name ("the Josh Koury"), no preposition before a preposition ("knock off from
   of"), no adverb before "of" ("a specimen once of"), no particle before an adjective ("out predictable");
   ``idiom``: the fill leaves the seed's fixed phrases whole (``idioms.py``: "in the current favor of", "one
   beverage after another alcoholic snack" fail);
6. ``repeat``: a filled word does not repeat a neighbouring word (not the same word or lemma, not the same
   first four letters: "combination combo" fails), nor a content word two places away ("predictable and
   predictable");
7. ``rule``: the new sentence still meets the search rule of its case (length, labels of words, start
   pattern), the rule on the dataset sentence ``S``, not on the templated test;
8. the linguistic checks of ``grammaticality.py`` on the inserted words in the new sentence: ``position`` (not
   before the first word; the seed's neighbouring words keep their word class), ``modifier`` (no stacked
   adverbs or adjectives, only -ly adverbs before an adjective), ``compound`` (no inserted noun beside a noun),
   ``function`` (no determiner before a name or between a preposition and its bare noun, no preposition taking a
   clause or another preposition);
9. with the dataset's usage (``domain.py``, when the caller gives a ``DomainVocabulary``): ``domain`` (an inserted
   adjective or adverb occurs in the dataset with its word class) and ``mass`` (no "a"/"each" before a noun the dataset
   never counts).
Before them, ``constituent`` (``constituent.py``, batched over all fills by ``structure_problems``): the filled
sentence parsed again by the expansion's parser has each filled word as a child of the phrase its mask was made
for, with the mask's tag. Duplicates (of the seed or of other expansions) are dropped by the caller, which sees
all of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from linguagym.capabilities.data.analysis import Analyser, Analysis, word_class
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.data.vader import VaderLexicon, load_vader
from linguagym.capabilities.expansion import staged
from linguagym.capabilities.expansion.check import Check, Problem
from linguagym.capabilities.expansion.constituent import constituent_problems
from linguagym.capabilities.expansion.differentiate import MaskedSentence
from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.fill import is_word
from linguagym.capabilities.expansion.grammaticality import insertion_problems
from linguagym.capabilities.expansion.hedges import HEDGE, HEDGE_GROUPS, hedge_reason
from linguagym.capabilities.expansion.idioms import IDIOM
from linguagym.capabilities.expansion.tag_check import tag_problem
from linguagym.capabilities.seeds.search import Match, search_match
from linguagym.capabilities.seeds.specs import Search
from linguagym.capabilities.syntax.parsers import ConstituencyParser

BLOCKED = frozenset({
    "not", "no", "never", "n't", "none", "nothing", "nobody", "nowhere", "neither", "nor", "without", "cannot",
    "but", "yet", "although", "though", "however", "or", "hardly", "barely", "scarcely", "rarely", "seldom",
    "only", "just", "even", "still", "almost", "less", "least", "more", "most", "too", "very", "so", "quite",
    "rather", "really", "despite", "against", "unless", "if", "whether", "instead", "except", "may", "might",
    "could", "would", "should", "must", "ca", "wo", "sha", "few", "either", "any", "anything",
})
INSTALLED = "installed"  # Validator(vader=INSTALLED): VADER's lexicon from the vaderSentiment package, if there


@dataclass(frozen=True)
class Checked:
    text: str
    analysis: Analysis | None
    match: Match | None
    reasons: tuple[Problem, ...]  # empty when valid

    @property
    def ok(self) -> bool:
        return not self.reasons


def shape_problems(words: Sequence[str], spans: Sequence[tuple[int, int]], text: str) -> list[Problem]:
    """The checks that need no tagger (``SHAPE_CHECKS``), on each filled word; the first that refuses a word is
    its only reason."""
    reasons = []
    for _, (start, end) in zip(words, spans, strict=True):  # the word as written: the filler may capitalise it
        reasons += next((found for check in SHAPE_CHECKS if (found := check.problems(text, start, end))), [])
    return reasons


def _word_problems(text: str, start: int, end: int) -> list[Problem]:
    word = text[start:end]
    return [] if is_word(word) else [WORD.problem(f"{word!r} is not a word")]


def _case_problems(text: str, start: int, end: int) -> list[Problem]:
    word = text[start:end]
    if not text[:start].strip():  # at the start of the sentence
        return [] if word[:1].isupper() else [CASE.problem(f"{word!r} starts the sentence in lower case")]
    if word[:1].isupper() and word != "I" and not text[:start].rstrip().endswith(('"', ".", "!", "?")):
        return [CASE.problem(f"{word!r} is capitalised inside the sentence")]
    return []


def _neutral_problems(tokens: Sequence, index: int, word: str, vader: VaderLexicon | None) -> list[Problem]:
    """SentiWordNet's verdict on a content word, and the words that negate, contrast or grade (``BLOCKED``; a
    hedge is the ``hedge`` check's)."""
    token = tokens[index]
    problems = []
    if token.word_class is not None and token.sentiment != "neutral":
        problems.append(NEUTRAL.problem(f"{word!r} ({token.word_class}) is {token.sentiment or 'not in SentiWordNet'}"))
    if hedge_reason(token.text, token.lemma) is None and _blocked(token):
        problems.append(NEUTRAL.problem(f"{word!r} negates, contrasts or hedges"))
    return problems


def _blocked(token) -> bool:
    return token.lower in BLOCKED or token.lemma.lower() in BLOCKED


def _vader_problems(tokens: Sequence, index: int, word: str, vader: VaderLexicon | None) -> list[Problem]:
    """VADER's verdict on a word neither a hedge nor blocked (those are refused already)."""
    token = tokens[index]
    if vader is None or hedge_reason(token.text, token.lemma) is not None or _blocked(token) \
            or vader.is_neutral(token.text, token.lemma):
        return []
    rating = vader.valence(token.text) or vader.valence(token.lemma)
    return [VADER.problem(f"{word!r} is rated {rating:+.1f} in VADER's lexicon")]


def _agreement_problems(tokens: Sequence, index: int, word: str, vader: VaderLexicon | None) -> list[Problem]:
    token = tokens[index]
    before = tokens[index - 1] if index > 0 else None
    # a word filled after the seed's "a"/"an" must take its sound ("A ultimately flawed", "an cinematic experience")
    if before is not None and before.lower in ("a", "an") and (problem := _sound_problem(before.lower, token)):
        return [AGREEMENT.problem(f"{before.text!r} {problem} {word!r}")]
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None:
        return []
    if problem := _article_problem(token, following):
        return [AGREEMENT.problem(f"{word!r} {problem} {following.text!r}")]
    if problem := _number_problem(token, tokens[index + 1:]):
        return [AGREEMENT.problem(f"{word!r} {problem}")]
    return []


def _repeat_problems(tokens: Sequence, index: int, word: str, vader: VaderLexicon | None) -> list[Problem]:
    other = _repeated(tokens, index)
    return [REPEAT.problem(f"{word!r} repeats its neighbour {other.text!r}")] if other is not None else []


def _rule_problems(search: Search, example: Example, analysis: Analysis) -> list[Problem]:
    return [] if search_match(search, replace(example, text=analysis.text), analysis) is not None else [RULE_BROKEN]


WORD = Check("word", "shape", "a filled word that is not a word (a stray letter, digits, symbols)", _word_problems)
CASE = Check("case", "shape", "a filled word capitalised inside the sentence, or in lower case at its start",
             _case_problems)
NEUTRAL = Check("neutral", "word", "a content word SentiWordNet does not call neutral, or one that negates, contrasts "
                "or grades (``BLOCKED``)", _neutral_problems)
VADER = Check("vader", "word", "a word VADER's lexicon rates", _vader_problems)
AGREEMENT = Check("agreement", "word", "a determiner of the wrong number or sound, an article with no noun after it, "
                  "a preposition before a preposition ...", _agreement_problems)
REPEAT = Check("repeat", "word", "a filled word that repeats a neighbouring word", _repeat_problems)
RULE = Check("rule", "rule", "a filled sentence that no longer meets its capability's search rule", _rule_problems)
RULE_BROKEN = RULE.problem("the new sentence no longer meets its capability's search rule")
SHAPE_CHECKS: tuple[Check, ...] = (WORD, CASE)  # on each word, in this order; the first refusal is the word's only one
WORD_CHECKS: tuple[Check, ...] = (NEUTRAL, HEDGE, VADER, AGREEMENT, REPEAT)  # on each word found, in this order


class Validator:
    def __init__(self, analyser: Analyser, parser: ConstituencyParser | None = None,
                 vader: VaderLexicon | str | None = INSTALLED, domain: DomainVocabulary | None = None) -> None:
        """``parser``: the expansion's parser, for the ``constituent`` check (None skips it); ``vader``: the
        second sentiment lexicon (None: SentiWordNet alone); ``domain``: the dataset's usage, for the ``domain``
        and ``mass`` checks (None skips them)."""
        self.analyser = analyser
        self.parser = parser
        self.vader = load_vader() if isinstance(vader, str) else vader
        self.domain = domain

    @property
    def identity(self) -> dict:
        """How fills were judged, as the test file records it."""
        return {"constituent": self.parser.name if self.parser is not None else None,
                "sentiment": [self.analyser.lexicon.source, self.vader.identity if self.vader else None],
                "hedges": sorted(HEDGE_GROUPS), "domain": self.domain.identity if self.domain else None}

    def screen(self, fills: Sequence[tuple[MaskedSentence, Sequence[str], str, Sequence[tuple[int, int]]]]
               ) -> list[tuple[list[Problem], Analysis | None]]:
        """For each (masked sentence, words, filled text, spans): its ``tag`` and ``constituent`` problems, and,
        where it has none, its analysis for ``check_analysed``. With spaCy's parser over the analyser's model the
        three go in stages over one pipeline (``staged.screen``: a fill refused by both counts as ``tag``);
        otherwise every fill is re-parsed and those the parse keeps are analysed."""
        if staged.can_stage(self.parser, self.analyser):
            return staged.screen(self.parser, self.analyser, fills)
        structure = self.structure_problems(fills)
        kept = [i for i, problems in enumerate(structure) if not problems]
        analyses = dict(zip(kept, self.analyser.analyse([fills[i][2] for i in kept]), strict=True))
        return [(problems, analyses.get(i)) for i, problems in enumerate(structure)]

    def structure_problems(self, fills: Sequence[tuple[MaskedSentence, Sequence[str], str, Sequence[tuple[int, int]]]]
                           ) -> list[list[Problem]]:
        """The ``constituent`` problems of each (masked sentence, words, filled text, spans), the texts parsed in one
        batch (``nlp.pipe``)."""
        if self.parser is None or not fills:
            return [[] for _ in fills]
        parsed = self.parser.parse([text for _, _, text, _ in fills])
        return [constituent_problems(p, masked, words, spans)
                for p, (masked, words, _, spans) in zip(parsed, fills, strict=True)]

    def check(self, text: str, words: Sequence[str], spans: Sequence[tuple[int, int]], tags: Sequence[str],
              search: Search, example: Example, seed: Analysis | None = None) -> Checked:
        """Validate ``text`` (the filled dataset sentence); ``spans`` are the filled words' character spans;
        ``example`` is the seed's dataset sentence and ``seed`` its analysis (None: analysed here)."""
        reasons = shape_problems(words, spans, text)
        if reasons:
            return Checked(text, None, None, tuple(reasons))
        analysis = self.analyser.analyse_one(text)
        return self.check_analysed(analysis, words, spans, tags, search, example, seed)

    def check_analysed(self, analysis: Analysis, words: Sequence[str], spans: Sequence[tuple[int, int]],
                       tags: Sequence[str], search: Search, example: Example,
                       seed: Analysis | None = None) -> Checked:
        """As ``check``, with the filled sentence already analysed."""
        text = analysis.text
        reasons = shape_problems(words, spans, text)
        tokens = analysis.tokens
        inserted = []
        for word, (start, end), tag in zip(words, spans, tags, strict=True):
            index, problem = tag_problem(tokens, word, start, end, tag)
            if problem is not None:
                reasons.append(problem)
            if index is None:
                continue
            inserted.append(index)
            for check in WORD_CHECKS:
                reasons += check.problems(tokens, index, word, self.vader)
        reasons += IDIOM.problems(example.text, text)
        if len(inserted) == len(words):
            if seed is None:
                seed = self.analyser.analyse_one(example.text)
            reasons += insertion_problems(tokens, inserted, seed.tokens)
            if self.domain is not None:
                reasons += self.domain.problems(tokens, inserted)
        match = None
        if not reasons:
            match = search_match(search, replace(example, text=text), analysis)
            if match is None:
                reasons.append(RULE_BROKEN)
        return Checked(text, analysis, match, tuple(reasons))


_SINGULAR_DETERMINERS = frozenset({"a", "an", "another", "each", "every", "one", "this", "that"})
_PLURAL_DETERMINERS = frozenset({"these", "those", "many", "several", "both", "various", "multiple", "numerous"})
_MODIFIER_TAGS = frozenset({"JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VBN", "VBG", "HYPH", "CD"})
_PREPOSITIONS = frozenset({"of", "in", "on", "from", "to", "at", "by", "for", "with", "about", "into", "over"})
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
# articles and possessive determiners need a noun phrase after them ("The should have been ...", "the of")
_ARTICLES = frozenset({"a", "an", "the", "every", "my", "your", "his", "her", "its", "our", "their"})
_NOT_AFTER_ARTICLE = frozenset({"MD", "VB", "VBD", "VBP", "VBZ", "IN", "TO", "CC", "PRP", "DT", "PDT", "EX", "WDT",
                                "WP", "WRB", ",", ".", ":", "POS"})
_PARTICLES = frozenset({"out", "up", "down", "off", "away", "back", "over", "in", "on", "around", "along"})
# words that are whole noun phrases or quantifiers themselves: no determiner before them ("a something",
# "both enough negatives", "the some")
_DETERMINERLESS = frozenset({
    "something", "anything", "nothing", "everything", "someone", "anyone", "everyone", "somebody", "anybody",
    "everybody", "nobody", "enough", "several", "each", "some", "any", "both", "either", "neither", "none",
    "plenty"})
# words spelled with a vowel letter but said with a consonant ("a useful", "a European", "a one-off"), and
# beginnings that go either way ("a unique" / "an unimportant", "a unanimous" / "an unable")
_CONSONANT_SOUND = ("use", "usu", "uti", "ure", "uri", "uro", "ubi", "uku", "eu", "ewe", "one", "once")
_EITHER_SOUND = ("uni", "una")


def _article_problem(token, following) -> str | None:
    """A singular determiner before a plural noun, or "a"/"an" before the wrong sound (clear cases only)."""
    word = token.lower
    singular = word in _SINGULAR_DETERMINERS and (token.tag == "DT" or word in ("a", "an"))
    if singular and following.tag in ("NNS", "NNPS"):
        return "is singular before the plural"
    if following.tag in ("NNP", "NNPS") and word in ("a", "an", "the", "this", "that", "some"):
        return "is a determiner before the name"
    if token.tag in ("DT", "PRP$") and word in _ARTICLES and following.tag in _NOT_AFTER_ARTICLE:
        return "is an article with no noun after it, but"
    if token.tag in ("DT", "PDT", "PRP$") and following.lower in _DETERMINERLESS:
        return "is a determiner before the pronoun or quantifier"
    if token.tag.startswith("JJ") and following.lower in _DETERMINERLESS and following.tag in ("NN", "PRP"):
        return "is an adjective before the pronoun"  # "a massive something", "a key something"
    if word in _PARTICLES and token.tag in ("RB", "RP") and following.tag in ("JJ", "VBN", "VBG"):
        return "is a particle, not a degree word, before"  # "out predictable", "already out littered"
    if word in _PREPOSITIONS and following.tag in ("IN", "TO") and following.lower != "that":
        return "is a preposition before the preposition"
    if token.tag in ("RB", "RBR", "RBS") and following.lower == "of":
        return "is an adverb between a noun and its"  # "a specimen once of", "an interpretation here of"
    if word in ("a", "an"):
        return _sound_problem(word, following)
    return None


def _sound_problem(article: str, following) -> str | None:
    """"a" before a vowel sound or "an" before a consonant's (clear cases only)."""
    if not following.text[:1].isalpha():
        return None
    nxt = following.lower
    if nxt.startswith(_EITHER_SOUND) or (len(nxt) > 1 and following.text.isupper()):
        return None  # acronyms and "uni-"/"una-" words: either may be right
    vowel = (nxt[0] in "aeiou" and not nxt.startswith(_CONSONANT_SOUND)) or nxt.startswith(_SILENT_H)
    if article == "a" and vowel:
        return "should be 'an' before"
    if article == "an" and not vowel:
        return "should be 'a' before"
    return None


def _number_problem(token, rest) -> str | None:
    """A determiner whose noun, past adjectives and adverbs, has the other number ("A great performances")."""
    word = token.lower
    singular = word in _SINGULAR_DETERMINERS and (token.tag == "DT" or word in ("a", "an"))
    plural = word in _PLURAL_DETERMINERS
    if not (singular or plural):
        return None
    for other in rest[:4]:
        if other.tag in _MODIFIER_TAGS or other.text == ",":
            continue
        if singular and other.tag == "NNS":
            return f"is singular but its noun {other.text!r} is plural"
        if plural and other.tag == "NN":
            return f"is plural but its noun {other.text!r} is singular"
        return None
    return None


def _same_word(a, b) -> bool:
    return a.lower == b.lower or a.lemma.lower() == b.lemma.lower() or (
        len(a.lower) >= 4 and len(b.lower) >= 4 and a.lower[:4] == b.lower[:4])


def _repeated(tokens, index: int):
    """The neighbour (any word next to it, or a content word two places away) that token ``index`` repeats."""
    token = tokens[index]
    for j in (index - 1, index + 1, index - 2, index + 2):
        if not 0 <= j < len(tokens) or tokens[j].is_punct:
            continue
        if abs(j - index) == 2 and (token.word_class is None or tokens[j].word_class is None):
            continue  # "the film and the plot" is fine: function words may come back two words on
        if _same_word(token, tokens[j]):
            return tokens[j]
    return None


class Prefilter:
    """A cheap early test for fillers: could ``word`` pass the neutral, hedge and vader checks as a ``tag``? (Its
    lemma is guessed from common endings; the validator decides with the lemma in context.) ``refused`` counts the
    proposals it turned away by check, for the test file: they never become candidates, so the validator's
    rejections do not count them."""

    def __init__(self, lexicon, vader: VaderLexicon | str | None = INSTALLED) -> None:
        self.lexicon = lexicon
        self.vader = load_vader() if isinstance(vader, str) else vader
        self.refused: Counter[str] = Counter()

    def __call__(self, word: str, tag: str) -> bool:
        check = self._refusal(word, tag)
        if check is not None:
            self.refused[check] += 1
        return check is None

    def _refusal(self, word: str, tag: str) -> str | None:
        lower = word.lower()
        if hedge_reason(lower) is not None:
            return HEDGE.name
        if lower in BLOCKED:
            return NEUTRAL.name
        if self.vader is not None and not self.vader.is_neutral(lower):
            return VADER.name
        cls = word_class(tag, "")
        if cls is None:
            return None
        forms = {lower, lower[:-1], lower[:-2], lower[:-3], lower[:-3] + "e", lower[:-2] + "e", lower[:-1] + "e"}
        if lower.endswith("ies"):
            forms.add(lower[:-3] + "y")
        return None if any(len(f) > 1 and self.lexicon.label(f, cls) == "neutral" for f in forms) else NEUTRAL.name


def prefilter(lexicon, vader: VaderLexicon | str | None = INSTALLED) -> Prefilter:
    """The fillers' early test (``Prefilter``) for ``lexicon`` and VADER's lexicon."""
    return Prefilter(lexicon, vader)
