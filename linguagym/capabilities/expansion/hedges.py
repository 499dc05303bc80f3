"""Words an expansion must not insert because they change the claim the sentence makes, not just its wording.

A capability test keeps the label of its seed, so an inserted word has to leave what the sentence asserts alone.
SentiWordNet scores most of these words neutral (they carry no sentiment of their own), yet each one shifts how
sure, how often or how much the sentence says something is, and with it how strongly it expresses its sentiment:
"This one isn't certainly well meaning", "the plot is hardly original", "it usually works".
Each group says why; ``hedge_reason`` names the group of a word (by its form or its lemma).
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
        "seem", "appear", "guess", "suppose"})),
    "frequency": ("turns a claim about this case into one about how often", frozenset({
        "usually", "often", "sometimes", "occasionally", "always", "generally", "typically", "normally",
        "frequently", "mostly", "ever", "once", "twice", "again", "anymore", "commonly", "regularly"})),
    "downtoner": ("weakens or nearly cancels the claim", frozenset({
        "hardly", "barely", "scarcely", "rarely", "seldom", "almost", "nearly", "somewhat", "slightly", "partly",
        "partially", "fairly", "pretty", "relatively", "reasonably", "moderately", "marginally", "virtually",
        "practically", "kinda", "sorta", "mildly", "half"})),
    "intensifier": ("strengthens the claim (and with it the sentiment)", frozenset({
        "very", "extremely", "truly", "totally", "completely", "absolutely", "entirely", "utterly", "highly",
        "really", "particularly", "especially", "incredibly", "remarkably", "exceptionally", "thoroughly",
        "deeply", "strongly", "exceedingly", "terribly", "awfully", "super", "most", "so", "too", "quite",
        "profoundly", "hugely", "immensely", "enormously", "tremendously", "genuinely", "seriously", "downright",
        "outright", "fully", "wholly", "altogether"})),
    "focus": ("restricts or stresses what the claim is about", frozenset({
        "only", "just", "merely", "simply", "even", "solely", "exclusively", "alone", "still", "already", "yet",
        "mainly", "largely", "purely", "chiefly", "primarily"})),
}


def hedge_reason(*forms: str) -> str | None:
    """"a <group> word: it <why>" for the first of ``forms`` (the word as written, its lemma) that hedges, else
    None."""
    for form in forms:
        lower = form.lower()
        for group, (why, words) in HEDGE_GROUPS.items():
            if lower in words:
                return f"{'an' if group[0] in 'aeiou' else 'a'} {group} word: it {why}"
    return None


def hedge_problems(tokens: Sequence, index: int, word: str, vader: Any = None) -> list[Problem]:
    """The ``hedge`` refusal of the filled ``word`` (``tokens[index]`` in the analysed sentence)."""
    token = tokens[index]
    hedge = hedge_reason(token.text, token.lemma)
    return [HEDGE.problem(f"{word!r} is {hedge}")] if hedge is not None else []


HEDGE = Check("hedge", "word", "an epistemic, frequency, degree or focus word (``HEDGE_GROUPS``)", hedge_problems)
