from __future__ import annotations

import subprocess
import sys

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring.engine import device


def test_auto_is_cpu_here_without_importing_torch() -> None:
    program = (
        "import sys; from linguagym.scoring.engine.device import probe_device; "
        "print(probe_device('auto'), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert out.split() == [expected, "False"]
    assert device.probe_device("auto") == expected  # with torch imported: asked directly


def test_explicit_and_unknown_devices() -> None:
    assert device.probe_device("CPU") == "cpu"
    assert device.probe_device("cuda:1") == "cuda:1"
    with pytest.raises(ConfigurationError, match="unknown device"):
        device.probe_device("tpu")


def test_torch_device_and_dtype_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    cpu = device.torch_device("cpu")
    assert cpu.type == "cpu"
    assert device.torch_dtype("bfloat16", cpu) is torch.bfloat16
    with pytest.raises(ConfigurationError, match="float16"):
        device.torch_dtype("float16", cpu)
    if not torch.cuda.is_available():
        with pytest.raises(ConfigurationError, match="cannot use CUDA"):
            device.torch_device("cuda")


def test_cpu_threads_follow_available_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        monkeypatch.setenv("LINGUAGYM_THREADS", "1")
        assert device.configure_cpu_threads() == 1 and torch.get_num_threads() == 1
        assert device.last_thread_choice() == device.ThreadChoice(1, "LINGUAGYM_THREADS=1")
        monkeypatch.delenv("LINGUAGYM_THREADS")
        monkeypatch.setattr(device.cpu_load, "SAMPLE_SECONDS", 0.0)
        monkeypatch.setattr(device.cpu_load, "busy_elsewhere", lambda before, after: 0.0)
        assert device.configure_cpu_threads() == device.available_cpus() >= 1  # an idle machine: every CPU
        monkeypatch.setattr(device.cpu_load, "busy_elsewhere", lambda before, after: float(after.cpus))
        assert device.configure_cpu_threads() == 1  # a saturated one: a single thread waits on no other
        assert "busy with other processes" in device.last_thread_choice().reason
    finally:
        torch.set_num_threads(before)


def test_bfloat16_mixed_loads_float32_weights_and_warns_where_the_cpu_emulates_bfloat16(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import torch

    cpu = device.torch_device("cpu")
    monkeypatch.setattr(device, "cpu_multiplies_bfloat16", lambda: True)
    with caplog.at_level("WARNING", logger="linguagym.scoring.engine.device"):
        assert device.torch_dtype("bfloat16-mixed", cpu) is torch.float32
        assert not caplog.records
        monkeypatch.setattr(device, "cpu_multiplies_bfloat16", lambda: False)
        assert device.torch_dtype("bfloat16-mixed", cpu) is torch.float32
    assert "no bfloat16 matrix instructions" in caplog.text
    with device.autocast("bfloat16-mixed", cpu):
        assert torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.bfloat16
    with device.autocast("float32", cpu):
        assert not torch.is_autocast_enabled("cpu")
