from __future__ import annotations

import functools
from pathlib import Path

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.differentiate import Mask, MaskedSentence
from linguagym.capabilities.expansion.fill import CausalFiller, MaskedLMFiller, MaskedModelError, is_word, load_filler

WORDS = ["the", "a", "film", "movie", "plot", "new", "long", "red", "is", "was", "bad", "good", "this", "and",
         "n", "##s", "##ing", "."]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A randomly initialised BERT masked LM with a locally built WordPiece tokenizer (no hub needed)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    directory = tmp_path_factory.mktemp("tiny-bert")
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
    tokenizer = transformers.BertTokenizerFast(vocab=vocab, do_lower_case=True)
    config = transformers.BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_is_word():
    assert is_word("film") and is_word("a") and is_word("I") and is_word("well-made") and is_word("don't")
    assert not is_word("n") and not is_word("##s") and not is_word("3") and not is_word("film.")


def test_masked_lm_fills_whole_words(tiny_bert):
    filler = MaskedLMFiller(str(tiny_bert))
    one = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    two = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False), Mask("NN", 10, True)), "NP", ("DT", "NN"),
                         ("DT", "JJ", "NN", "NN"), 0.01)
    fills = filler.fill([one, two], 3)
    assert len(fills[0]) == 3 and len(fills[1]) == 3
    for fill in fills[0] + fills[1]:
        assert all(is_word(w) and w in WORDS for w in fill.words)
        assert fill.confidence <= 0
    assert [len(f.words) for f in fills[1]] == [2, 2, 2]
    assert fills[0] == sorted(fills[0], key=lambda f: -f.confidence)
    only_nouns = MaskedLMFiller(str(tiny_bert), accept=lambda word, tag: word in ("film", "plot"))
    assert {f.words[0] for f in only_nouns.fill([one], 5)[0]} <= {"film", "plot"}
    assert filler.identity == {"filler": "masked", "model": str(tiny_bert)}


def test_missing_masked_lm_is_a_user_error(tmp_path):
    with pytest.raises(CapabilityError, match="cannot load masked LM"):
        MaskedLMFiller(str(tmp_path / "no-model"))


def test_a_masked_lm_given_as_a_filler_fills_as_a_masked_lm(tiny_bert, tmp_path):
    """``lct generate --filler DIR`` with a masked LM: it fills as ``masked:DIR`` does, not with an internal error."""
    masked = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    filler = load_filler(str(tiny_bert), cache_dir=tmp_path)
    assert isinstance(filler, MaskedLMFiller)
    assert filler.identity == {"filler": "masked", "model": str(tiny_bert)}
    assert filler.fill([masked], 3) == load_filler(f"masked:{tiny_bert}").fill([masked], 3)
    with pytest.raises(MaskedModelError, match="is a masked LM") as caught:  # the causal filler says what to do
        CausalFiller(str(tiny_bert), cache_dir=tmp_path)
    assert f"masked:{tiny_bert}" in caught.value.hint


def test_what_cannot_fill_is_a_clear_user_error(tmp_path):
    scores = tmp_path / "scores.tsv"
    scores.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\t0.0\n")
    with pytest.raises(CapabilityError, match="precomputed surprisals") as caught:
        load_filler(str(scores), cache_dir=tmp_path)
    assert "masked:MODEL" in caught.value.hint
    with pytest.raises(CapabilityError, match="cannot load fill-in model") as caught:
        load_filler(str(tmp_path / "no-such-model"), cache_dir=tmp_path)
    assert "causal LM" in caught.value.hint


SENTENCES = ["This movie is bad.", "This film is good.", "The plot is new and long.", "A red film was good.",
             "The new movie was long.", "This plot is bad and long."]


@pytest.fixture(scope="module")
def tiny_causal(tmp_path_factory) -> Path:
    """A random byte-level GPT-2 whose tokenizer was trained on a few sentences (no hub needed)."""
    pytest.importorskip("torch")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from tests.tiny_models import save_causal

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(SENTENCES * 20, trainer)
    return save_causal(tmp_path_factory.mktemp("tiny-causal"), backend, bos="<|endoftext|>", eos="<|endoftext|>",
                       unk=None, seed=5, n_positions=64)


@pytest.fixture(scope="module")
def tiny_llama(tiny_causal, tmp_path_factory) -> Path:
    """A random Llama over the same tokenizer: the filler runs it in linguagym's own decoder (``native_llama``)."""
    import torch
    import transformers as hf

    directory = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = hf.AutoTokenizer.from_pretrained(tiny_causal)
    tokenizer.save_pretrained(directory)
    torch.manual_seed(7)
    config = hf.LlamaConfig(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                            eos_token_id=tokenizer.eos_token_id, hidden_size=32, intermediate_size=64,
                            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                            max_position_embeddings=64)
    model = hf.LlamaForCausalLM(config).eval()
    with torch.no_grad():  # norms of 1 would hide a norm in the wrong place
        for name, parameter in model.named_parameters():
            if "norm" in name:
                parameter.uniform_(0.5, 1.5)
    model.save_pretrained(directory)
    return directory


def _bits(directory: Path, text: str) -> list[tuple[int, float]]:
    """(character offset where each token starts, surprisal in bits) by a plain one-sentence forward pass."""
    import math

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = AutoModelForCausalLM.from_pretrained(directory).eval()
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = [tokenizer.bos_token_id, *encoded["input_ids"]]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
    return [(start, -float(logp[i, ids[i + 1]]) / math.log(2))
            for i, (start, _) in enumerate(encoded["offset_mapping"])]


def _first_non_space(text: str, start: int) -> int:
    while start < len(text) and text[start] == " ":
        start += 1
    return start


def test_causal_filler_confidence_is_the_sentence_log_probability_change(tiny_causal):
    from linguagym.capabilities.expansion.differentiate import render

    filler = CausalFiller(str(tiny_causal), beam=2, pool=6)
    assert filler.scorer.lm is filler.lm  # one model proposes and re-ranks
    assert isinstance(load_filler(str(tiny_causal)), CausalFiller)
    one = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    two = MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("JJ", 9, True)), "NP", ("DT", "NN"),
                         ("DT", "JJ", "NN", "JJ"), 0.01)
    fills = filler.fill([one, two], 3)
    assert [len(f) for f in fills] == [3, 3]
    assert [len(f.words) for f in fills[1]] == [2, 2, 2]
    for masked, options in zip((one, two), fills, strict=True):
        assert options == sorted(options, key=lambda f: -f.confidence)
        seed = _bits(tiny_causal, masked.text)
        for option in options:
            assert all(is_word(w) for w in option.words)
            text, spans = render(masked, list(option.words))
            filled = _bits(tiny_causal, text)
            # confidence: log2 P(filled) - log2 P(seed), by an independent batch-1 computation
            assert option.confidence == pytest.approx(sum(b for _, b in seed) - sum(b for _, b in filled), abs=1e-3)
            # disruption: bits the words after the last fill lost
            after_seed = _first_non_space(masked.text, masked.masks[-1].offset)
            after_filled = _first_non_space(text, spans[-1][1])
            lost = sum(b for s, b in filled if s >= after_filled) - sum(b for s, b in seed if s >= after_seed)
            assert option.disruption == pytest.approx(lost, abs=1e-3)
    assert filler.identity["pool"] == 6 and filler.identity["beam"] == 2


def test_causal_filler_reranks_the_whole_pool(tiny_causal):
    """Re-ranking a wider pool of left-context proposals by the whole window can only find a better fill."""
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    narrow = CausalFiller(str(tiny_causal), beam=1, pool=1, last_pool=1).fill(masked, 1)
    wide = CausalFiller(str(tiny_causal), beam=1, pool=10, last_pool=10).fill(masked, 1)
    assert all(w[0].confidence >= n[0].confidence - 1e-9 for n, w in zip(narrow, wide, strict=True))
    assert any(w[0].words != n[0].words for n, w in zip(narrow, wide, strict=True))


@pytest.mark.slow
def test_the_default_causal_filler_with_smollm2():
    """The offline default filler (the real smollm2-135m, fetched from PyPI into the user cache): a mask before
    a noun gets plausible single words, ranked by how much they lower the sentence's probability, and those
    numbers are the model's own (checked against its scorer)."""
    import platformdirs

    from linguagym.capabilities.expansion.differentiate import render
    from linguagym.scoring.registry import load_scorer

    cache = Path(platformdirs.user_cache_dir("linguagym"))
    text = "The movie is a story about a family."
    masked = MaskedSentence(text, (Mask("JJ", text.index("family"), False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"),
                            0.1)
    fills = CausalFiller("smollm2-135m", cache_dir=cache).fill([masked], 4)[0]
    assert len(fills) == 4 and fills == sorted(fills, key=lambda f: -f.confidence)
    assert all(len(f.words) == 1 and is_word(f.words[0]) and f.words[0].islower() for f in fills)
    assert all(-25 < f.confidence < 0 for f in fills)  # an inserted word costs bits, but not absurdly many
    scorer = load_scorer("smollm2-135m", cache_dir=cache, score_cache=False)
    seed, best = scorer.score([masked.text, render(masked, list(fills[0].words))[0]])
    total = lambda scored: sum(t.surprisal for t in scored.tokens)  # noqa: E731
    assert fills[0].confidence == pytest.approx(total(seed) - total(best), abs=1e-3)


@functools.cache
def _plain_model(directory: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(directory), AutoModelForCausalLM.from_pretrained(directory).eval()


def _window_bits(directory: Path, text: str) -> list[tuple[int, float]]:
    """``_bits`` with the model loaded once."""
    import math

    import torch

    tokenizer, model = _plain_model(directory)
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = [tokenizer.bos_token_id, *encoded["input_ids"]]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
    return [(start, -float(logp[i, ids[i + 1]]) / math.log(2))
            for i, (start, _) in enumerate(encoded["offset_mapping"])]


def _oracle_fills(directory: Path, masked: MaskedSentence, k: int, pool: int, beam: int, accept) -> list[tuple]:
    """The causal filler's fills computed the slow, plain way: each left context alone through the model (no
    padding, no prefix tree, no cache), each filled window alone for the re-ranking. (words, confidence,
    disruption), best first."""
    import math

    import torch

    from linguagym.capabilities.expansion.differentiate import render
    from linguagym.capabilities.expansion.fill import _window

    tokenizer, model = _plain_model(directory)
    vocab = [tokenizer.decode([i]) for i in range(len(tokenizer))]
    spaced = {i: t[1:] for i, t in enumerate(vocab) if t.startswith(" ") and is_word(t[1:])}
    bare = {i: t for i, t in enumerate(vocab) if is_word(t) and t[:1].isupper()}

    def next_words(context: str, tag: str) -> list[tuple[str, float]]:
        ids = [tokenizer.bos_token_id, *tokenizer(context.rstrip(), add_special_tokens=False)["input_ids"]]
        with torch.inference_mode():
            logp = torch.log_softmax(model(torch.tensor([ids])).logits[0, -1].double(), dim=-1) / math.log(2)
        at_start = not context.strip()
        words = bare if at_start else spaced
        ranked = sorted(words, key=lambda i: -float(logp[i]))
        return [(words[i], float(logp[i])) for i in ranked
                if accept(words[i].lower() if at_start else words[i], tag)][:pool]

    start, end = _window(masked, 12, 8)
    beams: list[tuple[list[str], float]] = [([], 0.0)]
    for step, mask in enumerate(masked.masks):
        grown = []
        for words, score in beams:
            partial = render(masked, words + ["\x00"] * (len(masked.masks) - len(words)))[0]
            context = partial[start:].split("\x00", 1)[0]
            grown += [(words + [w], score + s) for w, s in next_words(context, mask.tag)]
        beams = sorted(grown, key=lambda o: -o[1])[: None if step == len(masked.masks) - 1 else beam]
    seed = _window_bits(directory, masked.text[start:end])
    seed_right = sum(b for s, b in seed if s >= masked.masks[-1].offset - start)
    fills = []
    for words, _ in beams:
        text, spans = render(masked, words)
        filled = _window_bits(directory, text[start:end + len(text) - len(masked.text)])
        right_at = spans[-1][1] - start if masked.masks[-1].after else spans[-1][1] + 1 - start
        right = sum(b for s, b in filled if s >= right_at)
        fills.append((tuple(words), sum(b for _, b in seed) - sum(b for _, b in filled), right - seed_right))
    return sorted(fills, key=lambda f: -f[1])[:k]


@pytest.mark.parametrize("trees", [True, False])
@pytest.mark.parametrize("model", ["gpt2", "llama"])
def test_batched_fills_are_the_plain_computation(tiny_causal, tiny_llama, monkeypatch, trees, model):
    """Every mask of every masked sentence proposed in one prefix-tree pass (or left-padded batches for models
    that cannot take trees) and every candidate re-ranked in one scorer call give the fills, their order and
    their numbers that each window computed alone by transformers gives (float32 against float64: within 1e-3
    bits). A Llama runs in linguagym's own decoder, as the scorer runs it."""
    from linguagym.capabilities.expansion import fill
    from linguagym.scoring.native.json_tokenizer import JsonTokenizer
    from linguagym.scoring.native.llama import NativeLlama

    directory = tiny_causal if model == "gpt2" else tiny_llama
    if not trees:
        monkeypatch.setattr(fill, "supports_tree", lambda model, depth: False)
    accept = lambda word, tag: word not in ("is", "was") or tag != "JJ"  # noqa: E731 - a tag-dependent refusal
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    masked += [MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("RB", 12, False)), "NP", ("DT",),
                              ("DT", "JJ", "RB"), 0.01),
               MaskedSentence("This film is good.", (Mask("DT", 0, False),), "NP", ("NN",), ("DT", "NN"), 0.2)]
    filler = CausalFiller(str(directory), beam=2, pool=5, last_pool=5, accept=accept)
    fills = filler.fill(masked, 4)
    assert isinstance(filler.lm.loaded.model, NativeLlama) == (model == "llama")
    assert isinstance(filler.lm.encoder, JsonTokenizer)  # tokenizer.json read alone: transformers' not loaded
    assert filler.lm.loaded.tokenizer_if_loaded is None or model == "gpt2"
    assert filler.fill(masked[:2], 4) == fills[:2]  # the second call is served from the kept contexts and windows
    for m, got in zip(masked, fills, strict=True):
        want = _oracle_fills(directory, m, 4, 5, 2, accept)
        assert [f.words for f in got] == [w for w, _, _ in want]
        for f, (_, confidence, disruption) in zip(got, want, strict=True):
            assert f.confidence == pytest.approx(confidence, abs=1e-3)
            assert f.disruption == pytest.approx(disruption, abs=1e-3)
    assert all(len(f) == 4 for f in fills[:-3]) and fills[-1][0].words[0][0].isupper()


def _even(words: tuple[str, ...]) -> bool:
    """A stand-in validator's verdict: refuses about half of any set of fills, whatever their rank."""
    return sum(len(w) for w in words) % 2 == 0


def test_keep_is_asked_once_and_only_kept_fills_are_ranked(tiny_causal):
    """``fill(masked, k, keep=...)``: ``keep`` sees every complete candidate of the call in one batch; the fills
    are exactly the candidates it keeps, with the numbers the unfiltered call gives them, best first, and only
    they are re-ranked (fewer windows scored). ``k`` applies to the kept ones: beam slots are no longer spent on
    refused fills, so there are at least as many usable fills as filtering the top ``k`` afterwards leaves."""
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    masked.append(MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("RB", 12, False)), "NP", ("DT",),
                                 ("DT", "JJ", "RB"), 0.01))
    unfiltered = CausalFiller(str(tiny_causal), beam=2, pool=5)
    everything = unfiltered.fill(masked, 1000)  # every candidate, ranked
    asked = []

    def keep(candidates):
        asked.append(list(candidates))
        return [_even(words) for _, words in candidates]

    filler = CausalFiller(str(tiny_causal), beam=2, pool=5)
    for k in (1000, 3):
        got = filler.fill(masked, k, keep=keep)
        for fills, every in zip(got, everything, strict=True):
            want = [f for f in every if _even(f.words)][:k]
            assert [f.words for f in fills] == [f.words for f in want]
            assert [f.confidence for f in fills] == pytest.approx([f.confidence for f in want], abs=1e-3)
            assert [f.disruption for f in fills] == pytest.approx([f.disruption for f in want], abs=1e-3)
    assert len(asked) == 2 and sorted(asked[0]) == sorted((i, f.words) for i, fs in enumerate(everything) for f in fs)
    assert 0 < sum(map(len, got)) < sum(map(len, everything))
    assert sum(map(len, got)) >= sum(len([f for f in every[:3] if _even(f.words)]) for every in everything)
    assert len(filler._texts) < len(unfiltered._texts)  # the refused candidates' windows were never scored


def test_masked_lm_filler_asks_keep_once(tiny_bert):
    one = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
    two = MaskedSentence("This movie is bad.", (Mask("JJ", 5, False), Mask("NN", 10, True)), "NP", ("DT", "NN"),
                         ("DT", "JJ", "NN", "NN"), 0.01)
    filler = MaskedLMFiller(str(tiny_bert))
    everything = filler.fill([one, two], 5)
    asked = []

    def keep(candidates):
        asked.append(list(candidates))
        return [_even(words) for _, words in candidates]

    got = filler.fill([one, two], 5, keep=keep)
    assert len(asked) == 1 and asked[0] == [(i, f.words) for i, fs in enumerate(everything) for f in fs]
    assert got == [[f for f in fills if _even(f.words)] for fills in everything]
    assert 0 < sum(map(len, got)) < sum(map(len, everything))


def test_a_wider_last_pool_is_validated_and_only_its_kept_fills_are_ranked(tiny_causal):
    """``last_pool``: more proposals at a sentence's last mask for ``keep`` to judge (the candidates between masks
    stay ``pool`` wide); the fills are the kept ones of the wider pool, at most ``k``."""
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    masked.append(MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("RB", 12, False)), "NP", ("DT",),
                                 ("DT", "JJ", "RB"), 0.01))
    asked = []

    def keep(candidates):
        asked.extend(candidates)
        return [_even(words) for _, words in candidates]

    wide = CausalFiller(str(tiny_causal), beam=2, pool=3, last_pool=8)
    fills = wide.fill(masked, 4, keep=keep)
    per_sentence = [sum(1 for i, _ in asked if i == n) for n in range(len(masked))]
    assert per_sentence == [8] * len(SENTENCES) + [2 * 8]  # beam 2 x 8 at the second mask
    assert len({words[0] for i, words in asked if i == len(SENTENCES)}) <= 2  # the first mask: the beam's 2
    narrow = CausalFiller(str(tiny_causal), beam=2, pool=3, last_pool=3).fill(masked, 1000,
                                                                              keep=lambda c: [True] * len(c))
    assert sum(map(len, fills)) >= sum(len([f for f in n if _even(f.words)][:4]) for n in narrow)
    assert all(len(f) <= 4 and all(_even(x.words) for x in f) for f in fills)
    assert wide.identity["last_pool"] == 8 and wide.identity["pool"] == 3
    assert CausalFiller(str(tiny_causal), pool=5).last_pool == 10  # by default 2 x pool


def test_the_kept_contexts_are_bounded(tiny_causal, monkeypatch):
    """The ranked left contexts kept between calls are dropped when they would pass the bound, and a call whose
    contexts were among them still gets every one (computed again): the same fills as with no bound."""
    from linguagym.capabilities.expansion import fill

    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    def same(a, b):  # one call batches differently from several: the numbers agree to float32 rounding
        return all([f.words for f in x] == [g.words for g in y] and
                   all(f.confidence == pytest.approx(g.confidence, abs=1e-4) for f, g in zip(x, y, strict=True))
                   for x, y in zip(a, b, strict=True)) and len(a) == len(b)

    unbounded = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5).fill(masked, 3)
    monkeypatch.setattr(fill, "_MAX_CONTEXTS", 2)
    filler = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5)
    assert same([filler.fill([m], 3)[0] for m in masked] + [filler.fill(masked[:1], 3)[0]], unbounded + unbounded[:1])
    assert len(filler._contexts) <= 2 < len(masked)
    assert same(filler.fill(masked, 3), unbounded)  # more contexts in one call than the bound: all computed


def _masked_for_store() -> list[MaskedSentence]:
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)
              for s in SENTENCES]
    return masked + [MaskedSentence("The plot is long.", (Mask("JJ", 4, False), Mask("RB", 12, False)), "NP",
                                    ("DT",), ("DT", "JJ", "RB"), 0.01)]


def test_a_later_filler_reads_the_fills_from_disk_without_the_model(tiny_causal, tmp_path, monkeypatch):
    """``disk_cache``: the ranked contexts and scored windows go to <cache>/fills as they are computed; a new
    filler (a later run) gets exactly the same fills from there without loading the model or scoring anything."""
    from linguagym.scoring.huggingface.causal import CausalScorer

    masked = _masked_for_store()
    first = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5, cache_dir=tmp_path, disk_cache=True)
    fills = first.fill(masked, 4)
    assert first.found_on_disk == {"contexts": 0, "windows": 0} and (tmp_path / "fills").is_dir()

    def no_scoring(self, texts):
        assert not texts, "a window was scored again"
        return []

    monkeypatch.setattr(CausalScorer, "score", no_scoring)
    later = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5, cache_dir=tmp_path, disk_cache=True)
    assert later.fill(masked, 4) == fills  # the same words, confidences and disruptions, to the last bit
    assert later.lm._loaded is None  # the weights were never needed
    assert later.found_on_disk["contexts"] > 0 and later.found_on_disk["windows"] > 0
    assert later.cache_use == {"path": str(tmp_path / "fills"), "found": later.found_on_disk}


def test_a_run_that_stops_keeps_its_contexts_and_the_fills_match_a_fresh_run(tiny_causal, tmp_path, monkeypatch):
    """A run stopped while the windows are scored resumes from the contexts it kept; a filler with another pool
    ranks again (its contexts keep more words) but reuses the windows; both give a fresh run's fills."""
    from linguagym.scoring.huggingface.causal import CausalScorer

    masked = _masked_for_store()
    fresh = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5).fill(masked, 4)
    real_score = CausalScorer.score

    def stopped(self, texts):
        raise KeyboardInterrupt

    monkeypatch.setattr(CausalScorer, "score", stopped)
    with pytest.raises(KeyboardInterrupt):
        CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5, cache_dir=tmp_path, disk_cache=True).fill(masked, 4)
    monkeypatch.setattr(CausalScorer, "score", real_score)
    resumed = CausalFiller(str(tiny_causal), beam=2, pool=5, last_pool=5, cache_dir=tmp_path, disk_cache=True)
    got = resumed.fill(masked, 4)
    assert resumed.found_on_disk["contexts"] > 0 and resumed.found_on_disk["windows"] == 0
    wider = CausalFiller(str(tiny_causal), beam=2, pool=6, last_pool=6, cache_dir=tmp_path, disk_cache=True)
    wide = wider.fill(masked, 4)
    assert wider.found_on_disk["contexts"] == 0 and wider.found_on_disk["windows"] > 0
    wide_fresh = CausalFiller(str(tiny_causal), beam=2, pool=6, last_pool=6).fill(masked, 4)
    for a, b in ((got, fresh), (wide, wide_fresh)):
        assert [[f.words for f in x] for x in a] == [[f.words for f in x] for x in b]
        assert all(f.confidence == pytest.approx(g.confidence, abs=1e-4) for x, y in zip(a, b, strict=True)
                   for f, g in zip(x, y, strict=True))


def test_without_disk_cache_nothing_is_written(tiny_causal, tmp_path):
    filler = CausalFiller(str(tiny_causal), beam=2, pool=5, cache_dir=tmp_path)
    filler.fill(_masked_for_store(), 2)
    assert filler.cache_use is None and not (tmp_path / "fills").exists()


@pytest.mark.usefixtures("spacy_ready")
def test_lct_generate_records_the_fill_cache_and_a_second_run_reads_it(tiny_causal, rt_file, swn_file, tmp_path):
    """``generate_tests`` keeps the filler's work under its cache directory by default and says in the file's
    expansion block what came from there; a second run writes the same tests from it."""
    from linguagym.capabilities import pipeline
    from linguagym.capabilities.data.datasets import read_rotten_tomatoes
    from linguagym.capabilities.expansion.settings import ExpansionSettings
    from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings

    options = ExpansionOptions(parser="spacy", reference="induced", filler=str(tiny_causal),
                               settings=ExpansionSettings())

    def generate(expansion: ExpansionOptions):
        return pipeline.generate_tests(GenerateSettings(read_rotten_tomatoes(rt_file), lexicon_path=swn_file,
                                                        lcs="LC2,LC4", cache_dir=tmp_path, expansion=expansion))

    def run() -> dict:
        return generate(options).to_json()

    first, second = run(), run()
    assert first["expansion"]["fill_cache"] == {"path": str(tmp_path / "fills"),
                                                "found": {"contexts": 0, "windows": 0}}
    assert second["expansion"]["fill_cache"]["found"]["contexts"] > 0
    assert second["tests"] == first["tests"]
    off = generate(ExpansionOptions(parser="spacy", reference="induced", filler=str(tiny_causal), fill_cache=False))
    assert "fill_cache" not in off.to_json()["expansion"]


def test_the_causal_filler_gives_a_words_prior_in_the_neutral_context_of_its_tag(tiny_causal):
    """``prior``: log2 p of the word as the next word after ``fit.neutral_context(tag)``, the model's own number
    (checked against an independent batch-1 computation); a word the vocabulary lacks whole gets the least."""
    from linguagym.capabilities.expansion.fit import neutral_context

    filler = CausalFiller(str(tiny_causal))
    _, spaced, _, _ = filler._words()
    word = spaced[0]
    for tag in ("JJ", "RB"):
        context = neutral_context(tag)
        bits = _bits(tiny_causal, f"{context} {word}")
        assert filler.prior([word], tag)[0] == pytest.approx(-bits[-1][1], abs=1e-3)
    table = filler._priors[neutral_context("JJ")]
    assert filler.prior(["zzzqqqxxx"], "JJ") == [min(table.values())]
    assert len(filler._priors) == 2  # one forward pass per context, kept


def test_extra_words_are_proposed_beyond_the_pool_up_to_three_times_as_many(tiny_causal):
    """``extra`` (``attested.py``'s modifiers of the mask's head): words offered besides the pool's most probable,
    whether or not the model ranks them there, at most three times as many as the pool; without it, the pool
    alone."""
    s = SENTENCES[0]
    masked = [MaskedSentence(s, (Mask("JJ", s.index(" ") + 1, False),), "NP", ("DT", "NN"), ("DT", "JJ", "NN"), 0.1)]
    asked: list = []

    def keep(candidates):
        asked.extend(words for _, words in candidates)
        return [True] * len(candidates)

    filler = CausalFiller(str(tiny_causal), beam=1, pool=2, last_pool=2)
    plain = filler.fill(masked, 100, keep=keep)
    assert len(asked) == 2 and len(plain[0]) == 2
    asked.clear()
    extra = ("zyzzyva", "quokka", "aardvark", "numbat", "dugong", "okapi", "tapir")  # not words it proposes
    fills = filler.fill(masked, 100, keep=keep, extra=[[extra]])
    assert len(asked) == 2 + 6 and ("okapi",) in asked and ("tapir",) not in asked  # 6 extra, in order
    assert {f.words for f in fills[0]} == set(asked)  # scored by the window like any other fill
