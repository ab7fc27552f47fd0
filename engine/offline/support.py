"""How well evidence supports a sentence: embedding similarity, content-word coverage, figures and names.

The offline generator's scores (to rank and re-cite sentences); the offline reviewer judges
support with its own judge (``judge``) and uses this module only for the evidence index, the
revision history and contradicting figures. Evidence is cut into units (sentences, table rows,
records: see ``units``). Embeddings come from any object with ``encode(texts) -> normalised
vectors``; vectors are cached by text in a cache that the generator, the reviewer and every loop
round share (``VectorCache.shared``), so each evidence unit is embedded once, in one batch,
however many times it is looked at. A cached vector is the embedding model's output, not a
judgement: the reviewer's judge can use another model (``OfflineJudge(model_name=...)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.language.codes import code_kind
from engine.language.names import MONTHS, named_tokens
from engine.language.quantities import Figure, figures, located_figures, numbers
from engine.language.tokens import content_words, words
from engine.language.layout import evidence_units
from engine.embeddings import TextEncoder as Embedder, VectorCache  # noqa: F401
from engine.offline.sentences import planted
from engine.results import Evidence

SUPPORT_COVERAGE_WEIGHT = 0.6
"""The generator's support = 0.6 x content-word coverage + 0.4 x embedding similarity (tuned on all of
review_dev when the reviewer still shared it; the reviewer's own blend is in ``judge``)."""
SUPPORT_THRESHOLD = 0.7
"""A statement with support below this is not backed by the evidence it is checked against."""


@dataclass(frozen=True)
class Chunk:
    """One piece of evidence, pre-digested: sentences, words, figures, names, vectors."""

    number: int
    evidence: Evidence
    sentences: tuple[str, ...]
    words: frozenset[str]
    raw_words: frozenset[str]
    numbers: frozenset[float]
    tokens: frozenset[str]
    vectors: np.ndarray  # one row per sentence
    kinds: tuple[str, ...] = ()  # the unit kind of each sentence (see ``units``)


@dataclass(frozen=True)
class Support:
    """How well a set of chunks backs one sentence."""

    score: float
    similarity: float
    coverage: float
    missing_numbers: frozenset[float]
    missing_tokens: frozenset[str]
    best_sentence: str
    chunk: int | None

    @property
    def supported(self) -> bool:
        return self.score >= SUPPORT_THRESHOLD and not self.missing_numbers and not self.missing_tokens


class EvidenceIndex:
    """Evidence numbered [1]..[n] and ready to score sentences against."""

    def __init__(self, evidence: Sequence[Evidence], cache: VectorCache, *, extra: Sequence[str] = ()) -> None:
        """Index ``evidence``; ``extra`` texts (a question, answer sentences) are embedded in the same batch."""
        self.cache = cache
        self.chunks: list[Chunk] = []
        texts = self.texts(evidence)
        vectors = cache.encode(list(extra) + texts)[len(extra):] if texts else np.zeros((0, 1), dtype=np.float32)
        offset = 0
        for number, item in enumerate(evidence, start=1):
            units = evidence_units(item.text)
            sentences = tuple(u.text for u in units) or _fallback(item)
            span = len(sentences)
            body = f"{item.metadata.title} {item.text}"
            self.chunks.append(Chunk(
                number=number,
                evidence=item,
                sentences=sentences,
                words=frozenset(content_words(body)),
                raw_words=frozenset(words(body)),
                numbers=frozenset(numbers(body, spelled=True)),
                tokens=frozenset(named_tokens(body) | set(words(body))),
                vectors=vectors[offset: offset + span],
                kinds=tuple(u.kind for u in units) or ("prose",),
            ))
            offset += span

    @staticmethod
    def texts(evidence: Sequence[Evidence]) -> list[str]:
        """The texts an index over ``evidence`` embeds: each chunk's sentences."""
        return [sentence for item in evidence for sentence in _sentences(item)]

    def __len__(self) -> int:
        return len(self.chunks)

    def chunk(self, number: int) -> Chunk:
        """The chunk cited as [number] (1-based)."""
        return self.chunks[number - 1]

    def support(self, sentence: str, numbers_: Sequence[int] | None = None, *, vector: np.ndarray | None = None,
                check_names: bool = True) -> Support:
        """How well the chunks ``numbers_`` (default: all) together support ``sentence``."""
        chosen = [self.chunk(n) for n in (numbers_ or range(1, len(self.chunks) + 1)) if 1 <= n <= len(self.chunks)]
        if not chosen:
            return Support(0.0, 0.0, 0.0, frozenset(), frozenset(), "", None)
        if vector is None:
            vector = self.cache.encode([sentence])[0]
        best_sim, best_sentence, best_chunk = -1.0, "", chosen[0].number
        for chunk in chosen:
            sims = chunk.vectors @ vector
            index = int(np.argmax(sims))
            if float(sims[index]) > best_sim:
                best_sim = float(sims[index])
                best_sentence = chunk.sentences[index]
                best_chunk = chunk.number
        mine = set(content_words(sentence))
        pool = set().union(*(c.words for c in chosen))
        cov = len(mine & pool) / len(mine) if mine else 1.0
        have_numbers = set().union(*(c.numbers for c in chosen))
        have_tokens = set().union(*(c.tokens for c in chosen))
        missing_numbers = frozenset(numbers(sentence) - have_numbers)
        names = named_tokens(sentence, capitalised=False) if check_names else set()
        missing_tokens = frozenset(names - have_tokens)
        sim = max(best_sim, 0.0)
        score = SUPPORT_COVERAGE_WEIGHT * cov + (1 - SUPPORT_COVERAGE_WEIGHT) * sim
        return Support(score, sim, cov, missing_numbers, missing_tokens, best_sentence, best_chunk)

    def best_single(self, sentence: str, *, vector: np.ndarray | None = None, current_only: bool = False) -> Support:
        """The single chunk that best supports ``sentence`` (supported first, then by score).

        ``current_only`` skips chunks whose document has a newer revision among the evidence.
        """
        if vector is None:
            vector = self.cache.encode([sentence])[0]
        chunks = [c for c in self.chunks if not (current_only and newer_revision(self, c.number) is not None)]
        options = [self.support(sentence, [c.number], vector=vector) for c in chunks]
        if not options:
            return Support(0.0, 0.0, 0.0, frozenset(), frozenset(), "", None)
        return max(options, key=lambda s: (s.supported, -len(s.missing_numbers), s.score, _preference(self, s.chunk)))


def _sentences(item: Evidence) -> tuple[str, ...]:
    return tuple(u.text for u in evidence_units(item.text)) or _fallback(item)


def _fallback(item: Evidence) -> tuple[str, ...]:
    return (item.text.strip() or " ",)


def _preference(index: EvidenceIndex, number: int | None) -> tuple:
    """Newer and more authoritative evidence wins ties."""
    if number is None:
        return (0, 0, 0.0)
    item = index.chunk(number).evidence
    stamp = item.metadata.update_date.toordinal() if item.metadata.update_date else 0
    return (stamp, item.metadata.authority, item.credibility)


CONFLICT_SIMILARITY = 0.6
"""Two sentences with figures in the same unit count as "about the same thing" above this similarity."""


@dataclass(frozen=True)
class Conflict:
    """A figure in one chunk that another, preferred chunk gives differently."""

    figure: Figure
    chunk: int
    alternative: Figure
    other_chunk: int
    other_sentence: str


def subjects(sentence: str, title: str = "") -> set[str]:
    """The codes a sentence is about ("A320", "CFM56-7B"); its document title's codes when it names none."""
    own = {t for t in named_tokens(sentence, capitalised=False) if t not in MONTHS}
    return own or {t for t in named_tokens(title, capitalised=False) if t not in MONTHS}


def same_subject(a: set[str], b: set[str], *, loose: bool = False) -> bool:
    """True unless both name codes and neither set contains the other (A320 vs B737: different things).

    ``loose`` (when one side's codes come from its document title): only codes of the same kind
    with none in common make different subjects, as a wheel part number in a sentence says
    nothing against the aircraft type in another document's title.
    """
    if not a or not b:
        return True
    if not loose:
        return a <= b or b <= a
    kinds = {code_kind(x) for x in a} & {code_kind(y) for y in b}
    return all(not {x for x in a if code_kind(x) == k}.isdisjoint({y for y in b if code_kind(y) == k}) for k in kinds)


def _named(text: str) -> set[str]:
    return {t for t in named_tokens(text, capitalised=False) if t not in MONTHS}


def states(chunk: Chunk, figure: Figure) -> bool:
    """True when a unit of ``chunk`` gives ``figure`` as its only value in that unit (not in a list or history)."""
    for text in chunk.sentences:
        same = {f.value for f in figures(text) if f.unit == figure.unit}
        if same == {figure.value}:
            return True
    return False


def preferred(index: EvidenceIndex, a: int, b: int) -> bool:
    """True when chunk ``b`` should win over chunk ``a``: newer, or as new and more authoritative."""
    ea, eb = index.chunk(a).evidence.metadata, index.chunk(b).evidence.metadata
    if ea.update_date and eb.update_date and ea.update_date != eb.update_date:
        return eb.update_date > ea.update_date
    if eb.authority != ea.authority:
        return eb.authority > ea.authority
    return index.chunk(b).evidence.credibility > index.chunk(a).evidence.credibility + 1e-9


def find_conflict(index: EvidenceIndex, figure: Figure, number: int, sentence_vector: np.ndarray,
                  statement: str = "") -> Conflict | None:
    """A preferred chunk that states ``figure``'s quantity (same unit, similar sentence) with another value.

    Only clear single-value statements count: a sentence giving several values in the unit (a
    table, a revision history) is not a contradiction, nor is a chunk that also states ``figure``.
    A chunk that only lists ``figure`` among other values ("changed from 300 N.m to 325 N.m") but
    states another value plainly contradicts it too, whether it is preferred or the chunk itself.
    ``statement`` (the answer's sentence) narrows the subject when it names fewer things than the line it quotes.
    """
    if not figure.unit:
        return None
    own = index.chunk(number)
    holders = [s for s in own.sentences if figure.value in numbers(s)] or list(own.sentences)
    mine = subjects(" ".join(holders), own.evidence.metadata.title)
    mine_titled = not _named(" ".join(holders))
    said = _named(statement)
    if said and len(said) < len(mine):  # "... of the A320 is 2,050" quoting a line about A320 and B737: the A320
        mine, mine_titled = said, False
    best: Conflict | None = None
    best_key: tuple = ()
    for other in index.chunks:
        if states(other, figure) or (other.number != number and not preferred(index, number, other.number)):
            continue
        sims = other.vectors @ sentence_vector
        for position, text in enumerate(other.sentences):
            if float(sims[position]) < CONFLICT_SIMILARITY or planted(text):  # a request or a note is no source
                continue
            theirs, titled = _named(text), False
            if not theirs:
                theirs, titled = subjects(text, other.evidence.metadata.title), True
            if not same_subject(mine, theirs, loose=mine_titled != titled):
                continue  # about different things (A320 vs B737): not a contradiction
            same_unit = [f for f in figures(text) if f.unit == figure.unit]
            for candidate in same_unit if len({f.value for f in same_unit}) == 1 else []:
                if candidate.value != figure.value and not _labelled_otherwise(text, candidate, statement):
                    key = (_preference(index, other.number), float(sims[position]))
                    if best is None or key > best_key:
                        best = Conflict(figure, number, candidate, other.number, text)
                        best_key = key
    return best


LABEL_WORDS = 3
"""Words read before a figure as its label ("Threshold 24,000 FC", "final torque 325 N.m")."""


def _labelled_otherwise(text: str, candidate: Figure, statement: str) -> bool:
    """True when the words labelling ``candidate`` in ``text`` name nothing the statement speaks of.

    "Threshold 24,000 FC" does not contradict "the repeat inspection interval is 4,500 FC": a value
    of another quantity of the same unit. Without a statement or a label, nothing is ruled out.
    """
    if not statement:
        return False
    for at, figure in located_figures(text):
        if figure.text == candidate.text:
            label = set(content_words(" ".join(words(text[:at])[-LABEL_WORDS:])))
            label = {w for w in label if not any(ch.isdigit() for ch in w)}
            return bool(label) and not (label & set(content_words(statement)))
    return False


def newer_revision(index: EvidenceIndex, number: int) -> int | None:
    """The newest chunk of the same document series as ``number`` when it is a later revision."""
    meta = index.chunk(number).evidence.metadata
    if not meta.series or not meta.update_date:
        return None
    later = [c for c in index.chunks
             if c.evidence.metadata.series == meta.series and c.evidence.metadata.update_date
             and c.evidence.metadata.update_date > meta.update_date]
    if not later:
        return None
    return max(later, key=lambda c: (c.evidence.metadata.update_date, c.evidence.metadata.authority)).number
