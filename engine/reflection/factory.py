"""Build a ReflectionLoop from a provider id and a mode (dual-agent or single-agent)."""

from __future__ import annotations

from typing import Sequence

from engine.config import Settings
from engine.errors import ConfigError
from engine.llm.base import Provider
from engine.llm.registry import default_provider_id, get_provider, parse_provider_id
from engine.reflection.llm import LLMGenerator, LLMReviewer
from engine.reflection.loop import ReflectionLoop
from engine.reflection.offline_generate import OfflineGenerator
from engine.reflection.offline_review import OfflineReviewer
from engine.reflection.support import Embedder, VectorCache
from engine.results import Evidence, Intent, Review

DEFAULT_GENERATOR_MODEL = "claude-sonnet-5-5"
DEFAULT_REVIEWER_MODEL = "claude-haiku-5-5"
MODES = ("dual", "single")


class OfflineSelfReviewer:
    """Single-agent offline mode: one object that drafts, reviews its own answer and revises."""

    def __init__(self, embedder: Embedder | None = None, *, model_name: str | None = None,
                 require_citations: bool = True) -> None:
        cache = VectorCache(embedder, model_name=model_name)
        self._generator = OfflineGenerator(cache=cache)
        self._reviewer = OfflineReviewer(cache=cache, require_citations=require_citations)
        self.name = "offline-self-reviewer"

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """An extractive answer with [n] citations."""
        return self._generator.draft(question, evidence, intent)

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """The answer with the review applied."""
        return self._generator.revise(question, evidence, answer, review)

    def review(self, question: str, evidence: Sequence[Evidence], answer: str) -> Review:
        """A check of its own answer against the evidence."""
        return self._reviewer.review(question, evidence, answer)


def build_reflection(
    provider_id: str | None = None,
    mode: str = "dual",
    *,
    generator_model: str | None = None,
    reviewer_model: str | None = None,
    settings: Settings | None = None,
    provider: Provider | None = None,
    reviewer_provider: Provider | None = None,
    max_rounds: int = 2,
    threshold: float = 0.9,
    embedder: Embedder | None = None,
) -> ReflectionLoop:
    """A ReflectionLoop for ``provider_id`` ("offline", "anthropic[:model]", ...) in ``mode`` "dual" or "single".

    ``provider=`` (e.g. a ScriptedProvider) is used as it is for LLM parts; in dual mode
    ``reviewer_provider=`` gives the reviewer its own provider. In dual mode the generator and
    reviewer default to different models; in single mode one provider and model do both.
    """
    if mode not in MODES:
        raise ConfigError(f"Reflection mode must be 'dual' or 'single', got {mode!r}.")
    if provider is None:
        prefix, id_model = parse_provider_id(provider_id if provider_id is not None else default_provider_id())
        if prefix == "offline":
            return _offline(mode, settings, embedder, max_rounds, threshold)
        provider = get_provider(prefix)
    else:
        id_model = parse_provider_id(provider_id)[1] if provider_id else None
    if mode == "single":
        if reviewer_provider is not None and reviewer_provider is not provider:
            raise ConfigError(
                "Single-agent mode uses one provider for both roles; drop reviewer_provider or use mode 'dual'.")
        model = generator_model or reviewer_model or id_model or _default(provider, DEFAULT_GENERATOR_MODEL)
        return ReflectionLoop(LLMGenerator(provider, model), LLMReviewer(provider, model),
                              max_rounds, threshold, mode="single")
    generator = LLMGenerator(provider, generator_model or id_model or _default(provider, DEFAULT_GENERATOR_MODEL))
    judge = reviewer_provider or provider
    reviewer = LLMReviewer(judge, reviewer_model or _default(judge, DEFAULT_REVIEWER_MODEL))
    return ReflectionLoop(generator, reviewer, max_rounds, threshold, mode="dual")


def _offline(mode: str, settings: Settings | None, embedder: Embedder | None, max_rounds: int,
             threshold: float) -> ReflectionLoop:
    model_name = settings.embedding_model if settings is not None else None
    if mode == "single":
        agent = OfflineSelfReviewer(embedder, model_name=model_name)
        return ReflectionLoop(agent, agent, max_rounds, threshold, mode="single")
    return ReflectionLoop(OfflineGenerator(embedder, model_name=model_name),
                          OfflineReviewer(embedder, model_name=model_name), max_rounds, threshold, mode="dual")


def _default(provider: Provider, model: str) -> str | None:
    """Anthropic model defaults apply to the Anthropic provider only; others use their own default."""
    return model if str(getattr(provider, "name", "")).startswith("anthropic") else None


def eval_reviewer(provider_id: str | None = "offline", *, settings: Settings | None = None,
                  provider: Provider | None = None, model: str | None = None) -> OfflineReviewer | LLMReviewer:
    """A reviewer for answers written without [n] citations (judged against all the evidence)."""
    if provider is None:
        prefix, id_model = parse_provider_id(provider_id or "offline")
        if prefix == "offline":
            name = settings.embedding_model if settings is not None else None
            return OfflineReviewer(model_name=name, require_citations=False)
        provider = get_provider(prefix)
        model = model or id_model
    return LLMReviewer(provider, model or _default(provider, DEFAULT_REVIEWER_MODEL), require_citations=False)
