"""The library's warnings during one job, kept for its page: what ``linguagym`` logs at WARNING or above from the
thread doing the job (a worker pool runs several jobs at once, each on its own thread), with a setting it names in
backticks written as the web form's label, as errors are (``setting_labels``)."""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterator

from linguagym.web import setting_labels


class _Collect(logging.Handler):
    def __init__(self, thread: int) -> None:
        super().__init__(logging.WARNING)
        self.thread = thread
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            text = re.sub(r"`([a-z_]+)`", lambda m: setting_labels.label(m.group(1)) or m.group(0),
                          record.getMessage())
            if text not in self.messages:
                self.messages.append(text)


@contextlib.contextmanager
def library_warnings() -> Iterator[list[str]]:
    """The warnings ``linguagym`` logs on this thread inside the block, in order, each once."""
    handler = _Collect(threading.get_ident())
    logger = logging.getLogger("linguagym")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
