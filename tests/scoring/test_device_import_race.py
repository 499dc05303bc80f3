"""probe_device while another thread imports torch (issue 43): the module is in sys.modules half made, and reading
its attributes failed ("partially initialized module 'torch'", 1 in 4 web requests under load on a fresh server).
The probe now waits for the import to finish. A stand-in ``torch`` package that takes a second to import makes the
window wide and certain; it runs in a child process, so the real torch is not involved."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SLOW_TORCH = '''
import sys, time
started = sys.modules["__main__"].importing
started.set()
time.sleep(1.0)  # the other thread probes now, with this module in sys.modules, half made


class cuda:
    @staticmethod
    def is_available():
        return False


class backends:
    mps = None
'''

CHILD = '''
import sys, threading
importing = threading.Event()
sys.path.insert(0, sys.argv[1])
from linguagym.scoring.engine.device import probe_device

importer = threading.Thread(target=lambda: __import__("torch"))
importer.start()
assert importing.wait(10)
print(probe_device("auto"))
importer.join()
'''


def test_probing_the_device_during_torch_import_waits_for_it(tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(SLOW_TORCH)
    result = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-1000:]
    assert result.stdout.strip() == "cpu"
