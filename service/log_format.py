"""The server's log lines: one per record on stderr, its time made once per second.

``carrossel serve`` writes one line per call (``service.interceptors``), on grpcio's polling
thread once the call's status is sent. ``logging.Formatter`` formats each line's time with
``time.localtime`` and ``strftime``; here the text of the second is kept and only the
milliseconds are written per line, the same text as the default (about 1 µs a line).
"""

from __future__ import annotations

import logging
import time

LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class LineFormatter(logging.Formatter):
    """``logging.Formatter`` whose default time text (no ``datefmt``) is made once a second."""

    def __init__(self, fmt: str = LINE_FORMAT) -> None:
        super().__init__(fmt)
        # (second, its text) in one attribute: threads format lines at once, and a pair
        # assigned in one step is never read half old, half new.
        self._second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt:
            return super().formatTime(record, datefmt)
        second, text = self._second
        if int(record.created) != second:
            text = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = (int(record.created), text)
        msec_format = self.default_msec_format
        return msec_format % (text, record.msecs) if msec_format else text
