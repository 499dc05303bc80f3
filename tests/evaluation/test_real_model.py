"""Integration tests on the real default model (smollm2-135m, fetched from PyPI once into the user cache)."""

import json
import math
from dataclasses import replace

import pytest

from linguagym.evaluation.evaluate import evaluate_suite, suite_sentences
from linguagym.scoring.engine.order import score_texts
from linguagym.suites.load import parse_suite_data, read_suite
from tests.conftest import SUITES_DIR, real_suite_paths

pytestmark = pytest.mark.slow
LOG2 = math.log(2.0)
ITEMS_PER_SUITE = 6


@pytest.fixture(scope="session")
def smollm2():
    from linguagym.scoring.registry import load_scorer

    # no score cache: every number here is computed by the code under test
    return load_scorer("smollm2-135m", score_cache=False, batch_size=16)


@pytest.fixture(scope="session")
def reference_model():
    """An independent scorer: the same weights, its own tokenizer calls, no padding and no attention mask."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from linguagym import assets
    from linguagym.scoring.cache import resolve_cache_dir

    directory = assets.fetch_named_model("smollm2-135m", resolve_cache_dir(None))
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    return tokenizer, model


def reference_region_sums(reference_model, sentences: list[tuple[str, ...]]) -> dict[tuple[str, ...], list[float]]:
    """Region sums of each sentence (its regions' contents) computed from scratch: own sentence building, own
    scoring, own token-to-region rule. Sentences of one token length go through the model together: no padding
    and no attention mask, so each row is the same computation as alone (batching only for speed: one sentence a
    pass took 15 minutes on a 2-core EPYC)."""
    import torch

    tokenizer, model = reference_model
    prepared: dict[int, list[tuple[tuple[str, ...], str, list[tuple[int, int]], list[int], list]]] = {}
    for contents in dict.fromkeys(sentences):
        text, bounds = "", []
        for content in contents:
            if content and text and content[0] not in ",.!?;:":
                text += " "
            bounds.append((len(text), len(text) + len(content)))
            text += content
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids = [0] + encoded["input_ids"]  # <|endoftext|> starts every sentence for smollm2-135m
        prepared.setdefault(len(ids), []).append((contents, text, bounds, ids, encoded["offset_mapping"]))
    sums_of: dict[tuple[str, ...], list[float]] = {}
    for group in prepared.values():
        for start_row in range(0, len(group), 32):
            rows = group[start_row:start_row + 32]
            with torch.no_grad():
                logits = model(torch.tensor([ids for _, _, _, ids, _ in rows])).logits.float()
            logprobs = torch.log_softmax(logits, dim=-1)
            for row, (contents, text, bounds, ids, offsets) in enumerate(rows):
                sums = [0.0] * len(contents)
                for position, (token_id, (start, end)) in enumerate(zip(ids[1:], offsets, strict=True)):
                    surprisal = -logprobs[row, position, token_id].item() / LOG2
                    first = next((i for i in range(start, end) if not text[i].isspace()), start)
                    region = max(k for k, (s, e) in enumerate(bounds) if s <= first and (e > s or k == 0))
                    sums[region] += surprisal
                sums_of[contents] = sums
    return sums_of


def test_seed_agreement_example(smollm2):
    data = {
        "meta": {"name": "farmer", "metric": "sum"},
        "region_meta": {"1": "subject", "2": "verb", "3": "object"},
        "predictions": [{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"}],
        "items": [{"item_number": 1, "conditions": [
            {"condition_name": name, "regions": [
                {"region_number": 1, "content": "The farmer near the clerks"},
                {"region_number": 2, "content": verb},
                {"region_number": 3, "content": "many people."}]}
            for name, verb in (("match", "knows"), ("mismatch", "know"))]}],
    }
    suite = parse_suite_data(data).suite
    texts = [s.text for s in suite_sentences(suite)]
    assert texts == ["The farmer near the clerks knows many people.", "The farmer near the clerks know many people."]
    result = evaluate_suite(suite, score_texts(smollm2, texts))
    assert result.accuracy() == 1.0


def test_region_sums_match_an_independent_implementation_on_all_real_suites(shared_data, smollm2, reference_model):
    paths = real_suite_paths(SUITES_DIR)
    assert len(paths) == 34
    # every suite's shape (its regions, conditions, formulas, punctuation and spacing) on its first items: the other
    # items repeat the shape with other words, and scoring all of them took 590 s of CI's 30 minutes
    suites = [replace(s, items=s.items[:ITEMS_PER_SUITE]) for s in (read_suite(p).suite for p in paths)]
    texts = [s.text for suite in suites for s in suite_sentences(suite)]
    scores = score_texts(smollm2, texts)
    worst, checked = 0.0, 0
    reference = reference_region_sums(reference_model, [tuple(r.content for r in condition.regions)
                                                        for suite in suites for item in suite.items
                                                        for condition in item.conditions])
    for suite in suites:
        result = evaluate_suite(suite, scores)
        by_key = {(c.item, c.condition): c for c in result.conditions}
        for item in suite.items:
            for condition in item.conditions:
                expected = reference[tuple(r.content for r in condition.regions)]
                got = by_key[(item.number, condition.name)].values
                for number, value in enumerate(expected, start=1):
                    worst = max(worst, abs(got[number]["sum"] - value))
                    checked += 1
    assert checked == sum(len(c.regions) for suite in suites for item in suite.items for c in item.conditions) > 3000
    assert worst < 1e-3, f"largest region-sum difference {worst} bits"
    print(json.dumps({"regions_checked": checked, "max_abs_diff_bits": worst}))
