"""Find a provider by a string id: ``"offline"``, ``"anthropic"``, ``"anthropic:claude-sonnet-5-5"``.

An id is ``prefix`` or ``prefix:model``. Each prefix maps to a factory called as
``factory(model, **options)`` where ``model`` is the part after the colon or ``None``.
Built-in prefixes import their module only when first used, so choosing the offline
provider never loads the Anthropic SDK.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any, Callable

from engine.errors import ProviderError
from engine.llm.base import Provider

ProviderFactory = Callable[..., Provider]
"""``factory(model: str | None, **options) -> Provider``."""

_factories: dict[str, ProviderFactory] = {}
_lock = threading.Lock()


def register_provider(prefix: str, factory: ProviderFactory, *, replace: bool = False) -> None:
    """Make ``get_provider("<prefix>[:model]")`` build providers with ``factory``."""
    key = _check_prefix(prefix)
    if not callable(factory):
        raise TypeError(f"Provider factory for {prefix!r} must be callable, got {factory!r}")
    with _lock:
        if key in _factories and not replace:
            raise ValueError(f"Provider prefix {key!r} is already registered; pass replace=True to override it.")
        _factories[key] = factory


def unregister_provider(prefix: str) -> None:
    """Forget a registered prefix (built-ins included); unknown prefixes are ignored."""
    with _lock:
        _factories.pop(_check_prefix(prefix), None)


def known_provider_ids() -> list[str]:
    """Registered prefixes, sorted."""
    with _lock:
        return sorted(_factories)


def parse_provider_id(provider_id: str) -> tuple[str, str | None]:
    """Split ``"prefix:model"`` into ``("prefix", "model")``; a bare prefix gives ``(prefix, None)``."""
    if not isinstance(provider_id, str) or not provider_id.strip():
        raise ProviderError(f"Provider id must be a non-empty string such as 'offline', got {provider_id!r}.")
    prefix, _, model = provider_id.strip().partition(":")
    return prefix.strip().lower(), (model.strip() or None)


def get_provider(provider_id: str | None = None, **options: Any) -> Provider:
    """Build the provider named by ``provider_id`` (default: :func:`default_provider_id`).

    ``options`` go to the factory, e.g. ``api_key=`` or ``client=`` for anthropic,
    ``responses=`` for scripted.
    """
    prefix, model = parse_provider_id(provider_id if provider_id is not None else default_provider_id())
    with _lock:
        factory = _factories.get(prefix)
    if factory is None:
        known = ", ".join(known_provider_ids()) or "none"
        raise ProviderError(
            f"Unknown provider {provider_id!r}. Known providers: {known} "
            "(write 'prefix' or 'prefix:model', e.g. 'anthropic:claude-sonnet-5-5')."
        )
    return factory(model, **options)


def default_provider_id() -> str:
    """``"anthropic"`` when ANTHROPIC_API_KEY is set, else ``"offline"``."""
    return "anthropic" if os.environ.get("ANTHROPIC_API_KEY", "").strip() else "offline"


def load_object(spec: str) -> Any:
    """Import ``"package.module:attribute"``; a missing module raises a ProviderError that says which."""
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ProviderError(
                f"Provider module {module_name!r} is not available ({exc}). Install it, or choose another provider."
            ) from exc
        raise
    try:
        return getattr(module, attribute)
    except AttributeError as exc:
        raise ProviderError(f"{module_name!r} has no {attribute!r}; cannot build the provider {spec!r}.") from exc


def _check_prefix(prefix: str) -> str:
    if not isinstance(prefix, str) or not prefix.strip() or ":" in prefix:
        raise ValueError(f"Provider prefix must be a non-empty string without ':', got {prefix!r}")
    return prefix.strip().lower()


def _anthropic(model: str | None, **options: Any) -> Provider:
    cls = load_object("engine.llm.anthropic_provider:AnthropicProvider")
    return cls(model, **options) if model else cls(**options)


def _offline(model: str | None, **options: Any) -> Provider:
    cls = load_object("engine.llm.offline:OfflineProvider")
    return cls(model=model, **options) if model else cls(**options)


def _scripted(model: str | None, **options: Any) -> Provider:
    from engine.llm.scripted import ScriptedProvider

    name = options.pop("name", f"scripted:{model}" if model else "scripted")
    return ScriptedProvider(name=name, **options)


for _prefix, _factory in (("anthropic", _anthropic), ("offline", _offline), ("scripted", _scripted)):
    register_provider(_prefix, _factory)
