"""The pieces of a prefix-tree pass: its ancestor mask, its float32 projection, batched encoding, the paused
collector. (Whole-scorer agreement with plain scoring is in test_prefix.py.)"""

from __future__ import annotations

import gc
import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModelForCausalLM

from linguagym.scoring.engine.prefix import Projection, _pass_inputs, pack, tree_mask
from linguagym.scoring.huggingface.base import encode, encode_many
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.sources import resolve_source

from .test_prefix import ITEMS, _tiny_decoder


def _ancestors_by_walking(up: np.ndarray) -> np.ndarray:
    """Each column sees itself and every column on its way up to its root: the definition, one step at a time."""
    batch, width = up.shape
    allowed = np.zeros((batch, width, width), dtype=bool)
    for b in range(batch):
        for n in range(width):
            k = n
            allowed[b, n, k] = True
            while up[b, k] != k:
                k = up[b, k]
                allowed[b, n, k] = True
    return allowed


@pytest.mark.parametrize("seed", range(6))
def test_tree_mask_lets_each_column_see_exactly_its_ancestors(seed: int) -> None:
    generator = random.Random(seed)
    sequences = [[generator.randrange(4) for _ in range(generator.randrange(2, 30))] for _ in range(40)]
    rows, _ = pack(sequences, row_tokens=generator.choice([8, 50, 400]))
    group = list(range(len(rows)))
    inputs = _pass_inputs(rows, group)
    mask = tree_mask(inputs.up, inputs.depth, torch.float32, "cpu")
    expected = _ancestors_by_walking(inputs.up)
    assert mask.shape == (len(group), 1, *expected.shape[1:])
    assert torch.equal(mask[:, 0] == 0, torch.from_numpy(expected))
    assert (mask[:, 0][~torch.from_numpy(expected)] == torch.finfo(torch.float32).min).all()
    # a half-precision mask holds that dtype's own lowest value, so that adding it to a score cannot overflow
    assert tree_mask(inputs.up, inputs.depth, torch.bfloat16, "cpu").min() == torch.finfo(torch.bfloat16).min


def test_pass_inputs_place_every_computed_node_and_prediction() -> None:
    sequences = [[0, 5, 6, 7], [0, 5, 6, 8], [0, 5, 9], [1, 2]]
    rows, paths = pack(sequences, row_tokens=100)
    inputs = _pass_inputs(rows, [0])
    # computed nodes (those with children) in node order: 0, 05, 056, 1; the leaves are predicted, not computed
    assert inputs.ids.tolist() == [[0, 5, 6, 1]]
    assert inputs.positions.tolist() == [[0, 1, 2, 0]]
    assert inputs.up.tolist() == [[0, 0, 1, 3]]
    row = rows[0]
    predicted = [(row.tokens[row.parents[k]], row.tokens[k]) for k in inputs.owners[0][1]]
    assert [(int(inputs.ids.flat[p]), int(t)) for p, t in zip(inputs.parent_flat, inputs.child_token, strict=True)] \
        == predicted
    assert sorted(predicted) == sorted({(s[i - 1], s[i]) for s in sequences for i in range(1, len(s))})


def test_half_precision_logits_are_computed_in_float32(gpt2_dir: Path, tmp_path: Path) -> None:
    directory = _tiny_decoder(tmp_path / "llama", "llama", gpt2_dir)
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.bfloat16)
    # Scale the head so that logits are large, where bfloat16's rounding (a step of 0.125 at 16-32) shows.
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(40)
    projection = Projection(model, torch.device("cpu"))
    hidden = torch.randn(6, model.config.hidden_size).to(torch.bfloat16)
    parents, children = np.array([0, 0, 1, 2, 3, 4, 5]), np.array([3, 7, 11, 2, 5, 9, 1])
    got = projection.surprisals(hidden, parents, children)
    weight = model.get_output_embeddings().weight
    exact = torch.log_softmax(hidden.double() @ weight.double().T, dim=-1)
    expected = -exact[torch.from_numpy(parents), torch.from_numpy(children)] / math.log(2)
    assert got.dtype == torch.float32
    assert torch.allclose(got.double(), expected, atol=1e-4)
    rounded = torch.log_softmax((hidden @ weight.T).float(), dim=-1)  # bfloat16 logits, as before
    before = -rounded[torch.from_numpy(parents), torch.from_numpy(children)] / math.log(2)
    assert (before.double() - expected).abs().max() > 1e-2  # the test can tell the two apart


def test_encode_many_equals_encoding_one_text_at_a_time(gpt2_dir: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gpt2_dir)
    texts = [*ITEMS, "naïve café — “quoted”", "  two  spaces ", ""]
    assert encode_many(tokenizer, texts) == [encode(tokenizer, text) for text in texts]
    assert encode_many(tokenizer, []) == []


def test_scoring_pauses_the_cyclic_collector_and_restores_it(gpt2_dir: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    scorer = CausalScorer(resolve_source(str(gpt2_dir), tmp_path))
    seen = []
    original = scorer._score
    monkeypatch.setattr(scorer, "_score", lambda texts: (seen.append(gc.isenabled()), original(texts))[1])
    assert gc.isenabled()
    assert scorer.score(ITEMS[:3])[0].tokens
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        scorer.score(ITEMS[:1])
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()
    monkeypatch.setattr(scorer, "_score", lambda texts: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        scorer.score(["a"])
    assert gc.isenabled()


def test_the_projection_stays_float32_under_bfloat16_mixed(gpt2_dir: Path, tmp_path: Path) -> None:
    """``bfloat16-mixed`` scores under torch.autocast: the body's products are bfloat16, the projection and its
    normaliser are not (the same values as without autocast, bit for bit)."""
    import torch

    model = AutoModelForCausalLM.from_pretrained(gpt2_dir).eval()
    projection = Projection(model, torch.device("cpu"))
    hidden = torch.randn(6, model.config.n_embd, generator=torch.Generator().manual_seed(0))
    parents, tokens = np.array([0, 0, 2, 5]), np.array([1, 7, 3, 9])
    plain = projection.surprisals(hidden, parents, tokens)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.nn.functional.linear(hidden, model.lm_head.weight).dtype == torch.bfloat16  # (autocast is on)
        under = projection.surprisals(hidden.bfloat16(), parents, tokens)
        assert torch.equal(projection.surprisals(hidden, parents, tokens), plain)
    assert under.dtype == torch.float32
    assert torch.allclose(under, plain, atol=0.5) and not torch.equal(under, plain)  # only the input was rounded
