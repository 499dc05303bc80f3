import pytest

from linguagym import assets
from linguagym.errors import ConfigurationError


class FakeTokenizer:
    def __init__(self, ids):
        self.ids = ids

    def __call__(self, text, add_special_tokens):
        assert text == assets.PROBE_TEXT and add_special_tokens is False
        return {"input_ids": list(self.ids)}


@pytest.mark.parametrize("name", sorted(assets.NAMED_MODELS))
def test_probe_accepts_the_pinned_tokenization(name):
    assets.check_probe(name, FakeTokenizer(assets.NAMED_MODELS[name].probe_ids))


def test_probe_refuses_a_conversion_that_splits_words_differently():
    pinned = assets.NAMED_MODELS["gemma-3-270m"].probe_ids
    with pytest.raises(ConfigurationError, match="converts its GGUF tokenizer differently") as caught:
        assets.check_probe("gemma-3-270m", FakeTokenizer((818, 17, 18, 19, *pinned[1:])))
    assert "transformers>=5.18" in str(caught.value)


@pytest.mark.slow
def test_the_converted_named_models_match_their_probes():
    from transformers import AutoTokenizer

    from linguagym.scoring.cache import resolve_cache_dir

    directory = assets.fetch_named_model("smollm2-135m", resolve_cache_dir(None))
    assets.check_probe("smollm2-135m", AutoTokenizer.from_pretrained(directory))


def test_the_gguf_conversion_draws_no_bar_into_logs():
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    from linguagym.assets.models import _no_gguf_bar

    drawn = gguf_utils.tqdm
    tensors = [1, 2, 3]
    with _no_gguf_bar():
        # what transformers calls while converting: the plain iterable back, nothing written
        assert gguf_utils.tqdm(tensors, desc="Converting and de-quantizing GGUF tensors...") is tensors
    assert gguf_utils.tqdm is drawn
