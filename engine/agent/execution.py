"""Run one tool call: in a worker thread with a deadline, retrying transient failures with backoff.

A Python thread cannot be killed. When a call passes its deadline the runtime stops
waiting, records ``timed_out`` and moves on; the worker is a daemon thread that is
abandoned: it finishes in the background or dies with the process, and its result is
discarded. So a timed-out call has *not necessarily not run* (a write may still land);
the message to the model says so. Tools doing I/O should set their own timeouts
(sockets, subprocesses) so that abandoned workers do not pile up.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from pydantic_core import to_jsonable_python

from engine.agent.errors import ToolError, TransientToolError
from engine.errors import EngineError

log = logging.getLogger(__name__)
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_RETRIES = 2
DEFAULT_BACKOFF_S = 0.2


class ToolTimeout(Exception):
    """The worker did not finish before its deadline."""


def run_with_timeout(call: Callable[[], Any], timeout_s: float) -> Any:
    """Return ``call()``'s value or raise its exception; raise ToolTimeout after ``timeout_s`` seconds."""
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting thread below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="agent-tool", daemon=True).start()
    if not done.wait(max(timeout_s, 0.0)):
        raise ToolTimeout()
    if "error" in box:
        raise box["error"]
    return box["value"]


def ok(result: Any, message: str) -> dict[str, Any]:
    """The envelope of a successful call."""
    return {"ok": True, "result": to_jsonable_python(result, fallback=str), "message": message}


def failure(error: str, message: str) -> dict[str, Any]:
    """The envelope of a call that failed or never ran; ``error`` is a stable code."""
    return {"ok": False, "error": error, "message": message}


@dataclass(frozen=True)
class Outcome:
    """What came of one call: the envelope, whether it timed out, attempts made, wall time."""

    envelope: dict[str, Any]
    timed_out: bool
    attempts: int
    duration_ms: float

    @property
    def status(self) -> str:
        """``ok``, ``timed_out`` or the error code."""
        return "ok" if self.envelope["ok"] else self.envelope["error"]


def execute(
    name: str,
    call: Callable[[], Any],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    retries: int = DEFAULT_RETRIES,
    backoff_s: float = DEFAULT_BACKOFF_S,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Run ``call`` with a deadline per attempt; retry only TransientToolError, ``retries`` times at most."""
    started = time.perf_counter()
    attempts = 0
    while True:
        attempts += 1
        try:
            value = run_with_timeout(call, timeout_s)
            envelope, timed_out = ok(value, f"{name} finished."), False
        except ToolTimeout:
            message = (f"{name} did not finish within {timeout_s:g} s; the runtime stopped waiting (it may still "
                       "complete in the background). Do not assume it ran or did not; try a narrower request.")
            envelope, timed_out = failure("timed_out", message), True
        except TransientToolError as exc:
            if attempts <= retries:
                sleep(backoff_s * 2 ** (attempts - 1))
                continue
            envelope, timed_out = failure(exc.code, f"{exc} (gave up after {attempts} attempts)"), False
        except ToolError as exc:
            envelope, timed_out = failure(exc.code, str(exc)), False
        except EngineError as exc:
            envelope, timed_out = failure("tool_error", str(exc)), False
        except Exception as exc:  # a bug in the tool: reported, logged, never crashes the run
            log.exception("tool %s raised an unexpected error", name)
            message = f"{name} failed unexpectedly ({type(exc).__name__}: {exc})."
            envelope, timed_out = failure("internal_error", message), False
        return Outcome(envelope, timed_out, attempts, round((time.perf_counter() - started) * 1000, 3))


def shrink(value: Any, max_chars: int = 4000, max_items: int = 50) -> Any:
    """A copy of JSON data with long strings and lists cut, so one result cannot flood the model."""
    if isinstance(value, str):
        return value if len(value) <= max_chars else value[:max_chars] + f"… [cut {len(value) - max_chars} chars]"
    if isinstance(value, list):
        items = [shrink(v, max_chars, max_items) for v in value[:max_items]]
        return items + ([f"[cut {len(value) - max_items} items]"] if len(value) > max_items else [])
    if isinstance(value, dict):
        return {k: shrink(v, max_chars, max_items) for k, v in value.items()}
    return value


def dumps(envelope: dict[str, Any]) -> str:
    """JSON text of an envelope for the model; ``<`` and ``>`` escaped so data cannot close its wrapper."""
    text = json.dumps(shrink(envelope), ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")
