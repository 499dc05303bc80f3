"""A sentence negated for CheckList's directional tests (its ``Perturb.add_negation``), placed by spaCy's
dependency parse: the main clause's finite verb (its first auxiliary, a main-verb "be", or the bare main verb by
do-support) takes the negation, by ``seeds.negation.negate`` (the one negation LC4/LC5's templates use too): "will
not be", "was not loved", "cannot", "is certainly not good", "is not very good", "loved it" -> "did not love it".

A sentence is refused (``Negation.refused`` says why, one of ``REFUSALS``) rather than negated in the wrong place:

- ``already negated``, ``question``: negating again ("isn't not") or a question says something else;
- ``no finite verb``: no verb heads the first sentence ("A gorgeous, witty movie."), or it is a bare participle,
  or the sentence is a headline-like fragment the parse read as a clause: an indefinite subject opening it ("A
  ...") with a past form or a modal for its verb ("A sun drenched masterpiece", "A backstage must see for fans",
  "A passionately inquisitive film determined to ...");
- ``no main clause``: the parse's head is not a main clause's verb: it opens with a subordinator ("Though it
  drags, ..." parsed as the head), stands inside a quotation or a title ("My Wife Is an Actress works ...": a
  capitalised verb inside the sentence is a title's), or lies between a concessive subordinator (although,
  though, even if, even though, while, whereas) and the comma that closes it, or follows a clause the parse put
  under it ("The film was made with affection, so we believe ...": the first clause is the claim);
- ``adverb keeps the claim``: a frequency or focus adverb on the verb ("sometimes descends", "only shows"):
  negated under it, the claim is not reversed ("sometimes does not descend");
- ``second clause``: the verb has a coordinated verb ("It works and delivers"): the negation would reach the
  first only;
- ``sentiment outside the negated clause``: a positive evaluative word stands outside the negation's reach: in a
  second sentence, an appositive ("..., a wonderful ensemble, ..."), an adverbial clause, a conjunct after
  "but/yet". Then the pair would not say what DIR claims (the text is less positive); criticism there ("Although
  it drags, the film works") only makes the negated text more negative, and is allowed;
- ``mixed sentiment``: the negated clause holds both praise and criticism ("as rude and profane as ever, always
  hilarious"; "between wickedly funny and just plain wicked"): which of them the negation reverses is unclear;
- ``cannot place the negation``: ``negate`` found no English place for it (a negation or approximator after the
  verb, a verb it has no base form for, "have" followed by a quantifier, which is a main verb's: "have enough", a
  manner adverb just before a main verb: "rapidly does not develop").

Evaluative words are adjectives, adverbs, verbs, nouns and interjections that VADER's lexicon rates at
``EVALUATIVE_VALENCE`` or more either way (by form or lemma); without VADER (the ``[lct]`` extra brings it) every
adjective counts, which refuses more than it needs to. Like CheckList, only the first sentence is negated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from linguagym.capabilities.data.analysis import Analysis, Token
from linguagym.capabilities.seeds.negation import CannotNegate, negate

NEGATION_WORDS = re.compile(r"\b(not|no|never|nothing|nobody|none|neither|nor|without|cannot)\b|n[’']t\b",
                            re.IGNORECASE)
_FINITE = frozenset({"VBD", "VBZ", "VBP"})

ALREADY_NEGATED = "already negated"
QUESTION = "question"
NO_VERB = "no finite verb"
NO_MAIN_CLAUSE = "no main clause"
ADVERB = "adverb keeps the claim"
SECOND_CLAUSE = "second clause"
SENTIMENT_OUTSIDE = "sentiment outside the negated clause"
MIXED = "mixed sentiment"
CANNOT_PLACE = "cannot place the negation"
REFUSALS = (ALREADY_NEGATED, QUESTION, NO_VERB, NO_MAIN_CLAUSE, ADVERB, SECOND_CLAUSE, SENTIMENT_OUTSIDE, MIXED,
            CANNOT_PLACE)
# words after "have" that make it a main verb ("have enough acting"), whatever the parse says
_HAVE_OBJECTS = frozenset({"enough", "a", "an", "the", "some", "many", "much", "plenty", "lots", "more", "few"})
_PAST_OR_MODAL = frozenset({"VBD", "VBN", "MD"})

EVALUATIVE_VALENCE = 0.8  # VADER's mean rating (-4..4): "good" 1.9, "well" 1.1, "worth" 0.9, "fine" 0.8
# word classes that can carry a sentiment of their own ("like" the preposition, "sure" in "for sure" as a verb's
# particle do not)
_CONTENT = frozenset({"ADJ", "ADV", "VERB", "NOUN", "INTJ"})
CONCESSIVE = ("although", "though", "even if", "even though", "while", "whereas", "despite", "in spite of")
# adverbs on the verb under whose scope a negation does not reverse the claim ("sometimes does not descend")
CLAIM_ADVERBS = frozenset({"sometimes", "often", "usually", "always", "occasionally", "rarely", "seldom",
                           "mostly", "largely", "partly", "only", "even", "merely", "frequently", "generally",
                           "typically", "mainly", "almost", "nearly", "hardly", "barely", "scarcely"})
# dependents whose words the negation of the head verb does not reach
_OUT_OF_SCOPE = frozenset({"appos", "parataxis", "advcl", "dep", "meta"})
_CONTRASTIVE = frozenset({"but", "yet", "though", "although", "whereas", "while"})
_QUOTES = "\"“”"


@dataclass(frozen=True)
class Negation:
    """The negated text, or None and why not (one of ``REFUSALS``)."""

    text: str | None
    refused: str | None = None


Evaluative = Callable[[Any], bool]  # a spaCy token -> whether it carries sentiment of its own


def evaluative_words(polarity: str = "any") -> Evaluative:
    """Whether a spaCy token is evaluative: a content word (``_CONTENT``) whose form or lemma VADER rates at
    ``EVALUATIVE_VALENCE`` or more, either way (``polarity`` any), above zero (positive) or below (negative);
    without VADER, whether it is an adjective (whatever ``polarity``)."""
    from linguagym.capabilities.data.vader import load_vader

    vader = load_vader()
    if vader is None:
        return lambda token: token.pos_ == "ADJ"
    sign = {"any": 0, "positive": 1, "negative": -1}[polarity]

    def rated(token) -> bool:
        if token.pos_ not in _CONTENT:
            return False
        value = max((vader.valence(token.text), vader.valence(token.lemma_)), key=abs)
        return abs(value) >= EVALUATIVE_VALENCE and (sign == 0 or value * sign > 0)

    return rated


def add_negation(doc, evaluative: Evaluative | None = None) -> str | None:
    """The text of ``doc`` (a spaCy ``Doc`` with a dependency parse) with its main clause's verb negated; None where
    that cannot be done reliably (``negate_main_clause`` says why)."""
    return negate_main_clause(doc, evaluative).text


def negate_main_clause(doc, evaluative: Evaluative | None = None) -> Negation:
    """``doc`` with its first sentence's main-clause verb negated, or the reason it is refused. ``evaluative``:
    which tokens outside the negated clause refuse it (default ``evaluative_words("positive")``: praise left
    standing keeps a negated positive sentence positive; criticism there, "Although it drags, ...", does not)."""
    text = doc.text
    if NEGATION_WORDS.search(text):
        return Negation(None, ALREADY_NEGATED)
    if "?" in text:
        return Negation(None, QUESTION)
    sentence = next(iter(doc.sents), None)
    if sentence is None or len(sentence) < 2 or sentence.root.pos_ not in ("VERB", "AUX"):
        return Negation(None, NO_VERB)
    root = sentence.root
    auxiliaries = [child for child in root.children if child.dep_ in ("aux", "auxpass") and child.i < root.i]
    verb = auxiliaries[0] if auxiliaries else root
    if verb is root and root.lemma_ != "be" and root.tag_ not in _FINITE:
        return Negation(None, NO_VERB)  # a bare participle or infinitive: nothing finite to negate
    if _headline_fragment(sentence, root, verb):
        return Negation(None, NO_VERB)
    if _not_main(doc, sentence, root, verb):
        return Negation(None, NO_MAIN_CLAUSE)
    if any(child.dep_ in ("advmod", "npadvmod") and child.lower_ in CLAIM_ADVERBS for child in root.children):
        return Negation(None, ADVERB)
    if any(child.dep_ == "conj" and child.pos_ in ("VERB", "AUX") for child in root.children):
        return Negation(None, SECOND_CLAUSE)
    evaluative = evaluative if evaluative is not None else evaluative_words("positive")
    reach = negated_clause(sentence, root)
    if any(evaluative(token) for token in doc if token.i not in reach and not token.is_punct):
        return Negation(None, SENTIMENT_OUTSIDE)
    if _mixed(doc, reach):
        return Negation(None, MIXED)
    if verb is root and root.i > sentence.start and doc[root.i - 1].dep_ == "advmod" \
            and doc[root.i - 1].lower_.endswith("ly"):
        return Negation(None, CANNOT_PLACE)  # "rapidly develops": "rapidly does not develop" misplaces the adverb
    if verb.lemma_ == "have" and verb.i + 1 < len(doc) and doc[verb.i + 1].lower_ in _HAVE_OBJECTS:
        return Negation(None, CANNOT_PLACE)  # "have enough ..." is a main verb's: "do not have", not "have not"
    try:
        return Negation(negate(_analysis(doc), verb.idx))
    except CannotNegate:
        return Negation(None, CANNOT_PLACE)


UNREACHED = "an evaluative phrase the negation does not reach"


def unreached_sentiment(doc, verb_start: int, evaluative: Evaluative) -> bool:
    """Whether, with the verb at character ``verb_start`` negated, an evaluative word after it stands outside the
    negation's reach (``negated_clause``): an appositive, an adverbial clause, a contrasted conjunct, a second
    sentence ("This is not a train wreck ..., a stupefying attempt ..."). LC4/LC5 refuse such seeds."""
    verb = next((t for t in doc if t.idx == verb_start), None)
    if verb is None:
        return False
    head = verb.head if verb.dep_ in ("aux", "auxpass") else verb
    reach = negated_clause(verb.sent, head)
    return any(evaluative(token) for token in doc[verb.i + 1:] if token.i not in reach and not token.is_punct)


def negated_clause(sentence, root) -> set[int]:
    """The token indices a negation of ``root`` reaches: its subtree less appositives, parenthetical and adverbial
    clauses, unattached pieces (``dep``: a lost dash's run-on) and conjuncts after a contrastive "but"/"yet"."""
    left_out: set[int] = set()
    for token in root.subtree:
        if token.i in left_out:
            continue
        if token.dep_ in _OUT_OF_SCOPE or (token.dep_ == "conj" and _contrasted(token)):
            left_out.update(t.i for t in token.subtree)
    return {t.i for t in sentence if t.i not in left_out}


def _contrasted(conjunct) -> bool:
    """A conjunct joined by a contrastive word: a ``cc`` (or a comma-led adverb) between its head and it."""
    head = conjunct.head
    between = [t for t in head.children if t.dep_ in ("cc", "advmod", "mark") and head.i < t.i < conjunct.i]
    return any(t.lower_ in _CONTRASTIVE for t in between)


def _headline_fragment(sentence, root, verb) -> bool:
    """Whether the sentence opens with an indefinite subject ("A ...") whose verb is a past form or a modal: review
    fragments the parse reads as clauses ("A sun drenched masterpiece"), never a claim to negate."""
    first = sentence[0]
    if first.lower_ not in ("a", "an") or verb.tag_ not in _PAST_OR_MODAL:
        return False
    subject = next((child for child in root.children if child.dep_ in ("nsubj", "nsubjpass")), None)
    return subject is not None and subject.left_edge.i == first.i


_PREDICATIVE = frozenset({"acomp", "attr", "oprd", "conj"})


def _mixed(doc, reach: set[int]) -> bool:
    """Whether the negated clause predicates both praise and criticism: a positive and a negative evaluative word
    each a complement or a conjunct ("is as rude ... as ever, always hilarious"); a modifier does not count ("scary
    in a good way" is praise)."""
    positive, negative = evaluative_words("positive"), evaluative_words("negative")
    words = [doc[i] for i in sorted(reach) if doc[i].dep_ in _PREDICATIVE]
    return any(positive(t) for t in words) and any(negative(t) for t in words)


def _not_main(doc, sentence, root, verb) -> bool:
    """Whether the verb to negate is not a main clause's: the head carries a subordinator, or follows a clause the
    parse put under it ("..., so we believe ..."), or the verb stands in a quotation, a title (capitalised inside
    the sentence), or a concessive clause."""
    if any(child.dep_ == "mark" for child in root.children):
        return True
    if any(child.dep_ == "ccomp" and child.i < root.i for child in root.children):
        return True
    for token in {root, verb}:
        if _quoted(doc.text, token.idx) or _in_concessive(doc.text, token.idx):
            return True
        if token.i != sentence.start and token.text[:1].isupper() and token.text != "I":
            before = doc[token.i - 1]
            if before.text not in _QUOTES and before.text not in (":", "(", "—", "-", "--"):
                return True
    return False


def _quoted(text: str, at: int) -> bool:
    """Whether character ``at`` lies between an opening and a closing double quote."""
    return sum(text[:at].count(q) for q in _QUOTES) % 2 == 1


def _in_concessive(text: str, at: int) -> bool:
    """Whether character ``at`` lies after a concessive subordinator and before the comma that ends its clause."""
    before = text[:at].lower()
    for word in CONCESSIVE:
        for found in re.finditer(rf"\b{word}\b", before):
            if "," not in before[found.end():]:
                return True
    return False


def _analysis(doc) -> Analysis:
    """The tokens ``negate`` reads (text, lemma, tags, offsets) from a parsed ``Doc``; no lexicon is needed."""
    tokens = tuple(Token(t.text, t.lemma_, t.tag_, t.pos_, t.idx, t.idx + len(t.text), bool(t.is_punct), None, None)
                   for t in doc if not t.is_space)
    return Analysis(doc.text, tokens)
