"""Hugging Face model arguments (``--model-args k=v,...``): the parser, .bin checkpoints, revision, subfolder,
dtype=auto, another tokenizer, 8-bit without bitsandbytes, PEFT adapters, and what enters the identity."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.run import RunSettings
from linguagym.scoring.cache import CachedScorer
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.model_args import ModelArgs, effective_dtype, model_arg_pairs, model_args, parse_model_args
from linguagym.scoring.registry import load_scorer
from linguagym.scoring.spec import ScorerSpec
from tests.scoring.conftest import SENTENCES

COMMIT = "c" * 40
HAS_PEFT = importlib.util.find_spec("peft") is not None


def surprisals(scorer) -> list[float]:
    """Every token's surprisal in three sentences, in order (pytest.approx compares flat lists)."""
    return [token.surprisal for scored in scorer.score(SENTENCES[:3]) for token in scored.tokens]


# ------------------------------------------------------------------------------------------------ the parser


def test_values_are_typed_as_lm_evaluation_harness_types_them() -> None:
    parsed = parse_model_args(" revision=step1000, trust_remote_code=True,other=3,ratio=0.5,flag=false,")
    assert parsed == {"revision": "step1000", "trust_remote_code": True, "other": 3, "ratio": 0.5, "flag": False}
    assert parse_model_args("") == {}
    # a known text key keeps what was written: revision=1e3 is a branch, not the number 1000.0
    assert parse_model_args("revision=1e3,subfolder=007") == {"revision": "1e3", "subfolder": "007"}


def test_checked_arguments_are_sorted_pairs_and_parallelize_means_device_map_auto() -> None:
    assert model_arg_pairs("trust_remote_code=true,dtype=auto") == (("dtype", "auto"), ("trust_remote_code", True))
    assert model_args("parallelize=true").device_map == "auto"
    assert model_args("parallelize=false") == ModelArgs()
    assert model_args({"revision": 1000}).revision == "1000"  # a dict from Python may give numbers
    assert model_arg_pairs(None) == model_arg_pairs("") == model_arg_pairs({}) == ()


@pytest.mark.parametrize(("text", "message"), [
    ("revison=main", "unknown model argument 'revison' (did you mean 'revision'?)"),
    ("trust_remote_code=yes", "trust_remote_code='yes' is not true or false"),
    ("dtype=float64", "dtype=float64 is unknown"),
    ("device_map=gpu", "device_map=gpu is not a device map"),
    ("revision", "'revision' is not key=value"),
    ("=main", "'=main' is not key=value"),
    ("revision=a,revision=b", "'revision' is given twice"),
    ("subfolder=", "model argument subfolder is empty"),
    ("load_in_8bit=true,load_in_4bit=true", "load_in_8bit and load_in_4bit are both true"),
    ("parallelize=true,device_map=cpu", "parallelize=true and device_map=cpu contradict each other"),
    ("gguf_file=m.gguf,load_in_4bit=true", "load_in_4bit cannot quantise gguf_file=m.gguf"),
    ("pretrained=gpt2", "pretrained= is not taken"),
])
def test_bad_arguments_are_refused_with_a_hint(text: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        model_args(text)
    assert message in caught.value.message
    assert caught.value.hint


def test_dtype_given_twice_is_refused_unless_one_is_the_default() -> None:
    assert effective_dtype("float32", model_args("dtype=bfloat16")) == "bfloat16"  # the default gives way
    assert effective_dtype("float16", model_args("dtype=float16")) == "float16"  # agreeing is fine
    assert effective_dtype("bfloat16", ModelArgs()) == "bfloat16"
    with pytest.raises(ConfigurationError, match="dtype is given twice"):
        effective_dtype("float16", model_args("dtype=bfloat16"))


def test_settings_and_specs_keep_sorted_pairs_and_record_a_json_object() -> None:
    settings = RunSettings(model="m", model_args={"trust_remote_code": True, "dtype": "auto"})
    assert settings.model_args == (("dtype", "auto"), ("trust_remote_code", True))
    assert settings == RunSettings(model="m", model_args="dtype=auto,trust_remote_code=true")
    hash(settings)  # still frozen and hashable
    assert settings.scorer_spec().model_args == settings.model_args
    assert ScorerSpec("m", model_args={"revision": "main"}).model_args == (("revision", "main"),)
    with pytest.raises(ConfigurationError, match="unknown model argument"):
        RunSettings(model_args={"nope": 1})
    with pytest.raises(ConfigurationError, match="peft=True must be a string"):
        RunSettings(model_args={"peft": True})


# ------------------------------------------------------------------------------------- where the files are


def save_bin_copy(gpt2_dir: Path, target: Path) -> Path:
    """The tiny GPT-2 saved again with only pytorch_model.bin (as older checkpoints ship)."""
    import torch
    from transformers import AutoModelForCausalLM

    shutil.copytree(gpt2_dir, target, ignore=shutil.ignore_patterns("*.safetensors"))
    # (transformers 5's save_pretrained writes only safetensors: the .bin is what older versions wrote)
    torch.save(AutoModelForCausalLM.from_pretrained(gpt2_dir).state_dict(), target / "pytorch_model.bin")
    assert (target / "pytorch_model.bin").is_file() and not list(target.glob("*.safetensors"))
    return target


@pytest.fixture(scope="module")
def bin_dir(gpt2_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_bin_copy(gpt2_dir, tmp_path_factory.mktemp("bin") / "model")


def test_a_directory_with_only_pytorch_model_bin_scores_as_the_safetensors_copy(
        gpt2_dir: Path, bin_dir: Path, tmp_path: Path) -> None:
    safetensors = surprisals(load_scorer(str(gpt2_dir), device="cpu", score_cache=False))
    pickled = surprisals(load_scorer(str(bin_dir), device="cpu", score_cache=False))
    assert pickled == pytest.approx(safetensors, abs=1e-5)


@pytest.fixture
def hub_cache(gpt2_dir: Path, bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Hugging Face cache laid out as huggingface_hub writes it: org/old holds only pytorch_model.bin; org/nested
    keeps its weights in the subfolder step1000 and its tokenizer at the top; org/tok is a tokenizer alone."""
    import huggingface_hub.constants

    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))  # read once, at import
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def repo(name: str) -> Path:
        root = cache / f"models--org--{name}"
        (root / "refs").mkdir(parents=True)
        (root / "refs" / "main").write_text(COMMIT)
        return root / "snapshots" / COMMIT

    shutil.copytree(bin_dir, repo("old"))
    nested = repo("nested")
    shutil.copytree(gpt2_dir, nested / "step1000", ignore=shutil.ignore_patterns("tokenizer*", "special_tokens*"))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(gpt2_dir / name, nested / name)
    tokenizer_only = repo("tok")
    tokenizer_only.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(gpt2_dir / name, tokenizer_only / name)
    return cache


def test_a_hub_repository_with_only_pytorch_model_bin_resolves_offline_and_scores(
        hub_cache: Path, gpt2_dir: Path, tmp_path: Path) -> None:
    source = resolve_source("org/old", tmp_path)
    assert source.kind == "hub" and source.revision == COMMIT
    assert (source.files()[0] / "pytorch_model.bin").is_file()
    expected = surprisals(load_scorer(str(gpt2_dir), device="cpu", score_cache=False))
    assert surprisals(load_scorer("org/old", device="cpu", score_cache=False)) == pytest.approx(expected, abs=1e-5)


def test_revision_as_a_model_argument_is_id_at_revision(hub_cache: Path, tmp_path: Path) -> None:
    (hub_cache / "models--org--old" / "refs" / "step1").write_text(COMMIT)
    by_argument = resolve_source("org/old", tmp_path, model_args("revision=step1"))
    assert by_argument.revision == COMMIT
    assert resolve_source("org/old@step1", tmp_path, model_args("revision=step1")).revision == COMMIT  # agreeing
    with pytest.raises(ConfigurationError, match="names revision 'step1' and the model arguments revision=main"):
        resolve_source("org/old@step1", tmp_path, model_args("revision=main"))
    with pytest.raises(ConfigurationError, match="'org/old@step9' is not in the Hugging Face cache"):
        resolve_source("org/old", tmp_path, model_args("revision=step9"))


def test_revision_and_gguf_file_do_not_apply_to_a_local_directory(gpt2_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="revision= does not apply to .* which is a local directory"):
        resolve_source(str(gpt2_dir), tmp_path, model_args("revision=main"))
    with pytest.raises(ConfigurationError, match="gguf_file=nope.gguf: .* does not exist"):
        resolve_source(str(gpt2_dir), tmp_path, model_args("gguf_file=nope.gguf"))
    with pytest.raises(ConfigurationError, match="subfolder= does not apply to 'smollm2-135m'"):
        resolve_source("smollm2-135m", tmp_path, model_args("subfolder=x"))


def test_a_subfolder_of_a_hub_repository_with_the_tokenizer_at_the_top(
        hub_cache: Path, gpt2_dir: Path, tmp_path: Path) -> None:
    source = resolve_source("org/nested", tmp_path, model_args("subfolder=step1000"))
    assert source.files()[0].name == "step1000"
    assert source.tokenizer_files()[0] == source.files()[0].parent
    assert source.identity()["subfolder"] == "step1000"
    expected = surprisals(load_scorer(str(gpt2_dir), device="cpu", score_cache=False))
    scored = load_scorer("org/nested", device="cpu", score_cache=False, model_args="subfolder=step1000")
    assert surprisals(scored) == pytest.approx(expected, abs=1e-5)
    with pytest.raises(ConfigurationError, match="has no subfolder 'step2000'"):
        resolve_source("org/nested", tmp_path, model_args("subfolder=step2000"))
    with pytest.raises(ConfigurationError, match="must be a folder inside the model"):
        resolve_source("org/nested", tmp_path, model_args("subfolder=../x"))


def test_a_local_subfolder(gpt2_dir: Path, tmp_path: Path) -> None:
    parent = tmp_path / "run"
    shutil.copytree(gpt2_dir, parent / "checkpoint-5")
    source = resolve_source(str(parent), tmp_path, model_args("subfolder=checkpoint-5"))
    assert source.files()[0] == parent / "checkpoint-5"
    assert source.revision == resolve_source(str(gpt2_dir), tmp_path).revision  # the same files, the same hash


def test_another_tokenizer_from_the_hub_cache_or_a_directory(hub_cache: Path, gpt2_dir: Path, tmp_path: Path) -> None:
    plain = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path)
    other = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path, model_args="tokenizer=org/tok")
    assert other.identity["tokenizer"] == {"source_kind": "hub", "source": "org/tok", "revision": COMMIT}
    assert "tokenizer" not in plain.identity
    assert isinstance(other, CachedScorer) and other.path != plain.path  # another tokenizer, another cache file
    assert surprisals(other) == pytest.approx(surprisals(plain), abs=1e-5)  # (the same tokenizer files here)
    local = resolve_source(str(gpt2_dir), tmp_path, model_args(f"tokenizer={hub_cache / 'models--org--tok'}"))
    assert local.tokenizer_source is not None and local.tokenizer_source.kind == "directory"
    with pytest.raises(ConfigurationError, match="tokenizer=org/none@x y is neither a directory nor a hub id"):
        resolve_source(str(gpt2_dir), tmp_path, model_args("tokenizer=org/none@x y"))


def test_a_gguf_file_of_a_hub_repository(hub_cache: Path, tmp_path: Path) -> None:
    snapshot = hub_cache / "models--org--tok" / "snapshots" / COMMIT
    (snapshot / "q4").mkdir()
    (snapshot / "q4" / "model-Q4.gguf").write_bytes(b"GGUF")  # resolved only: nothing reads it here
    source = resolve_source("org/tok", tmp_path, model_args("subfolder=q4,gguf_file=model-Q4.gguf"))
    assert source.files() == (snapshot / "q4", "model-Q4.gguf") and not source.masked
    assert source.identity() == {"model": "org/tok", "source_kind": "hub", "source": "org/tok", "revision": COMMIT,
                                 "subfolder": "q4", "gguf_file": "model-Q4.gguf"}
    with pytest.raises(ConfigurationError, match="gguf_file=other.gguf is not in org/tok"):
        resolve_source("org/tok", tmp_path, model_args("gguf_file=other.gguf"))


def test_masked_models_take_model_args_too(bert_dir: Path) -> None:
    scorer = load_scorer(str(bert_dir), device="cpu", score_cache=False,
                         model_args={"dtype": "auto", "tokenizer": str(bert_dir)})
    assert scorer.identity["kind"] == "masked" and scorer.identity["dtype"] == "float32"
    assert scorer.identity["tokenizer"]["source_kind"] == "directory"
    assert scorer.score(SENTENCES[:1])[0].tokens


# ------------------------------------------------------------------------------------------ how it loads


def test_dtype_auto_loads_the_checkpoint_dtype_and_records_it(gpt2_dir: Path, tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    half = tmp_path / "bf16"
    shutil.copytree(gpt2_dir, half, ignore=shutil.ignore_patterns("*.safetensors"))
    AutoModelForCausalLM.from_pretrained(gpt2_dir, dtype=torch.bfloat16).save_pretrained(half)
    assert resolve_source(str(half), tmp_path).checkpoint_dtype() == "bfloat16"
    assert resolve_source(str(gpt2_dir), tmp_path).checkpoint_dtype() == "float32"
    scorer = load_scorer(str(half), device="cpu", score_cache=False, model_args={"dtype": "auto"})
    assert scorer.identity["dtype"] == "bfloat16"
    scorer.score(SENTENCES[:1])
    assert next(scorer.loaded.model.parameters()).dtype == torch.bfloat16
    # --dtype auto means the same; the identity (the cache key) is that of dtype=bfloat16
    same = load_scorer(str(half), device="cpu", dtype="auto", cache_dir=tmp_path)
    assert same.identity == load_scorer(str(half), device="cpu", dtype="bfloat16", cache_dir=tmp_path).identity


def test_load_in_8bit_without_bitsandbytes_says_what_to_install(gpt2_dir: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("bitsandbytes") is not None:
        pytest.skip("bitsandbytes is installed here")
    with pytest.raises(ConfigurationError) as caught:
        load_scorer(str(gpt2_dir), cache_dir=tmp_path, model_args="load_in_8bit=true")
    assert "needs the bitsandbytes package" in caught.value.message
    assert caught.value.hint == "pip install bitsandbytes"


@pytest.fixture
def from_pretrained_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The keyword arguments of every AutoModelForCausalLM.from_pretrained call (which still loads)."""
    from transformers import AutoModelForCausalLM

    calls: list[dict] = []
    real = AutoModelForCausalLM.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        calls.append(kwargs)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    return calls


def test_device_map_loads_and_changes_neither_numbers_nor_identity(gpt2_dir: Path, tmp_path: Path,
                                                                   from_pretrained_calls: list[dict]) -> None:
    plain = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path)
    placed = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path, model_args="parallelize=true")
    assert placed.identity == plain.identity  # placement is not arithmetic: one cache for both
    fresh = load_scorer(str(gpt2_dir), device="cpu", score_cache=False, model_args="parallelize=true")
    assert surprisals(fresh) == pytest.approx(surprisals(plain), abs=1e-5)
    assert sorted(str(call.get("device_map")) for call in from_pretrained_calls) == ["None", "auto"]


def test_trust_remote_code_enters_the_identity_and_reaches_from_pretrained(
        gpt2_dir: Path, tmp_path: Path, from_pretrained_calls: list[dict]) -> None:
    trusted = load_scorer(str(gpt2_dir), device="cpu", score_cache=False, model_args="trust_remote_code=true")
    assert trusted.identity["trust_remote_code"] is True
    assert "trust_remote_code" not in load_scorer(str(gpt2_dir), cache_dir=tmp_path).identity
    assert surprisals(trusted)  # a repository without code of its own loads as before
    assert from_pretrained_calls[0]["trust_remote_code"] is True


def test_identity_changes_with_every_argument_that_changes_numbers(hub_cache: Path, gpt2_dir: Path,
                                                                   tmp_path: Path) -> None:
    def identity(model: str, **options) -> dict:
        return load_scorer(model, device="cpu", cache_dir=tmp_path, **options).identity

    base = identity(str(gpt2_dir))
    assert identity(str(gpt2_dir), model_args={}) == base  # no arguments: the identity (and cache) of before
    variants = [identity(str(gpt2_dir), model_args="dtype=bfloat16"),
                identity(str(gpt2_dir), model_args="tokenizer=org/tok"),
                identity(str(gpt2_dir), model_args="trust_remote_code=true"),
                identity("org/nested", model_args="subfolder=step1000")]
    shown = [json.dumps(v, sort_keys=True) for v in [base, *variants]]
    assert len(set(shown)) == len(shown)


def test_the_cache_does_not_mix_scores_of_different_model_arguments(gpt2_dir: Path, tmp_path: Path) -> None:
    full = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path)
    full.score(SENTENCES[:2])
    half = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path, model_args="dtype=bfloat16")
    assert half.missing(SENTENCES[:2]) == SENTENCES[:2]  # nothing of the float32 run is taken
    assert load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path).missing(SENTENCES[:2]) == []


def test_arguments_do_not_apply_to_precomputed_scores(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="model arguments do not apply"):
        load_scorer(str(tmp_path / "scores.tsv"), model_args="revision=main")


# --------------------------------------------------------------------------------------------- PEFT


def test_peft_missing_says_what_to_install(gpt2_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import linguagym.scoring.model_args as module

    real = importlib.util.find_spec
    monkeypatch.setattr(module.importlib.util, "find_spec", lambda name, *a: None if name == "peft" else real(name))
    with pytest.raises(ConfigurationError) as caught:
        resolve_source(str(gpt2_dir), tmp_path, model_args(f"peft={tmp_path}"))
    assert "needs the peft package" in caught.value.message
    assert caught.value.hint == "install it with: pip install 'linguagym[peft]'"


@pytest.fixture(scope="module")
def lora_dir(gpt2_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LoRA adapter over the tiny GPT-2, with non-zero weights so that it changes the scores."""
    if not HAS_PEFT:
        pytest.skip("peft is not installed (pip install peft)")
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(3)
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(gpt2_dir),
                           LoraConfig(r=4, target_modules=["c_attn"], fan_in_fan_out=True, init_lora_weights=False))
    directory = tmp_path_factory.mktemp("lora") / "adapter"
    model.save_pretrained(directory)
    return directory


@pytest.mark.skipif(not HAS_PEFT, reason="peft is not installed (pip install peft)")
def test_a_peft_adapter_changes_the_scores_and_is_in_the_identity(gpt2_dir: Path, lora_dir: Path,
                                                                  tmp_path: Path) -> None:
    base = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path)
    adapted = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path, model_args={"peft": str(lora_dir)})
    peft_identity = adapted.identity["peft"]
    assert peft_identity["source"] == str(lora_dir.resolve()) and len(peft_identity["revision"]) == 64
    assert isinstance(adapted, CachedScorer) and adapted.path != base.path
    with_adapter, without = surprisals(adapted), surprisals(base)
    assert len(with_adapter) == len(without)
    assert max(abs(a - b) for a, b in zip(with_adapter, without, strict=True)) > 1e-3
    # prefix trees (the default) and plain batches both run the adapter's layers
    plain = load_scorer(str(gpt2_dir), device="cpu", score_cache=False, prefix_sharing=False,
                        model_args={"peft": str(lora_dir)})
    assert surprisals(plain) == pytest.approx(with_adapter, abs=1e-4)
    # another adapter content is another identity
    changed = tmp_path / "changed"
    shutil.copytree(lora_dir, changed)
    config = json.loads((changed / "adapter_config.json").read_text())
    (changed / "adapter_config.json").write_text(json.dumps({**config, "lora_alpha": 2 * config["lora_alpha"]}))
    other = load_scorer(str(gpt2_dir), device="cpu", cache_dir=tmp_path, model_args={"peft": str(changed)})
    assert other.identity["peft"]["revision"] != peft_identity["revision"]


@pytest.mark.skipif(not HAS_PEFT, reason="peft is not installed (pip install peft)")
def test_a_directory_that_is_not_an_adapter_is_refused(gpt2_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="has no adapter_config.json"):
        resolve_source(str(gpt2_dir), tmp_path, model_args(f"peft={gpt2_dir}"))


def test_the_scorer_defaults_are_written_once_and_every_face_of_them_agrees():
    import dataclasses
    import inspect

    from linguagym.evaluation.run import RunSettings
    from linguagym.scoring.registry import DEFAULT_OPTIONS, ScorerOptions, load_scorer

    options = {f.name: f.default for f in dataclasses.fields(ScorerOptions) if f.name != "model_args"}
    assert options == {name: getattr(DEFAULT_OPTIONS, name) for name in options}
    signature = inspect.signature(load_scorer).parameters
    assert {name: signature[name].default for name in options} == options
    for other in (ScorerSpec, RunSettings):
        fields = {f.name: f.default for f in dataclasses.fields(other)}
        shared = {"bos", "dtype", "device", "pll", "bow_correction"} & set(fields)
        assert shared and {name: fields[name] for name in shared} == {name: options[name] for name in shared}, other
    assert ScorerSpec("m").batch_size == DEFAULT_OPTIONS.batch_size == RunSettings(model="m").resolved_batch_size()
