"""The fills of one ``fill`` call judged in stages over one spaCy pipeline, each stage on the fills the one before
kept (``Validator.screen``):

1. every fill tagged (tok2vec and tagger), then the ``tag`` check (``tag_check``);
2. those whose filled words carry their masks' tags re-parsed: the parser on a copy of each doc, reading the
   tagger's vectors from it (``doc.tensor``), then the ``constituent`` check;
3. those the parse keeps analysed: attribute ruler and lemmatizer on the unparsed doc, as in the analyser's own
   pipeline, which has no parser (the ruler has rules that read dependencies).

Tagging is about 60% of a parse, and the tag check refuses 95% of the fills that the re-parse refuses, so this
does about half the work of re-parsing every fill and analysing the survivors again (docs/performance.md,
"Expansion"). The tags, trees and analyses are those of the separate pipelines, so the verdicts are too; a fill
that both checks refuse is counted as a ``tag`` refusal rather than a ``constituent`` one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from linguagym.capabilities.data.analysis import Analyser, Analysis, tagged_tokens
from linguagym.capabilities.expansion.check import Problem
from linguagym.capabilities.expansion.constituent import constituent_problems
from linguagym.capabilities.expansion.differentiate import MaskedSentence
from linguagym.capabilities.expansion.tag_check import tag_problems
from linguagym.capabilities.syntax.parsers import SpacyParser

Fill = tuple[MaskedSentence, Sequence[str], str, Sequence[tuple[int, int]]]  # masked, words, text, spans
_ANALYSER_PIPES = ["tok2vec", "tagger", "attribute_ruler", "lemmatizer"]


def can_stage(parser: Any, analyser: Analyser) -> TypeGuard[SpacyParser]:
    """Whether ``parser``'s pipeline holds the analyser's: spaCy's parser over the same model, whose pipes are
    the analyser's plus the parser, with the attribute ruler and lemmatizer loaded but not run by the parse (the
    default; a ruler with its own tag rules runs in the parse, and then the fills go the plain way)."""
    if not isinstance(parser, SpacyParser) or parser.model != analyser.model:
        return False
    nlp = parser.nlp
    return (analyser.nlp.pipe_names == _ANALYSER_PIPES and nlp.pipe_names == ["tok2vec", "tagger", "parser"]
            and {"attribute_ruler", "lemmatizer"} <= set(nlp.disabled))


class _Token:
    __slots__ = ("start", "end", "tag")

    def __init__(self, token: Any) -> None:
        self.start, self.end, self.tag = token.idx, token.idx + len(token.text), token.tag_


def screen(parser: SpacyParser, analyser: Analyser,
           fills: Sequence[Fill]) -> list[tuple[list[Problem], Analysis | None]]:
    """For each fill, its ``tag`` or ``constituent`` problems, or none and its analysis (see the module)."""
    nlp = parser.nlp
    batch = parser.batch_size
    docs = list(nlp.pipe([text for _, _, text, _ in fills], disable=["parser"], batch_size=batch))
    out: list[tuple[list[Problem], Analysis | None]] = [([], None)] * len(fills)
    tagged = []
    for i, ((masked, words, _, spans), doc) in enumerate(zip(fills, docs, strict=True)):
        tokens = [_Token(t) for t in doc if not t.is_space]
        problems = tag_problems(tokens, words, spans, [m.tag for m in masked.masks])
        if problems:
            out[i] = (problems, None)
        else:
            tagged.append(i)
    kept = []
    parsed = nlp.get_pipe("parser").pipe([docs[i].copy() for i in tagged], batch_size=batch)
    for i, doc in zip(tagged, parsed, strict=True):
        masked, words, text, spans = fills[i]
        problems = constituent_problems(parser.parsed(text, doc), masked, words, spans)
        if problems:
            out[i] = (problems, None)
        else:
            kept.append(i)
    analysed: Any = [docs[i] for i in kept]
    for name in _ANALYSER_PIPES[2:]:
        analysed = nlp.get_pipe(name).pipe(analysed, batch_size=batch)
    for i, doc in zip(kept, analysed, strict=True):
        out[i] = ([], analyser.from_tagged(fills[i][2], tagged_tokens(doc)))
    return out
