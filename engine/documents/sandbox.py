"""Read documents in a separate worker process under a wall-time and a memory limit.

The worker (``python -m engine.documents.worker``) imports only the parsing code, never the embedding
model, so starting it is cheap and no state of the calling process (model threads, open stores) is
copied. It sets its own address-space limit and reads one file per request; the caller stops it when a
file takes longer than the time limit and starts a fresh one for the next file. Whatever a file does to
the worker (exhaust memory, crash the parser, loop) ends as a DocumentError for that file alone.
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.documents.limits import DEFAULT_LIMITS, ParseLimits, check_chunk_count
from engine.documents.parsers import parse_bytes
from engine.documents.types import ParsedFile
from engine.errors import DocumentError

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
HEADER = struct.Struct("!Q")
READ_STEP = 1 << 20
EXIT_GRACE_S = 5.0
"""How long a worker may take to exit after its input is closed before it is killed."""
START_TIMEOUT_S = 60.0
"""How long a worker may take to import the parsers and say it is ready (about 0.3 s on a laptop)."""
READY = b"ready"


def read_document(name: str, data: bytes, fallback_encoding: str | None = None,
                  limits: ParseLimits = DEFAULT_LIMITS) -> ParsedFile:
    """Parse ``data`` and check its chunk count, in this process (the worker calls this)."""
    parsed = parse_bytes(name, data, fallback_encoding, limits)
    check_chunk_count(parsed.sections, limits)
    return parsed


@dataclass(frozen=True)
class Reply:
    """The worker's answer for one file: the parsed file, or why it was refused."""

    parsed: ParsedFile | None = None
    error: str | None = None
    """A DocumentError's message, shown as it is."""
    failure: str | None = None
    """'memory', or the type and message of an exception the parser should not have raised."""
    detail: str = ""
    """The traceback of an unexpected exception, for the log."""
    peak_mb: float = 0.0
    """The worker's largest resident set so far."""


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


class ParseWorker:
    """Parses files one at a time in a worker process under ``limits``; use as a context manager.

    ``parse`` returns a ParsedFile or raises DocumentError saying which limit a file hit and what to do.
    """

    def __init__(self, limits: ParseLimits = DEFAULT_LIMITS, fallback_encoding: str | None = None) -> None:
        self.limits = limits
        self.fallback_encoding = fallback_encoding
        self.peak_mb = 0.0
        """The largest resident set any worker of this object reached (MB)."""
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parse(self, name: str, data: bytes) -> ParsedFile:
        request = pickle.dumps((name, data, self.fallback_encoding, self.limits), protocol=pickle.HIGHEST_PROTOCOL)
        proc = self._worker()
        deadline = time.monotonic() + self.limits.timeout_s
        try:
            proc.stdin.write(frame(request))
            proc.stdin.flush()
            reply = self._receive(proc, deadline)
        except BrokenPipeError:
            reply = None
        if reply is None:  # no answer: timed out or died
            timed_out = time.monotonic() >= deadline
            code = self._stop()
            cpu_limit = getattr(signal, "SIGXCPU", None)  # the worker's own CPU-time backstop (POSIX)
            if timed_out or (cpu_limit is not None and code == -cpu_limit):
                raise DocumentError(self._timeout_message())
            raise DocumentError(self._crash_message(code))
        self.peak_mb = max(self.peak_mb, reply.peak_mb)
        if reply.parsed is not None:
            return reply.parsed
        if reply.error is not None:
            raise DocumentError(reply.error)
        self._stop()  # memory errors and parser bugs can leave the worker's state damaged: start afresh
        if reply.failure == "memory":
            raise DocumentError(self._memory_message())
        log.warning("parser failed on %r: %s\n%s", name, reply.failure, reply.detail)
        raise DocumentError(f"The file could not be read: the parser failed on it ({reply.failure}). It is damaged "
                            "or uses a feature the parser does not support; re-save or re-export it and retry.")

    def close(self) -> None:
        """Stop the worker (it is started again by the next ``parse``)."""
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        try:
            proc.stdin.close()
            proc.wait(timeout=EXIT_GRACE_S)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        proc.stdout.close()

    # -- internals -----------------------------------------------------------------
    def _worker(self) -> subprocess.Popen:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        if self._proc is not None:
            self._stop()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        with tempfile.TemporaryFile() as errors:  # the worker's stderr until it is ready; then it writes nothing
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "engine.documents.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=errors, env=env, cwd=ROOT, close_fds=True)
            if self._read(self._proc, len(READY), time.monotonic() + START_TIMEOUT_S) == READY:
                return self._proc
            code = self._stop()
            errors.seek(0)
            said = errors.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        raise DocumentError(f"The document reader process did not start (exit code {code}: "
                            f"{said[-1] if said else 'no message'}); run 'python -m engine.documents.worker' to see "
                            "why, and check the installation.")

    def _receive(self, proc: subprocess.Popen, deadline: float) -> Reply | None:
        head = self._read(proc, HEADER.size, deadline)
        if head is None:
            return None
        body = self._read(proc, HEADER.unpack(head)[0], deadline)
        return pickle.loads(body) if body is not None else None  # noqa: S301 - our own worker's reply

    @staticmethod
    def _read(proc: subprocess.Popen, size: int, deadline: float) -> bytes | None:
        """``size`` bytes from the worker, or None when it closes its output or the deadline passes first."""
        fd = proc.stdout.fileno()
        waiter = select.poll()  # not select(): a long-running process may hold descriptors numbered past 1024
        waiter.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        buffer = bytearray()
        while len(buffer) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not waiter.poll(max(1, int(left * 1000))):
                continue
            piece = os.read(fd, min(size - len(buffer), READ_STEP))
            if not piece:
                return None
            buffer += piece
        return bytes(buffer)

    def _stop(self) -> int | None:
        """Kill the current worker; its exit code (negative: the signal that ended it)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        return code

    def _timeout_message(self) -> str:
        return (f"Reading the file took longer than {self.limits.timeout_s:g} s and was stopped "
                "(WORKBENCH_PARSE_TIMEOUT_S). It is very large or built to be slow to parse; split it, or raise the "
                "limit if it is a genuine document.")

    def _memory_message(self) -> str:
        return (f"Reading the file needed more than {self.limits.memory_mb:,} MB of memory and was stopped "
                "(WORKBENCH_PARSE_MEMORY_MB). It is very large or built to exhaust memory; split it, or raise the "
                "limit if it is a genuine document.")

    def _crash_message(self, code: int | None) -> str:
        how = f"exit code {code}"
        if code is not None and code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        return (f"The parser stopped while reading the file ({how}), most likely on the "
                f"{self.limits.memory_mb:,} MB memory limit (WORKBENCH_PARSE_MEMORY_MB). The file is damaged or built "
                "to exhaust memory; re-save or re-export it, or raise the limit if it is a genuine document.")
