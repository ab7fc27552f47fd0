"""Which Claude model each role uses: the newest Sonnet drafts answers, the newest Haiku reviews them.

The Models API (``client.models.list()``) is asked once per process and API endpoint; a model id
named in settings, on the command line or in the UI is checked against what it lists. When the
API cannot be asked, the ids in :data:`FALLBACK_MODELS` are used and named ids go through
unchecked (a wrong one then fails at call time with an :class:`UnknownModelError`).
The list also says what each model accepts (``capabilities``: structured outputs, thinking
types), which :mod:`engine.llm.capabilities` turns into request shapes.
The Anthropic SDK is imported only when a list is actually fetched.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence

from engine.llm.capabilities import ModelCapabilities
from engine.llm.errors import UnknownModelError

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

Role = Literal["generator", "reviewer"]

# Used only when the Models API cannot be asked (no network, key rejected, API down). These are the
# current Sonnet and Haiku ids in Anthropic's models overview (platform.claude.com/docs, "Claude
# Sonnet 5.5" and "Claude Haiku 5.5" model pages; both ids are also in anthropic 2.16's ``Model`` type).
FALLBACK_MODELS: Mapping[Role, str] = MappingProxyType(
    {"generator": "claude-sonnet-5-5", "reviewer": "claude-haiku-5-5"}
)

ROLE_LINES: Mapping[Role, str] = MappingProxyType({"generator": "sonnet", "reviewer": "haiku"})
"""The model line (``ModelInfo.line``) whose newest model each role uses by default."""

ROLE_SETTINGS: Mapping[Role, str] = MappingProxyType(
    {"generator": "WORKBENCH_GENERATOR_MODEL", "reviewer": "WORKBENCH_REVIEWER_MODEL"}
)
"""The environment variable that names each role's model."""

LIST_TIMEOUT_S = 10.0  # the list is a few KB; no answer in 10 s means the API is out of reach, so fall back
LIST_RETRIES = 1  # one retry rides out a dropped connection without stalling the first question
LIST_PAGE_SIZE = 1000  # the API's largest page: every model in one request
SHOWN_IDS = 12  # ids an error message names before "and N more"
KNOWN_LINES = ("haiku", "sonnet", "opus")  # read from an id only when the API sent no ``line`` field
_SNAPSHOT = re.compile(r"-\d{8}$")  # a dated snapshot, e.g. claude-sonnet-4-5-20250929
UNCHECKED = object()  # what ModelResolver._retrieve gives when the API could not be asked


@dataclass(frozen=True)
class ListedModel:
    """One model from the Models API list; ``capabilities`` is None when the API described none."""

    id: str
    line: str | None
    created_at: datetime
    active: bool = True
    capabilities: ModelCapabilities | None = None

    @classmethod
    def from_info(cls, info: Any) -> "ListedModel":
        """From an SDK ``ModelInfo``; the line is read from the id only when the API sent no ``line`` at all."""
        if "line" in getattr(info, "model_fields_set", ()):
            line = info.line
        else:
            line = next((part for part in info.id.split("-") if part in KNOWN_LINES), None)
        lifecycle = getattr(info, "lifecycle", None)
        return cls(id=info.id, line=line, created_at=info.created_at, active=lifecycle in (None, "active"),
                   capabilities=ModelCapabilities.from_api(getattr(info, "capabilities", None)))


@dataclass(frozen=True)
class ModelCatalog:
    """The models the API lists for this key, or why it could not be asked (``problem``)."""

    models: tuple[ListedModel, ...] = ()
    problem: str = ""

    @property
    def listed(self) -> bool:
        """True when the API answered with a list."""
        return not self.problem

    @property
    def ids(self) -> tuple[str, ...]:
        """Listed ids, newest first."""
        return tuple(m.id for m in sorted(self.models, key=lambda m: m.created_at, reverse=True))

    def newest(self, line: str) -> str | None:
        """The newest listed model of ``line`` (active ones before deprecated ones), or None."""
        candidates = [m for m in self.models if m.line == line]
        return max(candidates, key=lambda m: (m.active, m.created_at)).id if candidates else None

    def knows(self, model_id: str) -> bool:
        """Whether ``model_id`` is listed, as it is or as the alias of a listed dated snapshot."""
        return self.find(model_id) is not None

    def find(self, model_id: str) -> ListedModel | None:
        """The listed model ``model_id`` names: itself, else the newest dated snapshot it is the alias of."""
        exact = next((m for m in self.models if m.id == model_id), None)
        if exact is not None:
            return exact
        alias = model_id.removesuffix("-latest")
        snapshots = [m for m in self.models if _SNAPSHOT.sub("", m.id) == alias]
        return max(snapshots, key=lambda m: m.created_at) if snapshots else None

    def capabilities(self, model_id: str) -> ModelCapabilities | None:
        """What the API says ``model_id`` accepts; None when it is not listed or came without capabilities."""
        found = self.find(model_id)
        return found.capabilities if found is not None else None


class ModelResolver:
    """Asks the Models API once per process and endpoint (thread-safe), then picks or checks each role's model."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._catalogs: dict[str, ModelCatalog] = {}
        self._aliases: dict[tuple[str, str], ListedModel | None] = {}

    def catalog(self, client: "anthropic.Anthropic") -> ModelCatalog:
        """The cached list for the client's endpoint, fetched on first use."""
        key = _endpoint(client)
        with self._lock:
            if key not in self._catalogs:
                self._catalogs[key] = list_models(client)
            return self._catalogs[key]

    def resolve(self, client: "anthropic.Anthropic", role: Role, configured: str | None = None) -> str:
        """``configured`` once the API confirms it, else the newest model of the role's line, else the fallback."""
        catalog = self.catalog(client)
        if configured and configured.strip():
            model = configured.strip()
            if catalog.listed and not catalog.knows(model) and not self._resolves(client, model):
                raise UnknownModelError(
                    unknown_model_message(model, catalog.ids, role), model=model, available=catalog.ids
                )
            return model
        newest = catalog.newest(ROLE_LINES[role])
        if newest is not None:
            return newest
        if catalog.listed:
            log.warning("The Models API lists no %s model; using %s.", ROLE_LINES[role], FALLBACK_MODELS[role])
        return FALLBACK_MODELS[role]

    def capabilities(self, client: "anthropic.Anthropic", model: str) -> ModelCapabilities | None:
        """What the Models API says ``model`` accepts; None when it does not say.

        The list is fetched on first use; an id it does not show (an alias) is asked for by id, once.
        """
        catalog = self.catalog(client)
        if not catalog.listed:
            return None
        if catalog.knows(model):
            return catalog.capabilities(model)
        found = self._retrieve(client, model)
        return found.capabilities if isinstance(found, ListedModel) else None

    def clear(self) -> None:
        """Forget every cached list, so the next use asks the API again."""
        with self._lock:
            self._catalogs.clear()
            self._aliases.clear()

    def _resolves(self, client: "anthropic.Anthropic", model: str) -> bool:
        """Whether the API resolves an id its list does not show (an alias); True when it cannot tell."""
        return self._retrieve(client, model) is not None

    def _retrieve(self, client: "anthropic.Anthropic", model: str) -> "ListedModel | None | object":
        """The model as the API describes it when asked by id; None when it does not exist; UNCHECKED when
        the API could not be asked (not remembered, so a later use asks again)."""
        import anthropic

        key = (_endpoint(client), model)
        with self._lock:
            if key in self._aliases:
                return self._aliases[key]
        try:
            found: ListedModel | None = ListedModel.from_info(_quick(client).models.retrieve(model))
        except anthropic.NotFoundError:
            found = None
        except anthropic.APIError as exc:
            log.warning("Could not check Claude model %r (%s); using it unchecked.", model, _problem(exc))
            return UNCHECKED
        with self._lock:
            self._aliases[key] = found
        return found


MODELS = ModelResolver()
"""The process-wide resolver every AnthropicProvider uses unless given its own."""


def list_models(client: "anthropic.Anthropic") -> ModelCatalog:
    """Ask the Models API for every model this key may use; a failure becomes a catalog with a ``problem``."""
    import anthropic

    try:
        infos = list(_quick(client).models.list(limit=LIST_PAGE_SIZE))
    except anthropic.APIError as exc:
        problem = _problem(exc)
        log.warning(
            "Could not list the Claude models (%s); using %s.", problem, ", ".join(FALLBACK_MODELS.values())
        )
        return ModelCatalog(problem=problem)
    models = tuple(ListedModel.from_info(info) for info in infos)
    if not models:
        return ModelCatalog(problem="the Models API listed no models")
    log.debug("Claude models listed: %s", ", ".join(m.id for m in models))
    return ModelCatalog(models=models)


def unknown_model_message(model: str, available: Sequence[str], role: Role | None = None) -> str:
    """What to say about a model id the API does not offer, naming the ids it does offer when known."""
    setting = ROLE_SETTINGS[role] if role else " or ".join(ROLE_SETTINGS.values())
    default = f"the newest {ROLE_LINES[role].capitalize()} model" if role else "the newest Sonnet and Haiku models"
    if available:
        shown = ", ".join(available[:SHOWN_IDS])
        if len(available) > SHOWN_IDS:
            shown += f" and {len(available) - SHOWN_IDS} more"
        choice = f"pick one of {shown}"
    else:
        choice = "use an id from Anthropic's models overview"
    return (
        f"Claude model {model!r} is not available to this API key. Set {setting} (or MODEL in "
        f"'anthropic:MODEL') to an available id, or unset it to use {default}; {choice}."
    )


def _quick(client: "anthropic.Anthropic") -> "anthropic.Anthropic":
    return client.with_options(timeout=LIST_TIMEOUT_S, max_retries=LIST_RETRIES)


def _endpoint(client: "anthropic.Anthropic") -> str:
    return str(client.base_url)


def _problem(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {message}"
