"""The document-reading worker: ``python -m engine.documents.worker``, started by ``sandbox.ParseWorker``.

Protocol on stdin/stdout: after importing the parsers the worker writes ``ready``; then each request is a
length-prefixed pickle of (name, data, fallback encoding, ParseLimits), answered by a length-prefixed pickle
of ``sandbox.Reply``. The worker holds its address space to the limit's memory and its CPU time to the
limit's time for each file; it exits when its input closes, and after a memory error.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import traceback
import warnings
from typing import BinaryIO

try:
    import resource
except ImportError:  # not on Windows: the caller's wall-time limit still applies
    resource = None

from engine.documents.limits import MB, ParseLimits
from engine.documents.sandbox import HEADER, READY, Reply, frame, read_document
from engine.errors import DocumentError

CPU_GRACE_S = 5
"""CPU seconds past the wall-time limit before the kernel stops a worker whose caller has gone."""


def _peak_mb() -> float:
    """This process's largest resident set so far, in MB.

    On Linux it is VmHWM: ru_maxrss would also count the resident set of the process that started this one
    (the kernel carries it over fork and exec), which is the caller's, model and all.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    if resource is None:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak / 1024


def _apply_limits(limits: ParseLimits) -> None:
    if resource is None:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    memory = limits.memory_mb * MB
    resource.setrlimit(resource.RLIMIT_AS, (memory if hard == resource.RLIM_INFINITY else min(memory, hard), hard))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + limits.timeout_s) + CPU_GRACE_S
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu if hard == resource.RLIM_INFINITY else min(cpu, hard), hard))


def handle(name: str, data: bytes, fallback: str | None, limits: ParseLimits) -> Reply:
    """Read one file; every outcome is a Reply."""
    try:
        return Reply(parsed=read_document(name, data, fallback, limits), peak_mb=_peak_mb())
    except DocumentError as exc:
        return Reply(error=str(exc), peak_mb=_peak_mb())
    except MemoryError:
        return Reply(failure="memory", peak_mb=_peak_mb())
    except RecursionError:
        return Reply(error="The file nests its structure too deeply to read; it is damaged or built to crash "
                           "parsers. Re-save or re-export it and retry.", peak_mb=_peak_mb())
    except Exception as exc:  # noqa: BLE001 - a hostile file may break a parser anywhere; the caller logs it
        return Reply(failure=f"{type(exc).__name__}: {str(exc)[:200]}", detail=traceback.format_exc()[-4000:],
                     peak_mb=_peak_mb())


def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        piece = stream.read(size - len(data))
        if not piece:
            return None
        data += piece
    return bytes(data)


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """Answer requests until the input closes (or a memory error leaves this process's heap suspect)."""
    while True:
        head = _read_exact(requests, HEADER.size)
        body = _read_exact(requests, HEADER.unpack(head)[0]) if head else None
        if body is None:
            return
        name, data, fallback, limits = pickle.loads(body)  # noqa: S301 - sent by our own ParseWorker
        del body
        _apply_limits(limits)
        reply = handle(name, data, fallback, limits)
        del data
        replies.write(frame(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)))
        replies.flush()
        if reply.failure == "memory":
            return


def main() -> int:
    logging.disable(logging.CRITICAL)  # parser warnings about a hostile file are noise here; the reply says it
    warnings.simplefilter("ignore")
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, sys.stdout.fileno())  # a library that prints must not corrupt the replies
    os.dup2(quiet, sys.stderr.fileno())
    replies.write(READY)
    replies.flush()
    serve(sys.stdin.buffer, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
