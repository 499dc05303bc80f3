"""A tokenizer read from tokenizer.json by the ``tokenizers`` library alone, where transformers would add nothing.

Importing transformers' tokenizer classes imports torch and most of transformers (2-3 s of a cold run on a 2-core
CPU); the ``tokenizers`` library reads the same file in 0.1 s. For a directory whose tokenizer_config.json names
the plain class (``TokenizersBackend``, or ``PreTrainedTokenizerFast`` before transformers 5) and no setting that
transformers applies on top of tokenizer.json, transformers' tokenizer *is* this one: it wraps the same
``tokenizers.Tokenizer`` and encodes with it. So does transformers 5's ``GemmaTokenizer`` where the file holds the
components that class rebuilds the tokenizer with (``REBUILT_CLASSES``; gemma-3-270m's tokenizer: 1.0 s here
against 4.3 s through transformers). The causal scorer reads what it needs (ids, character spans, word ids, token
pieces, the unknown token) from here; everything else uses transformers' tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from linguagym.scoring.huggingface.sources import token_content

PLAIN_CLASSES = frozenset({"TokenizersBackend", "PreTrainedTokenizerFast"})
# tokenizer_config.json keys that do not change how text is split into ids without special tokens (the scorer
# never adds them: its start token is its own). Any other key (add_prefix_space, do_lower_case, legacy,
# added_tokens_decoder, ...) may make transformers change the tokenizer, so such a directory gets transformers'.
INERT_KEYS = frozenset({
    "tokenizer_class", "backend", "bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token",
    "mask_token", "additional_special_tokens", "extra_special_tokens", "model_max_length", "model_input_names",
    "padding_side", "truncation_side", "clean_up_tokenization_spaces", "chat_template", "is_local",
    "local_files_only", "add_bos_token", "add_eos_token", "errors", "name_or_path",
})


# transformers' clean_up_tokenization, in its order
_CLEAN_UP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class JsonTokenizer:
    """The read-only part of a transformers fast tokenizer that the causal scorer uses."""

    is_fast = True

    def __init__(self, tokenizer: Any, unk_token: str | None, clean_up: bool = False) -> None:
        self._tokenizer = tokenizer
        self.unk_token_id = None if unk_token is None else tokenizer.token_to_id(unk_token)
        # as transformers 5: the config's clean_up_tokenization_spaces, never for a BPE model (it would corrupt it)
        self._clean_up = clean_up and type(tokenizer.model).__name__ != "BPE"

    def encodings(self, texts: Sequence[str]) -> list[Any]:
        """``tokenizers.Encoding`` of each text, without special tokens (ids, offsets, word ids)."""
        return self._tokenizer.encode_batch(list(texts), add_special_tokens=False)

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids`` (special tokens kept), as transformers' ``decode`` gives it."""
        text = self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)
        if self._clean_up:
            for spaced, joined in _CLEAN_UP:
                text = text.replace(spaced, joined)
        return text

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str | None]:
        return [self._tokenizer.id_to_token(int(i)) for i in ids]

    def convert_tokens_to_ids(self, token: str) -> int | None:
        """The token's id; as transformers, the unknown token's id for a token not in the vocabulary."""
        found = self._tokenizer.token_to_id(token)
        return self.unk_token_id if found is None else found

    def __len__(self) -> int:
        return int(self._tokenizer.get_vocab_size(with_added_tokens=True))


def plain_tokenizer(directory: Path) -> JsonTokenizer | None:
    """``directory``'s tokenizer read by ``tokenizers`` alone, or None where transformers may tokenise otherwise
    (another tokenizer class, a setting it applies, no tokenizer.json)."""
    path = Path(directory)
    try:
        config = json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict) or config.get("tokenizer_class") not in PLAIN_CLASSES | REBUILT_CLASSES.keys():
        return None
    if set(config) - INERT_KEYS or not (path / "tokenizer.json").is_file():
        return None
    if any((path / name).exists() for name in ("special_tokens_map.json", "added_tokens.json")):
        return None  # older layouts whose tokens transformers adds on top of tokenizer.json
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    except Exception:  # noqa: BLE001 (any failure: transformers' loader says what is wrong with the files)
        return None
    rebuilt_as = REBUILT_CLASSES.get(config["tokenizer_class"])
    if rebuilt_as is not None and not rebuilt_as(tokenizer, config):
        return None  # transformers would rebuild it with other components than the file's
    added = {token.content for token in tokenizer.get_added_tokens_decoder().values()}
    if not _special_tokens(config) <= added:
        return None  # transformers would add a declared special token that tokenizer.json lacks: other splits
    unk = token_content(config.get("unk_token"))
    return JsonTokenizer(tokenizer, unk, clean_up=bool(config.get("clean_up_tokenization_spaces", False)))


def _state(component: Any) -> Any:
    return None if component is None else json.loads(component.__getstate__())


def _as_gemma_builds(tokenizer: Any, config: dict[str, Any]) -> bool:
    """Whether tokenizer.json holds what transformers 5's ``GemmaTokenizer`` builds from the file's vocabulary and
    merges (BPE with byte fallback, spaces as "▁", a split after each space); its added tokens transformers takes
    from the file too. gemma-3-270m: the same ids as transformers' for the 3,050 sentences of the 34 suites and
    280 strings with added tokens, whitespace runs and non-ASCII text."""
    from tokenizers import normalizers, pre_tokenizers

    model = tokenizer.model
    if type(model).__name__ != "BPE" or not (model.fuse_unk and model.byte_fallback) or model.dropout is not None:
        return False
    if model.continuing_subword_prefix or model.end_of_word_suffix or model.ignore_merges:
        return False
    if model.unk_token != (token_content(config.get("unk_token")) or "<unk>"):
        return False
    split = pre_tokenizers.Split(pattern=" ", behavior="merged_with_previous", invert=False)
    return (_state(tokenizer.normalizer) == _state(normalizers.Replace(" ", "\u2581"))
            and _state(tokenizer.pre_tokenizer) == _state(split))


# Tokenizer classes whose __init__ rebuilds the backend from tokenizer.json's vocabulary and merges with components
# of their own (transformers 5): read from the file where its components are those the class builds.
REBUILT_CLASSES = {"GemmaTokenizer": _as_gemma_builds}

SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")


def _special_tokens(config: dict[str, Any]) -> set[str]:
    """Every special token the config declares (the named ones and the additional/extra lists or maps)."""
    found = {token_content(config.get(key)) for key in SPECIAL_KEYS}
    for key in ("additional_special_tokens", "extra_special_tokens"):
        more = config.get(key) or []
        found.update(token_content(v) for v in (more.values() if isinstance(more, dict) else more))
    return {token for token in found if token is not None}
