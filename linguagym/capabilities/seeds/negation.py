"""Negate a sentence's main verb from its tags: ``is`` -> ``is not``/``isn't``, ``can`` -> ``cannot``/``can't``,
``has been`` -> ``has not been``, and do-support for main verbs (``stinks`` -> ``does not stink``).

Where the negation goes among adverbs decides what it negates. Sentence, focus and frequency adverbs right after
the verb keep their scope and the negation comes after them (``is certainly not bad``, ``is also not bad``): put
before them it negates the adverb (``is not certainly bad``). Degree adverbs (``very``, ``so``, ``really``) are
part of the predicate, and the negation comes before them (``is not very good``), as English says it.
"""

from __future__ import annotations

from linguagym.capabilities.data.analysis import Analysis, Token

# adverbs after the verb that the negation follows (full form only: "is certainly not", never "is certainly n't")
SCOPE_ADVERBS = frozenset({
    "certainly", "definitely", "clearly", "obviously", "surely", "undoubtedly", "indeed", "probably", "actually",
    "truly", "also", "still", "simply", "just", "again", "therefore", "thus", "now", "sadly",
    "unfortunately", "frankly", "honestly", "ultimately", "finally", "basically", "essentially", "admittedly",
})
_BE = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "am": None}
_MODALS = {"can": ("cannot", "can't"), "will": ("will not", "won't"), "would": ("would not", "wouldn't"),
           "could": ("could not", "couldn't"), "should": ("should not", "shouldn't"),
           "must": ("must not", "mustn't"), "might": ("might not", None), "may": ("may not", None),
           "shall": ("shall not", None)}
_HAVE = {"has": "hasn't", "have": "haven't", "had": "hadn't"}
_DO = {"VBZ": ("does not", "doesn't"), "VBP": ("do not", "don't"), "VBD": ("did not", "didn't")}
FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})
_BREAKS = frozenset({",", ";", ":", "...", "…", "--", "-", "(", ")"})
# words after the verb that a negation would double or clash with ("is not in biography but ...", "will do little")
NEGATIONS = frozenset({"not", "n't", "never", "no", "nothing", "neither", "nor", "hardly", "barely", "scarcely",
                       "little", "few", "nobody", "none", "nowhere"})
# approximators after the verb: negated, the sentence denies the approximation or becomes an idiom instead of
# reversing the claim ("is not about as necessary as a hole in the head" is still sarcastic and not English,
# "isn't amusing for about three minutes" still says it is not amusing, "is not nearly perfect" is far from it)
APPROXIMATORS = frozenset({"about", "almost", "nearly", "roughly", "approximately", "practically", "virtually"})


class CannotNegate(ValueError):
    """The verb is not one this module knows how to negate."""


def negate(analysis: Analysis, verb_start: int, short: bool = False) -> str:
    """``analysis.text`` with the verb token starting at character ``verb_start`` negated; ``short``: the contracted
    form where English has one and no adverb comes between (``isn't``, ``can't``, ``doesn't``)."""
    tokens = analysis.tokens
    index = next((i for i, t in enumerate(tokens) if t.start == verb_start), None)
    if index is None:
        raise CannotNegate(f"no token starts at {verb_start}")
    verb = tokens[index]
    text = analysis.text
    word = verb.lower
    if any(t.lower in NEGATIONS for t in tokens[index + 1:]):
        raise CannotNegate(f"{text!r} already has a negation after {verb.text!r}")
    if (approximator := _approximator(tokens, index)) is not None:
        raise CannotNegate(f"{text!r} has the approximator {approximator!r} after {verb.text!r}")
    if word.startswith("'"):  # a clitic: "That's" -> "That's not" / "That isn't"
        return _negate_clitic(analysis, index, short)
    if word in _BE or word in _MODALS or (word in _HAVE and _is_auxiliary(tokens, index)) or (
            word in ("do", "does", "did") and verb.pos == "AUX"):
        after = _after_scope_adverbs(tokens, index)
        if after is not None:  # "is certainly" + " not": the negation after the adverbs, full form
            return text[:after] + " not" + text[after:]
        return text[:verb.start] + _negated_auxiliary(verb, short) + text[verb.end:]
    if verb.tag in _DO:
        full, contracted = _DO[verb.tag]
        lemma = verb.lemma.lower() if verb.text.islower() else verb.lemma
        if verb.tag == "VBZ":  # the spelling rule, not the lemmatiser's guess ("shines" -> "shin")
            lemma = third_person_base(verb.text) or lemma
        if not lemma.isalpha() or word.endswith("ly"):  # "flails limply": the tagger took the adverb for the verb
            raise CannotNegate(f"no base form for {verb.text!r}")
        return text[:verb.start] + (contracted if short else full) + " " + lemma + text[verb.end:]
    raise CannotNegate(f"{verb.text!r} ({verb.tag}) is not a finite verb this can negate")


# -es is a suffix after these; a stem in a single s or z takes -s ("rises", "tantalizes" from "tantalize")
_SIBILANT_OR_O = ("ss", "zz", "x", "ch", "sh", "o")
_IRREGULAR_THIRD = {"has": "have", "does": "do", "is": "be"}


def third_person_base(word: str) -> str | None:
    """The base form of a third-person singular present verb by English spelling: ``-ies`` after a consonant is
    ``-y`` (flies), ``-es`` is a suffix only after s, x, z, ch, sh or o (watches, goes; so "shines" is "shine", not
    spaCy's "shin"; a single s or z takes ``-s``: "tantalizes" is "tantalize"), else ``-s`` (stinks); ``None`` for a
    word that is not so formed."""
    lower = word.lower()
    if lower in _IRREGULAR_THIRD:
        base = _IRREGULAR_THIRD[lower]
    elif len(lower) > 4 and lower.endswith("ies") and lower[-4] not in "aeiou":  # (dies, lies: -s)
        base = lower[:-3] + "y"
    elif lower.endswith("es") and lower[:-2].endswith(_SIBILANT_OR_O):
        base = lower[:-2]
    elif lower.endswith("s") and not lower.endswith("ss") and len(lower) > 2:
        base = lower[:-1]
    else:
        return None
    return base if word.islower() else word[:len(base)] if word[:len(base)].lower() == base else base


_CLITICS = {("'s", "be"): "isn't", ("'re", "be"): "aren't", ("'s", "have"): "hasn't", ("'ve", "have"): "haven't"}


def _negate_clitic(analysis: Analysis, index: int, short: bool) -> str:
    tokens, text = analysis.tokens, analysis.text
    verb = tokens[index]
    contracted = _CLITICS.get((verb.lower, verb.lemma.lower()))
    if contracted is None or (verb.lemma.lower() == "have" and not _is_auxiliary(tokens, index)):
        raise CannotNegate(f"{verb.text!r} ({verb.lemma}) is not a clitic this can negate")
    after = _after_scope_adverbs(tokens, index)
    if after is not None:
        return text[:after] + " not" + text[after:]
    if short:
        return text[:verb.start] + " " + contracted + text[verb.end:]
    return text[:verb.end] + " not" + text[verb.end:]


def _approximator(tokens: tuple[Token, ...], index: int) -> str | None:
    """The first approximator after the verb, or None. "about" only before "as" or a number, or tagged as an
    adverb: elsewhere it is the preposition ("a film about love"), and the tagger takes "about as" for one too."""
    for at in range(index + 1, len(tokens)):
        token = tokens[at]
        if token.lower not in APPROXIMATORS:
            continue
        following = tokens[at + 1] if at + 1 < len(tokens) else None
        if token.lower != "about" and token.tag.startswith("RB"):
            return token.text
        if token.lower == "about" and (token.tag == "RB" or (
                following is not None and (following.lower == "as" or following.tag == "CD"))):
            return token.text
    return None


def _negated_auxiliary(verb: Token, short: bool) -> str:
    word = verb.lower
    if word in _MODALS:
        full, contracted = _MODALS[word]
    else:
        contracted = _BE.get(word) or _HAVE.get(word) or {"do": "don't", "does": "doesn't", "did": "didn't"}.get(word)
        full = word + " not"
    chosen = contracted if short and contracted else full
    return chosen[:1].upper() + chosen[1:] if verb.text[:1].isupper() else chosen


def _is_auxiliary(tokens: tuple[Token, ...], index: int) -> bool:
    """``have`` helping a participle (``has been``, ``have never seen``) rather than meaning possession."""
    for token in tokens[index + 1:]:
        if token.tag.startswith("RB"):
            continue
        return token.tag == "VBN"
    return False


def _after_scope_adverbs(tokens: tuple[Token, ...], index: int) -> int | None:
    """The end offset of the run of scope adverbs right after the verb, or None when none follows."""
    end = None
    for token in tokens[index + 1:]:
        if token.lower not in SCOPE_ADVERBS:
            break
        end = token.end
    return end


_SENTENCE_ENDS = frozenset({".", "!", "?"})
_SUBJECT_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "EX", "CD"})
_PRONOUN_DETERMINERS = frozenset({"this", "that", "these", "those", "all", "some", "none", "each", "both"})


# tags a subject (the words before the first finite verb) is made of: a plain noun phrase or pronoun
_SUBJECT_PHRASE_TAGS = _SUBJECT_TAGS | {"DT", "PDT", "JJ", "JJR", "JJS", "PRP$", "POS", "RB", "RBR", "RBS", "HYPH",
                                        "``", "''"}


def is_clause(analysis: Analysis) -> bool:
    """A sentence that starts with its subject, a plain noun phrase or pronoun, then its finite verb, so that it
    can follow "I thought that". Not: "A good film." (no verb), "Nicely serves as ..." (no subject), "Smarter than
    its commercials make it seem.", "An edgy thriller that delivers a punch." (the verb is not the subject's),
    and, conservatively, "Despite its plot, Empire has ..." (anything but a noun phrase before the verb). One
    sentence only: "... moviemaking. You won't exactly know ..." cannot follow "that"."""
    tokens = analysis.tokens
    if _sentences(tokens) > 1:
        return False
    for index, token in enumerate(tokens):
        if token.tag in FINITE_TAGS:
            subject = tokens[:index]
            return (all(t.tag in _SUBJECT_PHRASE_TAGS or t.text == '"' for t in subject)
                    and any(t.tag in _SUBJECT_TAGS or t.lower in _PRONOUN_DETERMINERS for t in subject))
    return False


def _sentences(tokens: tuple[Token, ...]) -> int:
    """Sentences by their ends: a ``.``, ``!`` or ``?`` token followed by a word (an abbreviation's period is part
    of its token, so "Mr. Smith" and "L.A.'s" are one)."""
    ends = sum(1 for token, after in zip(tokens, tokens[1:], strict=False)
               if token.text in _SENTENCE_ENDS and not after.is_punct)
    return ends + 1


def clauses(analysis: Analysis) -> int:
    """The clauses of a sentence, counted conservatively from tags: finite verbs and modals (``can be`` and ``does
    not like`` are one each; ``is bad and the plot is thin`` two), plus each break (comma, semicolon, colon, dash,
    ellipsis, bracket) after the first of them, where another clause or a phrase with its own sentiment may
    start (``isn't dull, instantly forgettable and thoroughly dull``)."""
    count = 0
    for token in analysis.tokens:
        if token.tag in FINITE_TAGS or (count and token.text in _BREAKS):
            count += 1
    return count
