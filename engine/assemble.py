"""Build the answering parts from a provider id: a ReflectionLoop (dual-agent or single-agent), a reviewer for
evaluation. Both the offline parts (``engine.offline``) and the LLM ones (``engine.reflection``) are assembled here,
so neither package imports the other's builder."""

from __future__ import annotations

from typing import Sequence

from engine.config import Settings
from engine.errors import ConfigError
from engine.llm.base import Provider
from engine.llm.models import Role
from engine.llm.registry import default_provider_id, get_provider, parse_provider_id
from engine.reflection.llm import LLMGenerator, LLMReviewer
from engine.reflection.loop import ReflectionLoop
from engine.offline.generator import OfflineGenerator
from engine.offline.reviewer import OfflineReviewer
from engine.embeddings import TextEncoder as Embedder, VectorCache
from engine.results import Answerability, Evidence, Intent, Review

MODES = ("dual", "single")


class OfflineSelfReviewer:
    """Single-agent offline mode: one object that drafts, reviews its own answer and revises."""

    def __init__(self, embedder: Embedder | None = None, *, model_name: str | None = None,
                 require_citations: bool = True) -> None:
        cache = VectorCache(embedder, model_name=model_name)
        self._generator = OfflineGenerator(cache=cache)
        self.uses_answerability = True
        self._reviewer = OfflineReviewer(cache=cache, require_citations=require_citations)
        self.name = "offline-self-reviewer"

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent,
              answerability: Answerability | None = None) -> str:
        """An extractive answer with [n] citations."""
        return self._generator.draft(question, evidence, intent, answerability)

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
    ``reviewer_provider=`` gives the reviewer its own provider. A model is taken from the
    arguments, then the id ("anthropic:MODEL", generator only), then ``settings``; a provider
    that resolves models (Anthropic) checks a named one and otherwise picks its newest
    Sonnet to draft and Haiku to review. In single mode one provider and model do both.
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
        named = generator_model or reviewer_model or id_model or _setting(settings, "generator_model")
        model = _model(provider, "generator", named)
        return ReflectionLoop(LLMGenerator(provider, model), LLMReviewer(provider, model),
                              max_rounds, threshold, mode="single")
    named = generator_model or id_model or _setting(settings, "generator_model")
    generator = LLMGenerator(provider, _model(provider, "generator", named))
    judge = reviewer_provider or provider
    reviewer = LLMReviewer(judge, _model(judge, "reviewer", reviewer_model or _setting(settings, "reviewer_model")))
    return ReflectionLoop(generator, reviewer, max_rounds, threshold, mode="dual")


def _offline(mode: str, settings: Settings | None, embedder: Embedder | None, max_rounds: int,
             threshold: float) -> ReflectionLoop:
    model_name = settings.embedding_model if settings is not None else None
    if mode == "single":
        agent = OfflineSelfReviewer(embedder, model_name=model_name)
        return ReflectionLoop(agent, agent, max_rounds, threshold, mode="single")
    cache = VectorCache.shared(embedder, model_name=model_name)
    return ReflectionLoop(OfflineGenerator(cache=cache),
                          OfflineReviewer(embedder, model_name=model_name), max_rounds, threshold, mode="dual")


def _model(provider: Provider, role: Role, named: str | None) -> str | None:
    """The model ``provider`` resolves for ``role`` (checking ``named``); other providers just get ``named``."""
    resolve = getattr(provider, "resolve_model", None)
    return resolve(role, named) if callable(resolve) else named


def _setting(settings: Settings | None, field: str) -> str | None:
    return getattr(settings, field, None) if settings is not None else None


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
    named = model or _setting(settings, "reviewer_model")
    return LLMReviewer(provider, _model(provider, "reviewer", named), require_citations=False)
