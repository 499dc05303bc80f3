"""Readers for the Stanford Sentiment Treebank (official release and SST-2 TSV) and for Pang & Lee's
sentence-polarity corpus (as in NLTK's ``sentence_polarity``). All their text is tokenised; it is detokenised.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from linguagym.capabilities.data.datasets import (
    BAND_RULE,
    MAX_DATASET_BYTES,
    Dataset,
    Example,
    band_label,
    file_sha256,
    read_dataset_bytes,
    read_table,
)
from linguagym.capabilities.data.detokenize import detokenize, recase
from linguagym.capabilities.errors import CapabilityError

SST_FILES = ("datasetSentences.txt", "dictionary.txt", "sentiment_labels.txt")
SST_SPLITS = {"train": "1", "test": "2", "dev": "3"}
_BRACKET_WORDS = {"-LRB-": "(", "-RRB-": ")"}


def read_sst(directory: str | Path, split: str | None = None, name: str = "sst") -> Dataset:
    """The official SST release directory (``stanfordSentimentTreebank/``): each sentence of
    ``datasetSentences.txt`` gets the sentiment value of its phrase (``dictionary.txt`` ->
    ``sentiment_labels.txt``), labelled by the 0..1 bands. ``split`` keeps train, dev or test only
    (``datasetSplit.txt``)."""
    directory = Path(directory)
    missing = [f for f in SST_FILES if not (directory / f).is_file()]
    if missing:
        raise CapabilityError(f"SST directory {directory} lacks {', '.join(missing)}",
                              hint="pass the unpacked stanfordSentimentTreebank/ directory of the official release")
    phrase_ids = {}
    for number, line in enumerate(_lines(directory / "dictionary.txt"), start=1):
        phrase, sep, phrase_id = line.rpartition("|")
        if not sep:
            raise CapabilityError(f"{directory / 'dictionary.txt'}, line {number}: expected 'phrase|id'")
        phrase_ids[phrase] = phrase_id.strip()
    values = {}
    for number, line in enumerate(_lines(directory / "sentiment_labels.txt"), start=1):
        if number == 1 and not line[:1].isdigit():
            continue  # header "phrase ids|sentiment values"
        phrase_id, sep, value = line.partition("|")
        try:
            values[phrase_id.strip()] = float(value)
        except ValueError:
            raise CapabilityError(f"{directory / 'sentiment_labels.txt'}, line {number}: expected 'id|value' with a "
                                  "number") from None
    keep = _split_ids(directory, split) if split else None
    examples, unmatched = [], 0
    for number, line in enumerate(_lines(directory / "datasetSentences.txt"), start=1):
        if number == 1 and not line[:1].isdigit():
            continue  # header "sentence_index	sentence"
        index, sep, sentence = line.partition("\t")
        if not sep:
            raise CapabilityError(f"{directory / 'datasetSentences.txt'}, line {number}: expected 'index<TAB>sentence'")
        if keep is not None and index not in keep:
            continue
        found = next((phrase_ids[c] for c in _variants(sentence) if c in phrase_ids), None)
        if found is None or found not in values:
            unmatched += 1
            continue
        score = values[found]
        examples.append(Example(index, detokenize(_fix_encoding(sentence)), band_label(score), score))
    if not examples:
        raise CapabilityError(f"no sentence of {directory / 'datasetSentences.txt'} has a sentiment value",
                              hint="are dictionary.txt and sentiment_labels.txt from the same release?")
    rule = "phrase sentiment value on 0..1; " + BAND_RULE
    if unmatched:
        rule += f"; {unmatched} sentences without a phrase in dictionary.txt were left out"
    return Dataset(name if not split else f"{name}-{split}", str(directory), tuple(examples), rule)


def read_sst2(path: str | Path, name: str = "sst2") -> Dataset:
    """GLUE SST-2 TSV (``sentence<TAB>label``, labels 0/1; lower-cased, tokenised text)."""
    return read_table(path, text_column="sentence", label_column="label",
                      label_map={"0": "negative", "1": "positive"}, tokenized=True, lowercased=True, name=name)


def read_sentence_polarity(path: str | Path, name: str = "sentence-polarity") -> Dataset:
    """Pang & Lee sentence polarity v1.0: NLTK's ``sentence_polarity.zip``, or a directory with
    ``rt-polarity.pos`` and ``rt-polarity.neg`` (Latin-1, lower-cased, tokenised; one sentence a line)."""
    path = Path(path)
    texts = _polarity_files(path)
    examples = []
    for label, short in (("positive", "pos"), ("negative", "neg")):
        for number, line in enumerate(texts[short].splitlines(), start=1):
            if line.strip():
                examples.append(Example(f"{short}-{number}", recase(detokenize(line)), label))
    return Dataset(name, str(path), tuple(examples), "rt-polarity.pos positive, rt-polarity.neg negative (no neutral)",
                   file_sha256(path) if path.is_file() else None)


def default_sentence_polarity_path() -> Path | None:
    """``sentence_polarity.zip`` (or its unpacked directory) under $NLTK_DATA or NLTK's usual data directories."""
    import os

    roots = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    roots += [str(Path.home() / "nltk_data"), "/usr/share/nltk_data", "/usr/local/share/nltk_data"]
    for root in roots:
        corpora = Path(root) / "corpora"
        for candidate in (corpora / "sentence_polarity", corpora / "sentence_polarity.zip"):
            if candidate.exists():
                return candidate
    return None


def _polarity_files(path: Path) -> dict[str, str]:
    names = {"pos": "rt-polarity.pos", "neg": "rt-polarity.neg"}
    if path.is_dir():
        missing = [n for n in names.values() if not (path / n).is_file()]
        if missing:
            raise CapabilityError(f"sentence-polarity directory {path} lacks {', '.join(missing)}")
        return {k: read_dataset_bytes(path / n).decode("latin-1") for k, n in names.items()}
    read_dataset_bytes(path)  # a regular file of bounded size (a FIFO would block the zip reader)
    try:
        with zipfile.ZipFile(path) as archive:
            found = {}
            for key, file_name in names.items():
                member = next((m for m in archive.namelist() if m.endswith("/" + file_name) or m == file_name), None)
                if member is None:
                    raise CapabilityError(f"{path} lacks {file_name}", hint="is it NLTK's sentence_polarity.zip?")
                if archive.getinfo(member).file_size > MAX_DATASET_BYTES:
                    raise CapabilityError(f"{path}: {member} unpacks to more than {MAX_DATASET_BYTES // 2**20} MiB",
                                          hint="is it NLTK's sentence_polarity.zip?")
                found[key] = archive.read(member).decode("latin-1")
            return found
    except FileNotFoundError:
        raise CapabilityError(f"sentence-polarity corpus {path} does not exist",
                              hint="pass sentence_polarity.zip or its directory, or set NLTK_DATA") from None
    except zipfile.BadZipFile:
        raise CapabilityError(f"{path} is neither a zip file nor a directory") from None


def _lines(path: Path) -> list[str]:
    text = read_dataset_bytes(path).decode("utf-8", errors="replace")
    return [line for line in text.splitlines() if line.strip()]


def _fix_encoding(text: str) -> str:
    """datasetSentences.txt has UTF-8 read as Latin-1 (``Ã©`` for ``é``); undo it where that is what happened."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def _variants(sentence: str) -> list[str]:
    fixed = _fix_encoding(sentence)
    out = [sentence, fixed]
    for text in (sentence, fixed):
        replaced = text
        for word, char in _BRACKET_WORDS.items():
            replaced = replaced.replace(word, char)
        out.append(replaced)
    return out


def _split_ids(directory: Path, split: str) -> set[str]:
    if split not in SST_SPLITS:
        raise CapabilityError(f"unknown SST split {split!r}", hint="splits: " + ", ".join(SST_SPLITS))
    path = directory / "datasetSplit.txt"
    if not path.is_file():
        raise CapabilityError(f"SST directory {directory} lacks datasetSplit.txt, needed for split {split!r}")
    wanted = SST_SPLITS[split]
    return {index for index, _, label in (line.partition(",") for line in _lines(path)) if label.strip() == wanted}
