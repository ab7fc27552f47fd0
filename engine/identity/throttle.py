"""Limits on failed sign-ins: per user name (password sign-in) and per client address (password and API token).

Each failure is counted for a ``window_s`` sliding window. Once a name or an address has ``per_user`` or
``per_address`` failures in the window, every attempt for that name or from that address is refused before any
password or token is checked, until the oldest of those failures leaves the window. A successful sign-in clears
its name's failures (not its address's, so one account cannot wipe the count of guesses made from an address).

The counts live in this process: with several replicas, each counts its own attempts.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from engine.errors import AuthenticationError

MAX_TRACKED = 10_000
"""Names and addresses remembered at once; the least recently failed are forgotten first (bounded memory under a
flood of made-up names)."""


class TooManySignIns(AuthenticationError):
    """Sign-in refused for now: too many recent failures for this user name or from this address."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _wait(seconds: float) -> str:
    seconds = max(int(math.ceil(seconds)), 1)
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return f"{seconds} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


class SignInThrottle:
    """Counts failed sign-ins per user name and per address; refuses attempts over the limits (thread-safe)."""

    def __init__(self, per_user: int = 5, per_address: int = 20, window_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if per_user < 1 or per_address < 1:
            raise ValueError("sign-in limits must allow at least 1 failure")
        if window_s <= 0:
            raise ValueError("the sign-in window must be greater than 0 seconds")
        self.per_user, self.per_address, self.window_s = per_user, per_address, window_s
        self._clock = clock
        self._failures: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, user: str | None = None, address: str | None = None) -> None:
        """TooManySignIns when ``user`` or ``address`` is over its limit now; else nothing."""
        now = self._clock()
        with self._lock:
            for kind, key, limit in (("user", user, self.per_user), ("address", address, self.per_address)):
                if not key:
                    continue
                times = self._recent((kind, key), now, create=False)
                if len(times) >= limit:
                    retry = times[len(times) - limit] + self.window_s - now
                    whom = "for this user name" if kind == "user" else "from your address"
                    raise TooManySignIns(
                        f"Too many failed sign-in attempts {whom} ({len(times)} in the last {_wait(self.window_s)}); "
                        f"wait {_wait(retry)} and try again. Ask an admin if you have lost your password or token.",
                        retry_after_s=max(retry, 1.0))

    def failed(self, user: str | None = None, address: str | None = None) -> None:
        """Count one failed attempt for ``user`` and ``address`` (either may be None)."""
        now = self._clock()
        with self._lock:
            for key in (("user", user), ("address", address)):
                if key[1]:
                    self._recent(key, now).append(now)
                    self._failures.move_to_end(key)
            while len(self._failures) > MAX_TRACKED:
                self._failures.popitem(last=False)

    def succeeded(self, user: str) -> None:
        """Forget ``user``'s failures after a successful sign-in."""
        with self._lock:
            self._failures.pop(("user", user), None)

    def _recent(self, key: tuple[str, str], now: float, create: bool = True) -> deque[float]:
        """The failures of ``key`` still in the window (a new list when ``create``; else one not kept)."""
        times = self._failures.get(key)
        if times is None:
            if not create:
                return deque()
            times = self._failures[key] = deque()
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if not times and not create:
            del self._failures[key]
        return times
