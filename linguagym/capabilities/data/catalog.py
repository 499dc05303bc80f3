"""Dataset names: the default asset, ``KIND:PATH`` for the other readers, or a bare file path.

=========================  ==========================================================================
``rotten-tomatoes``        default: 10,605 Rotten Tomatoes sentences with human ratings (registry asset)
``sst:DIR``                official SST release directory (``sst-train:DIR`` etc. for one split)
``sst2:FILE``              GLUE SST-2 TSV
``sentence-polarity[:P]``  Pang & Lee sentence polarity (zip or directory; default: found under NLTK_DATA)
``csv:FILE`` ``tsv:FILE``  any table with text and label columns (``jsonl:FILE`` for JSON Lines)
``FILE``                   a ``.csv``, ``.tsv`` or ``.jsonl`` file
=========================  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from linguagym.assets import fetch_data_asset
from linguagym.capabilities.data import sst
from linguagym.capabilities.data.datasets import DEFAULT_DATASET, Dataset, read_rotten_tomatoes, read_table
from linguagym.capabilities.errors import CapabilityError
from linguagym.scoring.cache import resolve_cache_dir

DATASET_KINDS = ("rotten-tomatoes", "sst", "sst-train", "sst-dev", "sst-test", "sst2", "sentence-polarity",
                 "csv", "tsv", "jsonl")
_ASSETS = {"rotten-tomatoes": "rotten-tomatoes-vader"}


def load_dataset(name: str = DEFAULT_DATASET, *, cache_dir: Path | None = None, text_column: str = "text",
                 label_column: str = "label", score_column: str | None = None, id_column: str | None = None,
                 label_map: Mapping[str, str] | None = None) -> Dataset:
    """The dataset called ``name`` (see the module's table); column options apply to table files only."""
    kind, sep, rest = name.partition(":")
    if len(kind) == 1 and sep:  # a Windows drive letter, not a kind
        kind, rest = "", name
    if kind in _ASSETS and not rest:
        path = fetch_data_asset(_ASSETS[kind], resolve_cache_dir(cache_dir))
        return read_rotten_tomatoes(path, name=kind)
    if kind == "rotten-tomatoes":
        return read_rotten_tomatoes(_existing(rest, name), name=kind)
    if kind == "sst" or kind.startswith("sst-"):
        return sst.read_sst(_existing(rest, name), split=kind[4:] or None)
    if kind == "sst2":
        return sst.read_sst2(_existing(rest, name))
    if kind == "sentence-polarity":
        corpus = Path(rest) if rest else sst.default_sentence_polarity_path()
        if corpus is None:
            raise CapabilityError("NLTK's sentence_polarity corpus was not found",
                                  hint="pass sentence-polarity:PATH (sentence_polarity.zip or its directory) or "
                                  "set NLTK_DATA to the directory that holds corpora/sentence_polarity.zip")
        return sst.read_sentence_polarity(_existing(str(corpus), name))
    table = partial(read_table, text_column=text_column, label_column=label_column, score_column=score_column,
                    id_column=id_column, label_map=label_map)
    if kind in ("csv", "tsv", "jsonl") and rest:
        path = _existing(rest, name)
        if path.suffix.lower() not in {"csv": (".csv",), "tsv": (".tsv", ".txt"), "jsonl": (".jsonl", ".ndjson")}[kind]:
            raise CapabilityError(f"{name}: a {kind} dataset needs a file ending in .{kind}",
                                  hint="rename the file, or name it with its own extension")
        return table(path)
    path = Path(name)
    if path.suffix.lower() in (".csv", ".tsv", ".jsonl", ".ndjson") or path.exists():
        return table(_existing(name, name))
    raise CapabilityError(f"unknown dataset {name!r}",
                          hint="use rotten-tomatoes (the default), sst:DIR, sst2:FILE, sentence-polarity[:PATH], "
                          "csv:FILE, tsv:FILE, jsonl:FILE, or a .csv/.tsv/.jsonl path")


def _existing(path: str, name: str) -> Path:
    if not path:
        raise CapabilityError(f"dataset {name!r} needs a path after the colon",
                              hint="e.g. sst:stanfordSentimentTreebank")
    found = Path(path).expanduser()
    if not found.exists():
        raise CapabilityError(f"dataset {name!r}: {found} does not exist")
    return found
