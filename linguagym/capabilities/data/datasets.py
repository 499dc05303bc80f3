"""Labelled sentences behind one interface: ``Dataset`` of ``Example(id, text, label, score)``.

Labels are negative, neutral or positive. Graded sources map a score on a 0..1 scale to a label with the SST's
bands: ``score <= 0.4`` negative, ``score > 0.6`` positive, neutral between (see ``band_label``).

Readers here: the default Rotten Tomatoes sentences with human ratings (from vaderSentiment's source
distribution) and any CSV, TSV or JSONL file with text and label columns. The SST formats and NLTK's
sentence-polarity corpus are in ``linguagym.capabilities.data.sst``. ``load_dataset`` resolves a name.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from linguagym.capabilities.data.detokenize import detokenize, normalise_space, recase
from linguagym.capabilities.errors import CapabilityError
from linguagym.hashing import sha256_file
from linguagym.userfiles import RefusedFile, read_regular

LABELS: tuple[Literal["negative", "neutral", "positive"], ...] = ("negative", "neutral", "positive")
DEFAULT_DATASET = "rotten-tomatoes"
MAX_DATASET_BYTES = 256 * 2**20  # SST's largest file is 12 MB; a bound keeps /dev/zero from filling memory
BAND_RULE = "score on 0..1: <= 0.4 negative, > 0.6 positive, else neutral (the SST's bands)"
_LABEL_NAMES = {
    "negative": "negative", "neg": "negative", "-": "negative",
    "neutral": "neutral", "neu": "neutral",  # numbers such as 0 are ambiguous (neutral? negative?): need a map
    "positive": "positive", "pos": "positive", "+": "positive",
}


@dataclass(frozen=True)
class Example:
    id: str  # the row's id in its source (a number from the file, else the 1-based row number)
    text: str  # detokenised, ready to become a test
    label: str  # negative, neutral or positive
    score: float | None = None  # graded sentiment on 0..1 where the source has one


@dataclass(frozen=True)
class Dataset:
    name: str
    source: str  # a path, or an asset's registry source
    examples: tuple[Example, ...]
    label_rule: str  # how the source's labels became negative/neutral/positive
    sha256: str | None = None  # of the source file, where there is one file

    def describe(self) -> dict:
        counts = {label: sum(1 for e in self.examples if e.label == label) for label in LABELS}
        return {"name": self.name, "source": self.source, "sha256": self.sha256, "rows": len(self.examples),
                "labels": counts, "label_rule": self.label_rule}


def band_label(score: float) -> str:
    """The SST's bands on a 0..1 score: (0, 0.4] negative, (0.4, 0.6] neutral, (0.6, 1] positive."""
    score = round(score, 9)  # rescaled ratings such as (-0.8 + 4) / 8 must land on the band edge, not beside it
    if score <= 0.4:
        return "negative"
    if score > 0.6:
        return "positive"
    return "neutral"


def file_sha256(path: Path) -> str:
    return sha256_file(path)


def read_rotten_tomatoes(path: str | Path, name: str = DEFAULT_DATASET) -> Dataset:
    """``movieReviewSnippets_GroundTruth.txt``: id TAB mean rating (-4..4) TAB sentence, one per line.

    The rating r is rescaled to ``(r + 4) / 8`` and labelled by ``band_label``: r <= -0.8 negative, r > 0.8
    positive. The file writes quotes as two apostrophes (''Conan''); they become double quotes.
    """
    path = Path(path)
    examples = []
    text, sha256 = _read_text(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise CapabilityError(f"{path}, line {number}: expected 3 tab-separated fields (id, rating, sentence), "
                                  f"found {len(fields)}", hint="is this movieReviewSnippets_GroundTruth.txt?")
        row_id, rating, text = fields
        try:
            value = float(rating)
        except ValueError:
            raise CapabilityError(f"{path}, line {number}: rating {rating!r} is not a number") from None
        if not -4 <= value <= 4:
            raise CapabilityError(f"{path}, line {number}: rating {value} is outside -4..4")
        score = (value + 4) / 8
        examples.append(Example(row_id.strip(), _clean(text, tokenized=False), band_label(score), round(score, 6)))
    return Dataset(name, str(path), tuple(examples), "mean rating r in -4..4 rescaled to (r + 4) / 8; " + BAND_RULE,
                   sha256)


def read_table(path: str | Path, *, text_column: str = "text", label_column: str = "label",
               score_column: str | None = None, id_column: str | None = None,
               label_map: Mapping[str, str] | None = None, tokenized: bool = False, lowercased: bool = False,
               name: str | None = None) -> Dataset:
    """A CSV (``.csv``), TSV (``.tsv``/``.txt``) or JSON Lines (``.jsonl``) file with text and label columns.

    Labels are negative/neutral/positive (or neg/neu/pos, any case) unless ``label_map`` maps the file's values
    (e.g. ``{"0": "negative", "1": "positive"}``). ``tokenized`` text is detokenised; ``lowercased`` text gets
    its first letter and the pronoun "I" capitalised. A label column may be left out when a 0..1 ``score_column``
    is given: the score's band gives the label.
    """
    path = Path(path)
    content, sha256 = _read_text(path)
    rows = list(_table_rows(path, content))
    if not rows:
        raise CapabilityError(f"dataset file {path} has no rows")
    columns = set(rows[0][1])
    wanted = [text_column] + ([label_column] if score_column is None or label_column in columns else [])
    wanted += [c for c in (score_column, id_column) if c]
    missing = [c for c in wanted if c not in columns]
    if missing:
        raise CapabilityError(f"dataset file {path} lacks the column(s) {', '.join(map(repr, missing))}; "
                              f"it has {', '.join(map(repr, sorted(columns)))}",
                              hint="name the columns with `text_column` and `label_column`",
                              settings=["text_column", "label_column"])
    examples = []
    unknown: dict[str, str] = {}  # value -> where it first appears
    use_label = label_column in columns
    for where, row in rows:
        text = row.get(text_column)
        if not isinstance(text, str) or not text.strip():
            raise CapabilityError(f"{path}, {where}: the text column {text_column!r} is empty")
        score = _score(row.get(score_column), path, where) if score_column else None
        if use_label:
            label = parse_label(row.get(label_column), label_map)
            if label is None:
                unknown.setdefault(str(row.get(label_column)), where)
                continue
        else:
            label = band_label(score)  # type: ignore[arg-type]
        row_id = str(row[id_column]) if id_column else where.split()[-1]
        clean = _clean(text, tokenized)
        examples.append(Example(row_id, recase(clean) if lowercased else clean, label, score))
    if unknown:
        shown = ", ".join(f"{value!r} ({where})" for value, where in list(unknown.items())[:5])
        raise CapabilityError(f"dataset file {path}: unknown label value(s) {shown}",
                              hint="labels are negative/neutral/positive (or neg/neu/pos); map others with "
                              "`label_map`, e.g. `label_map` 0=negative,1=positive", settings=["label_map"])
    rule = "labels as given" if use_label else f"column {score_column!r} as a 0..1 score; {BAND_RULE}"
    if label_map:
        rule = "labels mapped " + ", ".join(f"{k}->{v}" for k, v in label_map.items())
    return Dataset(name or path.stem, str(path), tuple(examples), rule, sha256)


def parse_label(value: object, label_map: Mapping[str, str] | None = None) -> str | None:
    """negative/neutral/positive for a label value, or None when it is unknown."""
    key = str(value).strip()
    if label_map is not None:
        mapped = label_map.get(key)
        return mapped if mapped in LABELS else None
    return _LABEL_NAMES.get(key.lower())


def parse_label_map(text: str) -> dict[str, str]:
    """``"0=negative,1=positive"`` -> ``{"0": "negative", "1": "positive"}``; targets are checked."""
    mapping: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, target = part.partition("=")
        target = _LABEL_NAMES.get(target.strip().lower()) or ""
        if not sep or target not in LABELS:
            raise CapabilityError(f"bad label map entry {part!r}",
                                  hint="write VALUE=LABEL pairs separated by commas, LABEL one of "
                                  + ", ".join(LABELS) + " (e.g. 0=negative,1=positive)")
        mapping[key.strip()] = target
    if not mapping:
        raise CapabilityError("the label map is empty", hint="e.g. `label_map` 0=negative,1=positive",
                              settings=["label_map"])
    return mapping


def _clean(text: str, tokenized: bool) -> str:
    text = html.unescape(text)  # the Rotten Tomatoes file has a few HTML entities ("S&amp;M")
    if tokenized:
        return detokenize(text)
    return detokenize(text) if "''" in text or "``" in text else normalise_space(text)


def _score(value: object, path: Path, where: str) -> float:
    try:
        score = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise CapabilityError(f"{path}, {where}: score {value!r} is not a number") from None
    if not 0 <= score <= 1:
        raise CapabilityError(f"{path}, {where}: score {score} is outside 0..1",
                              hint="scores are graded sentiment on a 0..1 scale")
    return score


def read_dataset_bytes(path: Path) -> bytes:
    """A dataset file's bytes: a regular file of at most MAX_DATASET_BYTES, read in bounded blocks. A FIFO
    (``csv:FIFO`` waited forever), a device (``/dev/zero`` grew until the kernel killed the server) or a directory
    is refused before it is read."""
    try:
        return read_regular(path, limit=MAX_DATASET_BYTES, what="dataset file")
    except RefusedFile as refused:
        if refused.missing:
            raise CapabilityError(f"dataset file {path} does not exist", hint=refused.hint) from None
        raise CapabilityError(f"dataset file {path} {refused.problem}", hint=refused.hint) from None


def _read_text(path: Path) -> tuple[str, str]:
    """The dataset file's text and the sha256 of the bytes read (not of a second read: the file may change)."""
    raw = read_dataset_bytes(path)
    try:
        return raw.decode("utf-8-sig"), hashlib.sha256(raw).hexdigest()
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise CapabilityError(f"dataset file {path} is not UTF-8 (line {line}, byte {error.start})",
                              hint="save the file as UTF-8") from None


def _table_rows(path: Path, text: str) -> Iterable[tuple[str, dict]]:
    """("row N" or "line N", record) for each record of the file's text; N counts data rows from 1."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        number = 0
        for line_number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise CapabilityError(f"{path}, line {line_number}: not JSON ({error.msg})") from None
            if not isinstance(record, dict):
                raise CapabilityError(f"{path}, line {line_number}: each line must be a JSON object")
            number += 1
            yield f"line {line_number}", record
        return
    if suffix not in (".csv", ".tsv", ".txt"):
        raise CapabilityError(f"dataset file {path}: unknown format {suffix or '(no extension)'!r}",
                              hint="use .csv, .tsv or .jsonl, or name the kind: csv:PATH, tsv:PATH, jsonl:PATH")
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
    else:  # tokenised TSV text holds bare quotes: no quoting at all
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    for number, row in enumerate(reader, start=1):
        yield f"row {number}", row

