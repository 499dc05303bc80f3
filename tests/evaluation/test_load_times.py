"""The de-quantising times a machine measured: the rate is bytes per second over the recorded conversions; with none
recorded (or an unreadable record) the stage claims no time."""

from __future__ import annotations

from linguagym.assets import load_times


def test_the_rate_comes_from_the_recorded_conversions(tmp_path):
    assert load_times.estimate(tmp_path, 1000) is None
    assert "about" not in load_times.dequantising_label(tmp_path, 1000)
    (tmp_path / "models").mkdir()
    load_times.record(tmp_path, "a", 1000, 10.0)
    load_times.record(tmp_path, "b", 3000, 10.0)  # 4000 bytes in 20 s: 200 bytes a second
    assert load_times.estimate(tmp_path, 2000) == (10.0, 2)
    assert "about 10 s at the rate this machine measured over 2 earlier conversions" in load_times.dequantising_label(
        tmp_path, 2000)
    assert "about 3 min" in load_times.dequantising_label(tmp_path, 200 * 180)


def test_an_unreadable_record_claims_nothing(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / load_times.FILE_NAME).write_text("[{\"bytes\": -1, \"seconds\": 0}, 5, \"x\"]")
    assert load_times.estimate(tmp_path, 1000) is None
    (tmp_path / "models" / load_times.FILE_NAME).write_text("not json")
    assert load_times.estimate(tmp_path, 1000) is None
    load_times.record(tmp_path, "a", 100, 1.0)  # a bad file is replaced by a good record
    assert load_times.estimate(tmp_path, 100) == (1.0, 1)
