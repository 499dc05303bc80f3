"""Prefix sharing (packed prefix trees) against plain full scoring: the same numbers within 1e-4 bits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linguagym.scoring.cache import CachedScorer
from linguagym.scoring.engine.prefix import PASS_COST, batches, pack
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.masked import MaskedScorer
from linguagym.scoring.huggingface.sources import resolve_source

from .conftest import SENTENCES

TOLERANCE = 1e-4  # bits
# Conditions of one item share long prefixes; some texts are prefixes of others; one repeats; one is empty.
ITEMS = [
    "The farmer near the clerks knows the answer.",
    "The farmer near the clerks know the answer.",
    "The farmers near the clerk know the answers.",
    "The farmers near the clerk knows the answers.",
    "The farmer",
    "The farmer near",
    "The farmer near the clerks knows the answer.",
    "",
    "No student that the teachers liked has ever failed.",
    "No student that the teachers liked has failed.",
    "While the man hunted the deer ran into the woods.",
    "While the man hunted, the deer ran into the woods.",
    *SENTENCES,
]


def _scorer(directory: Path, tmp_path: Path, **options) -> CausalScorer:
    return CausalScorer(resolve_source(str(directory), tmp_path), **options)


def _max_difference(a, b) -> float:
    worst = 0.0
    for x, y in zip(a, b, strict=True):
        assert x.text == y.text
        assert [t.token_id for t in x.tokens] == [t.token_id for t in y.tokens]
        assert [(t.start, t.end) for t in x.tokens] == [(t.start, t.end) for t in y.tokens]
        for s, t in zip(x.tokens, y.tokens, strict=True):
            worst = max(worst, abs(s.surprisal - t.surprisal))
    return worst


def test_pack_builds_a_prefix_tree_and_keeps_paths() -> None:
    sequences = [[0, 5, 6, 7], [0, 5, 6, 8], [0, 5, 9], [0, 5], [0, 5, 6, 7], [1, 2]]
    rows, paths = pack(sequences, row_tokens=100)
    assert len(rows) == 1
    row = rows[0]
    # Distinct prefixes: 0, 05, 056, 0567, 0568, 059, 1, 12 -> 8 nodes for 19 tokens.
    assert len(row.tokens) == 8
    # Only nodes with children go through the model: 0, 05, 056 and 1 (the leaves 0567, 0568, 059, 12 do not).
    assert row.computed == 4
    assert [row.tokens[k] for k in range(8) if row.has_children[k]] == [0, 5, 6, 1]
    for sequence, (r, path) in zip(sequences, paths, strict=True):
        assert [rows[r].tokens[k] for k in path] == sequence
        assert [rows[r].depths[k] for k in path] == list(range(len(sequence)))
        assert [rows[r].parents[k] for k in path] == [-1, *path[:-1]]
    # A small row budget splits the tree; a sequence longer than it still gets a row of its own.
    rows, paths = pack(sequences, row_tokens=2)
    assert len(rows) > 1
    assert all(r.computed <= 2 or len(r.members) == 1 for r in rows)
    for r in rows:
        assert r.computed == sum(r.has_children)
    for sequence, (r, path) in zip(sequences, paths, strict=True):
        assert [rows[r].tokens[k] for k in path] == sequence


def _grouping_cost(lengths, groups) -> int:
    return sum(len(g) * max(lengths[i] for i in g) + PASS_COST for g in groups)


def _cheapest_cost(lengths, budget) -> int:
    """Every split of the longest-first order into consecutive groups, tried (quadratic, for small inputs)."""
    ordered = sorted(lengths, reverse=True)
    best = [0] + [None] * len(ordered)
    for end in range(1, len(ordered) + 1):
        for start in range(end):
            count, width = end - start, ordered[start]
            if count > 1 and count * width > budget:
                continue
            cost = best[start] + count * width + PASS_COST
            best[end] = cost if best[end] is None else min(best[end], cost)
    return best[-1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 300), max_size=40), st.integers(1, 2000))
def test_batches_are_the_cheapest_longest_first_grouping(lengths, budget) -> None:
    groups = batches(lengths, budget)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        assert len(group) == 1 or len(group) * max(lengths[i] for i in group) <= budget
    assert _grouping_cost(lengths, groups) == _cheapest_cost(lengths, budget)


def test_a_short_row_gets_its_own_pass_rather_than_padding() -> None:
    # Seven full rows and the short last row of a chunk: padding it to 256 would cost more than a pass.
    groups = batches([256] * 7 + [20], budget=4096)
    assert [len(g) for g in groups] == [7, 1]
    # A row a few tokens short is padded: one more pass would cost more.
    assert [len(g) for g in batches([256] * 7 + [250], budget=4096)] == [8]


def test_batches_respect_the_token_budget() -> None:
    lengths = [5, 30, 7, 7, 12, 1, 29, 64]
    groups = batches(lengths, budget=60)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        assert len(group) == 1 or len(group) * max(lengths[i] for i in group) <= 60
    assert groups[0] == [7]  # longer than the budget: alone


@pytest.mark.parametrize("bos", ["auto", "none"])
@pytest.mark.parametrize("batch_tokens", [8, 40, 4096])
def test_prefix_shared_equals_plain_on_gpt2(gpt2_dir: Path, tmp_path: Path, bos: str, batch_tokens: int) -> None:
    plain = _scorer(gpt2_dir, tmp_path, bos=bos, prefix_sharing=False, batch_tokens=1)
    alone = [plain.score([text])[0] for text in ITEMS]  # one sentence at a time, no padding
    shared = _scorer(gpt2_dir, tmp_path, bos=bos, batch_tokens=batch_tokens).score(ITEMS)
    assert _max_difference(alone, shared) < TOLERANCE
    assert shared[7].tokens == ()
    assert shared[0] == shared[6]


def _tiny_decoder(directory: Path, kind: str, gpt2_dir: Path) -> Path:
    """A random decoder of architecture ``kind`` over the GPT-2 test tokenizer: Llama (rotary positions), GPT-NeoX
    (Pythia's: partial rotary, parallel residual), Gemma 3 (scaled embeddings, sliding window, soft-capping), OPT
    (learned positions with an offset), GPT-J, Phi (biased output head), StableLM, Falcon (rotary or ALiBi),
    GPT-BigCode (StarCoder's multi-query attention) or Mixtral (mixture of experts)."""
    import torch
    import transformers as hf

    tokenizer = hf.AutoTokenizer.from_pretrained(gpt2_dir)
    tokenizer.save_pretrained(directory)
    torch.manual_seed(3)
    ids = dict(vocab_size=len(tokenizer), bos_token_id=0, eos_token_id=0, pad_token_id=1)
    common = dict(ids, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64)
    gpt = dict(ids, n_embd=32, n_layer=2, n_head=4, n_positions=64)
    builders = {
        "llama": lambda: hf.LlamaForCausalLM(hf.LlamaConfig(**common)),
        "gpt_neox": lambda: hf.GPTNeoXForCausalLM(hf.GPTNeoXConfig(**common, rotary_pct=0.25,
                                                                   use_parallel_residual=True)),
        "gemma3": lambda: hf.Gemma3ForCausalLM(hf.Gemma3TextConfig(**common, head_dim=8, sliding_window=16,
                                                                   final_logit_softcapping=5.0)),
        "opt": lambda: hf.OPTForCausalLM(hf.OPTConfig(**ids, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                                      num_attention_heads=4, max_position_embeddings=64,
                                                      word_embed_proj_dim=16)),
        "gptj": lambda: hf.GPTJForCausalLM(hf.GPTJConfig(**gpt, rotary_dim=4)),
        "phi": lambda: hf.PhiForCausalLM(hf.PhiConfig(**common)),
        "stablelm": lambda: hf.StableLmForCausalLM(hf.StableLmConfig(**common)),
        "falcon": lambda: hf.FalconForCausalLM(hf.FalconConfig(**ids, hidden_size=32, num_hidden_layers=2,
                                                               num_attention_heads=4)),
        "falcon_alibi": lambda: hf.FalconForCausalLM(hf.FalconConfig(**ids, hidden_size=32, num_hidden_layers=2,
                                                                     num_attention_heads=4, alibi=True)),
        "gpt_bigcode": lambda: hf.GPTBigCodeForCausalLM(hf.GPTBigCodeConfig(**gpt)),
        "mixtral": lambda: hf.MixtralForCausalLM(hf.MixtralConfig(**common, num_local_experts=4)),
    }
    builders[kind]().eval().save_pretrained(directory)
    return directory


TREE_KINDS = ["llama", "gpt_neox", "opt", "gptj", "phi", "stablelm", "falcon", "gpt_bigcode", "mixtral"]


@pytest.mark.parametrize("kind", [*TREE_KINDS, "gemma3", "falcon_alibi"])
def test_prefix_shared_equals_plain_on_decoder_architectures(gpt2_dir: Path, tmp_path: Path, kind: str) -> None:
    directory = _tiny_decoder(tmp_path / kind, kind, gpt2_dir)
    plain = _scorer(directory, tmp_path, prefix_sharing=False, batch_tokens=1)
    alone = [plain.score([text])[0] for text in ITEMS]
    shared_scorer = _scorer(directory, tmp_path, batch_tokens=64)
    shared = shared_scorer.score(ITEMS)
    assert _max_difference(alone, shared) < TOLERANCE
    from linguagym.scoring.engine.prefix import supports_tree

    if kind in TREE_KINDS:  # scored by prefix trees, not by the plain fallback
        assert supports_tree(shared_scorer.loaded.model, 20)
    elif kind == "falcon_alibi":  # ALiBi reads positions off a 2-D mask: plain batches
        assert not supports_tree(shared_scorer.loaded.model, 20)
    else:  # sliding window 16 < the longest text: falls back to plain batches, same numbers
        assert not supports_tree(shared_scorer.loaded.model, 20)
        assert supports_tree(shared_scorer.loaded.model, 10)
        short = [t for t in ITEMS if len(shared_scorer.tokenizer(t)["input_ids"]) < 14]
        assert _max_difference([plain.score([t])[0] for t in short], shared_scorer.score(short)) < TOLERANCE


def test_count_tokens_and_progress(gpt2_dir: Path, bert_dir: Path, tmp_path: Path) -> None:
    for scorer in (
        _scorer(gpt2_dir, tmp_path, batch_tokens=32),
        _scorer(gpt2_dir, tmp_path, batch_tokens=32, bos="none"),
        _scorer(gpt2_dir, tmp_path, batch_tokens=32, prefix_sharing=False),
        MaskedScorer(resolve_source(str(bert_dir), tmp_path), batch_tokens=32),
    ):
        expected = scorer.count_tokens(ITEMS)
        assert not scorer.is_loaded  # counting loads the tokenizer only
        done: list[int] = []
        scorer.progress = done.append
        scored = scorer.score(list(dict.fromkeys(ITEMS)))
        assert expected == sum(len(s.tokens) for s in scored) > 0
        assert sum(done) == expected and len(done) > 1


def test_cached_scorer_counts_only_misses(gpt2_dir: Path, tmp_path: Path) -> None:
    cached = CachedScorer(_scorer(gpt2_dir, tmp_path), tmp_path / "cache")
    total = cached.count_tokens(ITEMS)
    cached.score(ITEMS[:4])
    assert cached.count_tokens(ITEMS) == total - sum(len(s.tokens) for s in cached.score(ITEMS[:4]))
    before = cached.count_tokens(ITEMS)
    done: list[int] = []
    cached.progress = done.append
    cached.score(ITEMS)
    assert sum(done) == before  # hits never reach the model, so never count
    assert cached.count_tokens(ITEMS) == 0


def test_counting_fully_cached_texts_imports_no_torch(gpt2_dir: Path, tmp_path: Path) -> None:
    from linguagym.scoring import load_scorer

    load_scorer(str(gpt2_dir), cache_dir=tmp_path).score(SENTENCES)
    code = (
        "import json, sys\n"
        "from linguagym.scoring import load_scorer\n"
        f"s = load_scorer({str(gpt2_dir)!r}, cache_dir={str(tmp_path)!r})\n"
        f"n = s.count_tokens({SENTENCES!r})\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'n': n}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"torch": False, "n": 0}
