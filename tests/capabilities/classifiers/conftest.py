from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from linguagym.capabilities.classifiers.base import Classifier, ClassifierError, Prediction, from_binary


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("LINGUAGYM_HTTP_TOKEN", raising=False)


class CountingClassifier(Classifier):
    """Positive when the text contains 'good'; records every batch; can fail from a given call on."""

    def __init__(self, fail_on_call: int | None = None, tag: str = "v1") -> None:
        self.calls: list[list[str]] = []
        self.fail_on_call = fail_on_call
        self.tag = tag

    @property
    def identity(self) -> dict[str, Any]:
        return {"kind": "counting", "tag": self.tag}

    @property
    def name(self) -> str:
        return "counting"

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        self.calls.append(list(texts))
        if self.fail_on_call is not None and len(self.calls) >= self.fail_on_call:
            raise ClassifierError("the model fell over")
        return [from_binary(0.9 if "good" in text else 0.1) for text in texts]


@pytest.fixture
def counting() -> type[CountingClassifier]:
    return CountingClassifier
