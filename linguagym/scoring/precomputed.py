"""lm-zoo surprisal TSV: read as a Scorer, write from scored texts.

Format: header ``sentence_id token_id token surprisal``; ids count from 1 (``token_id`` is the position in
the sentence, not a vocabulary id); surprisal in bits; one row per token.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.scoring.protocol import ScoredText, ScorerBase, SentenceMarkers, TokenScore, nothing_held
from linguagym.userfiles import RefusedFile, read_regular

MAX_SURPRISAL_BYTES = 1 << 30  # 1 GiB: lm-zoo's TSV for all of SyntaxGym is about 10 MB
HEADER = ["sentence_id", "token_id", "token", "surprisal"]
_UNKNOWN = {"<unk>", "<UNK>", "[UNK]", "<oov>"}
_SKIPPED = {"<eos>", "</s>", "<s>", "<|endoftext|>", "[CLS]", "[SEP]", "<bos>"}  # sentence markers: context
_ID = re.compile(r"[0-9]{1,9}")  # ASCII digits: int() would also take " 1", "1_0" and "١"
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # float() also takes "1_0"


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, reversed: the printable character standing for each byte."""
    chosen = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    codes, extra = list(chosen), 0
    for byte in range(256):
        if byte not in chosen:
            chosen.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(chosen, codes, strict=True)}


def _candidates(token: str) -> list[bytes]:
    """UTF-8 spellings of ``token`` that may appear in the text, most literal first."""
    found = [token.encode()]
    stripped = token.removeprefix("##")
    for marker in ("Ġ", "▁", "Ċ"):
        stripped = stripped.replace(marker, "")
    found.append(stripped.encode())
    decoder = _byte_decoder()
    if all(ch in decoder for ch in token):  # byte-level BPE: may hold part of a multi-byte character
        raw = bytes(decoder[ch] for ch in token)
        found += [raw, raw.lstrip(b" \n\t")]
    return [c for c in dict.fromkeys(found) if c]


def align_tokens(text: str, tokens: Sequence[str]) -> list[tuple[int, int, bool] | None]:
    """For each token, its (start, end, unknown) in ``text``, scanning left to right; None where not found.

    Matching is on UTF-8 bytes, so byte-level pieces of one character each get that character's span
    (overlapping, as the tokenizers' own offsets do). A token may be preceded by whitespace; its span then
    starts at that whitespace (like byte-level BPE offsets). Unknown-word markers (``<unk>``) take the next
    whitespace-delimited word. Sentence markers such as ``<eos>`` get an empty span.
    """
    data = text.encode()
    char_at = [0] * (len(data) + 1)  # byte offset -> index of the character holding it
    ends = [0] * (len(data) + 1)  # byte offset -> index just after the character holding the byte before
    offset = 0
    for index, char in enumerate(text):
        width = len(char.encode())
        for b in range(offset, offset + width):
            char_at[b] = index
            ends[b + 1] = index + 1
        offset += width
    char_at[len(data)] = len(text)
    spans: list[tuple[int, int, bool] | None] = []
    position = 0
    for token in tokens:
        gap = position
        while gap < len(data) and data[gap : gap + 1].isspace():
            gap += 1
        if token in _SKIPPED:
            spans.append((char_at[position], char_at[position], False))
            continue
        if token in _UNKNOWN:
            end = gap
            while end < len(data) and not data[end : end + 1].isspace():
                end += 1
            spans.append((char_at[position], ends[end], True) if end > gap else None)
            position = end
            continue
        # A candidate may spell its own leading whitespace (byte-level "Ġ"), else whitespace is skipped.
        tries = [(c, at) for c in _candidates(token) for at in (position, gap) if at == position or gap > position]
        for candidate, at in tries:
            piece = data[at : at + len(candidate)]
            if piece == candidate or piece.lower() == candidate.lower():
                end = at + len(candidate)
                spans.append((char_at[position], ends[end], False))
                position = end
                break
        else:
            spans.append(None)
            return spans  # later tokens cannot be placed once one is lost
    return spans


class PrecomputedScorer(ScorerBase):
    """Surprisals read from an lm-zoo TSV, for texts that its sentences spell (see ``score``)."""

    cacheable = False  # the file is its own record of the scores

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:  # a FIFO would block, a device never end: only a regular file of bounded size
            raw = read_regular(self.path, limit=MAX_SURPRISAL_BYTES, what="surprisal file")
        except RefusedFile as refused:
            problem = "does not exist" if refused.missing else refused.problem
            raise ConfigurationError(
                f"surprisal file {str(self.path)!r} {problem}",
                hint="give the path of an lm-zoo TSV (sentence_id token_id token surprisal)",
            ) from None
        self._sentences = _read(self.path, raw)
        self._sha256 = hashlib.sha256(raw).hexdigest()
        self._cursor = 0  # where the next text's sentence is looked for first
        self._markers: dict[str, SentenceMarkers] = {}  # each scored text's sentence markers

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "kind": "precomputed",
            "model": self.path.name,
            "source_kind": "tsv",
            "source": str(self.path.resolve()),
            "revision": self._sha256,
            "dtype": None,
            "device": None,
            "bos": None,
            "bos_token": None,
            "bos_token_id": None,
            "pll": None,
            "versions": {},
        }

    @property
    def sentence_count(self) -> int:
        return len(self._sentences)

    def unload(self) -> Callable[[], bool]:
        """No weights to let go: ``release_scorer`` need not run the cycle collector for it."""
        return nothing_held

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        """Each text is matched to a sentence of the file whose tokens spell it, searching from just after
        the previous match, so texts given in the file's order (or a deduplicated subset of it, in chunks)
        match at once; a text that no sentence spells is an error naming the file and line."""
        results = []
        for text in texts:
            first_error: ConfigurationError | None = None
            count = len(self._sentences)
            for step in range(count):
                index = (self._cursor + step) % count
                try:
                    scored, self._markers[text] = self._match(text, index)
                except ConfigurationError as error:
                    first_error = first_error or error
                    continue
                self._cursor = index + 1
                results.append(scored)
                break
            else:
                if first_error is None:
                    raise ConfigurationError(f"{self.path}: holds no sentences, so it cannot score {text!r}")
                raise ConfigurationError(
                    f"{first_error.message}\n  (no other sentence of the file spells this text either)",
                    hint="the TSV was made from other texts (check the spacing option)",
                )
        return results

    def sentence_markers(self, texts: Sequence[str]) -> dict[str, SentenceMarkers]:
        """The sentence markers of the TSV sentence that spells each text (matched as ``score`` does)."""
        unseen = [text for text in dict.fromkeys(texts) if text not in self._markers]
        if unseen:
            self.score(unseen)
        return {text: self._markers[text] for text in texts}

    def _match(self, text: str, index: int) -> tuple[ScoredText, SentenceMarkers]:
        number, rows = index + 1, self._sentences[index]
        spans = align_tokens(text, [token for _, token, _ in rows])
        scores: list[TokenScore] = []
        opening: list[TokenScore] = []
        closing: list[TokenScore] = []  # markers since the last word: closing ones if no word follows
        for (line, token, value), span in zip(rows, spans, strict=False):
            if span is None:
                raise ConfigurationError(
                    f"{self.path}:{line}: token {token!r} of sentence {number} is not found in the text "
                    f"{text!r} after {text[: max((t.end for t in scores), default=0)]!r}"
                )
            if token in _SKIPPED:
                at = len(text) if scores else 0
                (closing if scores else opening).append(TokenScore(token, -1, at, at, value, False))
                continue
            closing.clear()  # markers between words stay context
            start, end, unknown = span
            scores.append(TokenScore(token, -1, start, end, value, unknown))
        covered = max((t.end for t in scores), default=0)
        if text[covered:].strip() or (not rows and text.strip()):
            raise ConfigurationError(
                f"{self.path}:{rows[-1][0] if rows else '?'}: the tokens of sentence {number} end at "
                f"{text[:covered]!r} but the text goes on with {text[covered:]!r}"
            )
        return ScoredText(text, tuple(scores)), SentenceMarkers(tuple(opening), tuple(closing))


def _read(path: Path, raw: bytes) -> list[list[tuple[int, str, float]]]:
    """Rows per sentence of the file's bytes: (line number, token, surprisal)."""
    sentences: dict[int, list[tuple[int, str, float]]] = {}
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ConfigurationError(f"{path}:{line}: not UTF-8 text (byte {error.start})",
                                 hint="lm-zoo TSV files are UTF-8; save it as UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        header = next(reader, None)
        if header != HEADER:
            raise ConfigurationError(
                f"{path}:1: header is {header!r}, expected {' '.join(HEADER)!r} (tab-separated)",
                hint="this reads lm-zoo surprisal files",
            )
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != 4 or not (_ID.fullmatch(row[0]) and _ID.fullmatch(row[1])):
                raise ConfigurationError(
                    f"{path}:{line}: expected 4 tab-separated fields (int, int, token, number), got {row!r}"
                )
            sentence, position, token = int(row[0]), int(row[1]), row[2]
            surprisal = _surprisal(row[3], f"{path}:{line}")
            tokens = sentences.setdefault(sentence, [])
            if position != len(tokens) + 1:
                raise ConfigurationError(
                    f"{path}:{line}: token_id {position} of sentence {sentence}, expected {len(tokens) + 1}",
                    hint="token ids count from 1 within each sentence, one row per token, in order",
                )
            tokens.append((line, token, surprisal))
    except csv.Error as error:  # e.g. a field longer than csv's limit
        raise ConfigurationError(f"{path}:{reader.line_num}: {error}") from None
    expected = list(range(1, len(sentences) + 1))
    if sorted(sentences) != expected:
        raise ConfigurationError(
            f"{path}: sentence ids are {sorted(sentences)[:10]}..., expected 1..{len(sentences)} without gaps"
        )
    return [sentences[i] for i in expected]


def _surprisal(value: str, where: str) -> float:
    """A surprisal field: a finite decimal number of bits, never negative (it is -log2 of a probability)."""
    try:
        number = float(value)
    except ValueError:
        number = None
    if number is None or (math.isfinite(number) and not _DECIMAL.fullmatch(value)):
        raise ConfigurationError(f"{where}: expected 4 tab-separated fields (int, int, token, number); the "
                                 f"surprisal {value!r} is not a number")
    if not math.isfinite(number):
        raise ConfigurationError(f"{where}: surprisal {value!r} is not a finite number",
                                 hint="every token needs a finite surprisal in bits; score the file again")
    if number < 0:
        raise ConfigurationError(f"{where}: surprisal {value} is negative; a surprisal (-log2 p) is never below 0",
                                 hint="check that the column holds surprisals in bits, not log probabilities")
    return number + 0.0  # -0.0 as 0.0


def write_surprisals_tsv(scored: Sequence[ScoredText], path: Path) -> None:
    """Write lm-zoo TSV atomically (a temporary file in the same folder, then a rename).

    An empty text has no rows, so sentence ids after it would shift: it is refused.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write("\t".join(HEADER) + "\n")
            for number, item in enumerate(scored, start=1):
                if not item.tokens:
                    raise ConfigurationError(
                        f"text {number} ({item.text!r}) has no tokens, which lm-zoo TSV cannot represent",
                        hint="leave empty texts out before writing",
                    )
                for position, token in enumerate(item.tokens, start=1):
                    if any(ch in token.token for ch in "\t\n\r"):
                        raise ConfigurationError(f"text {number}: token {token.token!r} holds a tab or newline")
                    if not math.isfinite(token.surprisal):  # the file could not be read back
                        raise ConfigurationError(f"text {number}: token {token.token!r} has surprisal "
                                                 f"{token.surprisal}, which lm-zoo TSV cannot hold")
                    handle.write(f"{number}\t{position}\t{token.token}\t{token.surprisal!r}\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
