"""Words an expansion must not insert because they change the claim the sentence makes, not just its wording.

A capability test keeps the label of its seed, so an inserted word has to leave what the sentence asserts alone.
SentiWordNet scores most of these words neutral (they carry no sentiment of their own), yet each one shifts how
sure, how often or how much the sentence says something is, and with it how strongly it expresses its sentiment:
"This one isn't certainly well meaning", "the plot is hardly original", "it usually works".
Each group says why; ``hedge_reason`` names the group of a word by its form, its lemma or a derivation of either
(``derivations``: the adjective of a listed adverb and the adverb of a listed adjective): a blind reader of the
default run found "incredible" inserted 31 times, "increasingly" 19, "literally" 18 and "potentially" 11 (79 of
1,365 expansions, #38) while the list held "incredibly" and "possibly"; "worth the incredible price of admission"
and "represents potentially better than average" strengthen or hedge the claim as the listed words do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from linguagym.capabilities.expansion.check import Check, Problem

HEDGE_GROUPS: dict[str, tuple[str, frozenset[str]]] = {
    "epistemic": ("says how sure the speaker is of the claim", frozenset({
        "probably", "certainly", "maybe", "perhaps", "possibly", "likely", "unlikely", "surely", "definitely",
        "apparently", "supposedly", "allegedly", "seemingly", "presumably", "arguably", "undoubtedly", "clearly",
        "obviously", "evidently", "doubtless", "conceivably", "hopefully", "actually", "indeed", "admittedly",
        "seem", "appear", "guess", "suppose", "potentially", "essentially", "basically", "technically",
        "ostensibly", "reportedly", "purportedly", "naturally", "inevitably", "necessarily", "presumptively"})),
    "frequency": ("turns a claim about this case into one about how often", frozenset({
        "usually", "often", "sometimes", "occasionally", "always", "generally", "typically", "normally",
        "frequently", "mostly", "ever", "once", "twice", "again", "anymore", "commonly", "regularly", "constantly",
        "continually", "repeatedly", "invariably", "forever"})),
    "downtoner": ("weakens or nearly cancels the claim", frozenset({
        "hardly", "barely", "scarcely", "rarely", "seldom", "almost", "nearly", "somewhat", "slightly", "partly",
        "partially", "fairly", "pretty", "relatively", "reasonably", "moderately", "marginally", "virtually",
        "practically", "kinda", "sorta", "mildly", "half"})),
    "intensifier": ("strengthens the claim (and with it the sentiment)", frozenset({
        "very", "extremely", "truly", "totally", "completely", "absolutely", "entirely", "utterly", "highly",
        "really", "particularly", "especially", "incredibly", "remarkably", "exceptionally", "thoroughly",
        "deeply", "strongly", "exceedingly", "terribly", "awfully", "super", "most", "so", "too", "quite",
        "profoundly", "hugely", "immensely", "enormously", "tremendously", "genuinely", "seriously", "downright",
        "outright", "fully", "wholly", "altogether", "literally", "increasingly", "considerably", "significantly",
        "substantially", "greatly", "vastly", "massively", "unbelievably", "extraordinarily", "unusually",
        "surprisingly", "notably", "overly", "excessively", "supremely", "intensely", "decidedly", "positively"})),
    "focus": ("restricts or stresses what the claim is about", frozenset({
        "only", "just", "merely", "simply", "even", "solely", "exclusively", "alone", "still", "already", "yet",
        "mainly", "largely", "purely", "chiefly", "primarily"})),
}


# Adjectives whose -ly adverb is listed but which themselves name a plain property ("a high wall", "a simple
# story", "the main character"): only their adverbs hedge or grade, so their derivation does not refuse them.
DESCRIPTIVE = frozenset({
    "high", "hard", "deep", "strong", "large", "simple", "clear", "full", "whole", "main", "near", "fair", "pure",
    "bare", "rare", "serious", "late", "natural", "technical", "common", "regular", "constant", "positive", "part"})


def derivations(word: str) -> set[str]:
    """``word`` (lower-cased) with the adjective an -ly adverb comes from ("incredibly" -> "incredible",
    "potentially" -> "potential", "happily" -> "happy", "truly" -> "true", "fully" -> "full") and the -ly adverb
    an adjective makes ("incredible" -> "incredibly", "literal" -> "literally", "increasing" -> "increasingly",
    "basic" -> "basically"); spellings that are no word are harmless, as only listed words are looked for."""
    lower = word.lower()
    forms = {lower}
    if len(lower) > 4 and lower.endswith("ly"):
        stem = lower[:-2]
        forms |= {stem, stem + "e", lower[:-1]}  # potential, true (tru + e), full (ful + l)
        if stem.endswith("i"):
            forms.add(stem[:-1] + "y")  # happily -> happy
        if lower.endswith(("bly", "ply", "tly", "dly", "kly", "gly")) and not lower.endswith("lly"):
            forms.add(lower[:-1] + "e")  # incredibly -> incredible, simply -> simple, gently -> gentle
        if lower.endswith("ically"):
            forms.add(lower[:-4])  # basically -> basic
    elif lower not in DESCRIPTIVE:
        forms |= {lower + "ly", lower + "y" if lower.endswith("ll") else lower + "ly"}
        if lower.endswith("le"):
            forms.add(lower[:-1] + "y")  # incredible -> incredibly, possible -> possibly
        if lower.endswith("y"):
            forms.add(lower[:-1] + "ily")  # happy -> happily
        if lower.endswith("ue"):
            forms.add(lower[:-1] + "ly")  # true -> truly
        if lower.endswith("ic"):
            forms.add(lower + "ally")  # basic -> basically
    return forms


def hedge_reason(*forms: str) -> str | None:
    """"a <group> word: it <why>" for the first of ``forms`` (the word as written, its lemma) that hedges, by itself
    or a derivation (``derivations``: "incredible" as "incredibly" does), else None."""
    for form in forms:
        for derived in sorted(derivations(form), key=lambda f: f != form.lower()):  # the form itself first
            for group, (why, words) in HEDGE_GROUPS.items():
                if derived in words:
                    via = "" if derived == form.lower() else f" (as {derived!r})"
                    return f"{'an' if group[0] in 'aeiou' else 'a'} {group} word{via}: it {why}"
    return None


def hedge_problems(tokens: Sequence, index: int, word: str, vader: Any = None) -> list[Problem]:
    """The ``hedge`` refusal of the filled ``word`` (``tokens[index]`` in the analysed sentence)."""
    token = tokens[index]
    hedge = hedge_reason(token.text, token.lemma)
    return [HEDGE.problem(f"{word!r} is {hedge}")] if hedge is not None else []


HEDGE = Check("hedge", "word", "an epistemic, frequency, degree or focus word (``HEDGE_GROUPS``)", hedge_problems)
