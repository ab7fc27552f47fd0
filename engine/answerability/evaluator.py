"""The retrieval evaluator: does the retrieved evidence answer the question? (answerable / ambiguous / unanswerable)

In the spirit of CRAG's retrieval evaluator and Self-RAG's relevance judgement, decided before
anything is drafted, from signals that are each shown to the user:

- ``subject_coverage``: share of the question's named subjects (entities, codes, quoted titles,
  capitalised names) that some evidence mentions, in its text or title; typos tolerated;
- ``attribute_coverage``: share of the asked attribute's words ("final torque", "takeoff weight")
  found in the evidence;
- ``best_sentence``: the evidence sentence that best fits the question (embedding similarity,
  attribute words, subject named in it or its document's title);
- ``typed_answer``: whether that sentence (or one close to it) holds a value of the expected
  type that the question does not already contain (a number with a unit for "how much", a date
  for "when", a person for "who", ...).

A named subject that no evidence mentions, or an attribute the evidence never speaks of, means
the documents do not answer the question: the pipeline refuses and shows the closest documents.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from engine.answerability.question import VERSION, QuestionFocus, analyse, identifies, outside_subjects
from engine.answerability.relations import cued, said, tag_ahead
from engine.answerability.sides import nearest_value, sides
from engine.periods import about, asked_period
from engine.answerability.spans import prime, typed_values
from engine.reflection.focus import asks_for, codes_in, names
from engine.reflection.signals import years_in_window
from engine.reflection.support import VectorCache
from engine.reflection.text import names_model, normalise_phrase, stem, words
from engine.reflection.units import QUOTABLE, evidence_units, is_read
from engine.store.titles import TITLE_QUALIFIER
from engine.results import AnswerFocus, Answerability, AnswerSpan, Evidence, Intent

ATTRIBUTE_MIN = 0.5
"""Below this share of the attribute's words in the evidence, the evidence is about something else."""
ATTRIBUTE_CLEAR = 0.75
"""At or above this share the attribute is clearly covered (with every subject found: answerable)."""
SENTENCE_MIN = 0.35
"""A best-sentence fit below this means no sentence speaks to the question (fit = 0.5 sim + 0.35 attr + 0.15 subj)."""
SENTENCE_CLEAR = 0.45
"""A best-sentence fit at or above this, with a typed value, makes the evidence answer the question."""
SIMILARITY_MIN = 0.25
"""Cosine similarity (all-MiniLM-L6-v2) below which a sentence is unrelated to the question."""
FIT_WEIGHTS = (0.45, 0.3, 0.1, 0.15)
"""How a sentence's fit is blended: similarity to the question, attribute words it holds, subject named,
and its evidence's fused retrieval score (relevance with credibility as tie-break)."""
STRONG_SIMILARITY = 0.55
"""A sentence this similar to the question, with every subject found, speaks to it even if the question's
wording differs ("Summarise the changes introduced by Rev 12" against "Rev 12 changes: ...")."""
CONTEXT_UNITS = 2
"""Units before a sentence in its chunk that introduce it (a list item's lead-in, a table's caption)."""
CONTEXT_CREDIT = 0.8
"""Attribute words found only in that lead-in count this much."""
BRIDGE_CREDIT = 0.8
"""Subject credit of a sentence in a bridge chunk (one hop from the subject; see ``_bridges``)."""
BRIDGE_MIN_CHARS = 4
"""Shorter titles are too generic to link two documents."""
PHRASE_FUZZ_MIN = 90
"""rapidfuzz partial_ratio (0-100) at which a subject phrase counts as written in a chunk despite a typo or two;
the words must stand together ("Cry Wolf" does not name "Never Cry Wolf")."""
PHRASE_FUZZ_MIN_CHARS = 8
"""Shorter subjects must be written exactly: one wrong letter in a short name is another name."""
CLOSEST = 3
"""Documents listed with a refusal."""
RELATION_TYPES = ("date", "number")
"""Answer types whose value must be said with the word the question asks through: a sentence holds many dates and
figures, each said of something else ("a man born in what year": a year said with "born", not "released in 1994")."""
NAME_TYPES = ("person", "place", "organisation", "work")
"""Answer types whose value may be said with the relation word or with the asking phrase's head noun: "Barrier
Device starred which actress" is answered by the actress's own page, which says "actress", not "starred"."""


def _fuzzy_limit(word: str) -> int:
    """Edit distance tolerated for a typo: none under 5 letters or with digits, 1 up to 8 letters, 2 beyond."""
    if len(word) < 5 or any(ch.isdigit() for ch in word):
        return 0
    return 1 if len(word) <= 8 else 2


def fuzzy_in(word: str, vocabulary: Sequence[str] | set[str]) -> bool:
    """True when ``word`` or a spelling within its typo limit is in ``vocabulary``."""
    if word in vocabulary:
        return True
    limit = _fuzzy_limit(word)
    if not limit or not vocabulary:
        return False
    return process.extractOne(word, vocabulary, scorer=Levenshtein.distance, score_cutoff=limit) is not None


@dataclass(frozen=True)
class _Chunk:
    number: int
    evidence: Evidence
    body: str  # normalised title + text
    raw: frozenset[str]  # lower-case words
    stems: frozenset[str]
    sentences: tuple[str, ...]
    headings: tuple[str, ...] = ()  # per sentence: the heading of its section ("" when none)
    quotable: frozenset[str] = frozenset()  # the sentences that read as statements (not headings or tables)
    versions: tuple[str, ...] = ()  # per sentence: the nearest heading above it that holds a version ("## [0.10.4]")




@dataclass(frozen=True)
class _Fit:
    chunk: int
    sentence: str
    score: float
    similarity: float
    attribute: float
    subject: float
    values: tuple[str, ...]
    quotable: bool = True
    bridged: bool = False  # in a document one hop from the subject (see ``_bridges``)


_MEMO: OrderedDict[tuple, Answerability] = OrderedDict()
_MEMO_LOCK = threading.Lock()
_MEMO_SIZE = 64
"""Recent verdicts kept: enough for the questions in flight, each drafted and revised a few times."""


class AnswerabilityEvaluator:
    """Decides per question whether the evidence answers it; see the module docstring for the signals."""

    def __init__(self, cache: VectorCache | None = None, *, model_name: str | None = None) -> None:
        self.cache = cache or VectorCache.shared(model_name=model_name)
        self.name = "offline-answerability"

    def prepare(self, question: str) -> None:
        """Start reading ``question``'s parts of speech in the background: the pipeline calls this before
        retrieval, which mostly waits on the store, and :meth:`run` then finds the question tagged."""
        tag_ahead(question)

    def run(self, question: str, intent: Intent, evidence: Sequence[Evidence],
            known_vectors: Mapping[str, np.ndarray] | None = None) -> Answerability:
        """The verdict for ``question`` over ``evidence`` (numbered [1]..[n] in this order).

        The pipeline judges the evidence and the offline generator then leads with the same span:
        one question's verdict is computed once and remembered (a few recent ones are kept).
        ``known_vectors``: sentence vectors the store kept for the evidence, used instead of embedding them.
        """
        if known_vectors:
            self.cache.remember(known_vectors)
        key = (id(self.cache), question, intent.model_dump_json(),
               tuple((e.chunk_id, e.text, e.score) for e in evidence))
        with _MEMO_LOCK:
            found = _MEMO.get(key)
        if found is None:
            found = self._judge(question, intent, tuple(evidence))
            with _MEMO_LOCK:
                _MEMO[key] = found
                while len(_MEMO) > _MEMO_SIZE:
                    _MEMO.popitem(last=False)
        return found

    def _judge(self, question: str, intent: Intent, evidence: tuple[Evidence, ...]) -> Answerability:
        focus = analyse(question, intent)
        shown = AnswerFocus(answer_type=focus.answer_type, subjects=focus.subjects, attribute=focus.attribute_words)
        evidence = tuple(evidence)
        if not evidence:
            return Answerability(verdict="unanswerable", focus=shown, signals={"evidence": 0.0},
                                 reason="No evidence was retrieved for this question.")
        chunks = [_chunk(n, e) for n, e in enumerate(evidence, start=1)]
        closest = tuple(dict.fromkeys(c.evidence.metadata.title for c in chunks))[:CLOSEST]

        found, missing_subjects = self._subjects(focus, chunks)
        subject_cov = found / len(focus.subjects) if focus.subjects else 1.0
        attr_hits = [a for a in focus.attribute if any(fuzzy_in(a, c.stems) for c in chunks)]
        attr_cov = len(attr_hits) / len(focus.attribute) if focus.attribute else 1.0
        missing_attr = [w for a, w in zip(focus.attribute, focus.attribute_words) if a not in attr_hits]
        fits = self._fits(question, focus, chunks, intent)
        best = fits[0] if fits else None
        # The value must be said of the subject: in a sentence or document that names it (or one hop from it).
        typed = _said_of_subject(fits, focus) if focus.specific else best
        signals = {
            "subject_coverage": round(subject_cov, 3), "attribute_coverage": round(attr_cov, 3),
            "best_sentence": round(best.score, 3) if best else 0.0,
            "similarity": round(best.similarity, 3) if best else 0.0,
            "typed_answer": 1.0 if typed is not None and typed.values else 0.0,
            "typed_sentence": round(typed.score, 3) if typed is not None else 0.0,
        }
        span = None
        if typed is not None and typed.values:
            span = AnswerSpan(value=typed.values[0], sentence=typed.sentence, evidence=typed.chunk,
                              chunk_id=evidence[typed.chunk - 1].chunk_id, quotable=typed.quotable)
        elif not focus.specific:  # no value to pick out: the best statement is the answer
            quotable = [f for f in fits if f.quotable and (focus.answer_type != "other" or cued(f.sentence, focus))
                        and (not focus.bridge or _of_bridge(f, focus))]
            most = max((f.subject for f in quotable), default=0.0)  # about the asked code, not its neighbour row
            lead = next((f for f in quotable if f.subject == most), None)
            if lead is not None:
                span = AnswerSpan(value="", sentence=lead.sentence, evidence=lead.chunk,
                                  chunk_id=evidence[lead.chunk - 1].chunk_id)
        base = dict(focus=shown, signals=signals, closest=closest, span=span,
                    sides=_side_spans(question, focus, fits, evidence, intent),
                    best_evidence=tuple(evidence[f.chunk - 1].chunk_id for f in fits[:3]))
        asked = focus.describe()

        if missing_subjects:
            names_ = ", ".join(repr(s) for s in missing_subjects)
            return Answerability(verdict="unanswerable", missing=tuple(missing_subjects), **base,
                                 reason=f"No retrieved document mentions {names_}, which the question is about.")
        strong = (best is not None and best.similarity >= STRONG_SIMILARITY and bool(focus.subjects)
                  and (attr_cov > 0 or not focus.attribute))  # "population of Texas" is not a row about Texas
        if attr_cov < ATTRIBUTE_MIN and not strong:
            what = " ".join(missing_attr)
            about = f" about {', '.join(repr(s) for s in focus.subjects)}" if focus.subjects else ""
            return Answerability(verdict="unanswerable", missing=tuple(missing_attr), **base,
                                 reason=f"The retrieved documents{about} say nothing about '{what}'.")
        if best is None or best.score < SENTENCE_MIN or best.similarity < SIMILARITY_MIN:
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"No sentence in the retrieved documents speaks to {asked}.")
        if focus.specific and missing_attr and not strong:
            what = " ".join(missing_attr)
            return Answerability(verdict="unanswerable", missing=tuple(missing_attr), **base,
                                 reason=f"The documents give figures nearby, but none for '{what}', which the "
                                        f"question asks about; a value for something else would be a wrong answer.")
        if focus.bridge and span is None:
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"The question asks about a {focus.bridge} it does not name; no retrieved "
                                        f"document linked to {', '.join(repr(s) for s in focus.subjects) or 'it'} "
                                        f"states {asked}.")
        if focus.specific and (typed is None or typed.score < SENTENCE_MIN):
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"The documents speak of the topic, but none states {asked}.")
        if focus.answer_type == "other" and focus.head and span is None:
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"The documents speak of the topic, but no sentence names the "
                                        f"{focus.head} the question asks for.")
        chosen = typed or best
        if attr_cov >= ATTRIBUTE_CLEAR and chosen.score >= SENTENCE_CLEAR:
            return Answerability(verdict="answerable", **base,
                                 reason=f"Evidence [{chosen.chunk}] states {asked}.")
        weak = list(missing_attr)
        detail = f"; '{' '.join(weak)}' is not found" if weak else ""
        return Answerability(verdict="ambiguous", missing=tuple(weak), **base,
                             reason=f"The evidence only partly matches the question (best fit {chosen.score:.2f}"
                                    f"{detail}).")

    # -- signals --------------------------------------------------------------
    @staticmethod
    def _subjects(focus: QuestionFocus, chunks: list[_Chunk]) -> tuple[int, list[str]]:
        found, missing = 0, []
        for subject in focus.subjects:
            if any(_mentions(c, subject) for c in chunks):
                found += 1
            else:
                missing.append(subject)
        return found, missing

    def _fits(self, question: str, focus: QuestionFocus, chunks: list[_Chunk], intent: Intent) -> list[_Fit]:
        """Sentences ranked by fit; those of a superseded revision only when the question asks for it."""
        current = [c for c in chunks if not _superseded(c, chunks, question, intent)]
        rows = [(c, s) for c in current for s in c.sentences]
        version_of = {(c.number, s): c.versions[i] for c in current for i, s in enumerate(c.sentences)
                      if i < len(c.versions)}
        before = {(c.number, s): " ".join([c.headings[i] if i < len(c.headings) else ""]
                                          + list(c.sentences[max(i - CONTEXT_UNITS, 0): i]))
                  for c in current for i, s in enumerate(c.sentences)}
        if not rows:
            return []
        vectors = self.cache.encode([question] + [s for _, s in rows])
        sims = vectors[1:] @ vectors[0]
        wanted = set(focus.attribute)
        bridged = _bridges(current, focus)
        fits: list[_Fit] = []
        for (chunk, sentence), sim in zip(rows, sims):
            # what the sentence says about the subjects, not their names ("Natural Born Killers ... in 1994"
            # does not speak of "born")
            own = {stem(w) for w in words(outside_subjects(sentence, focus.subjects))}
            attr = len([a for a in wanted if a in own or fuzzy_in(a, own)]) / len(wanted) if wanted else 0.0
            lead_in = {stem(w) for w in words(outside_subjects(before[(chunk.number, sentence)], focus.subjects))} | own
            if wanted and lead_in != own:  # "... each tyre is checked: 2. at intervals not exceeding 48 hours"
                attr = max(attr, CONTEXT_CREDIT * len([a for a in wanted if fuzzy_in(a, lead_in)]) / len(wanted))
            title = chunk.evidence.metadata.title
            section = version_of.get((chunk.number, sentence), "")  # "## [0.11.0]" over a changelog entry
            subj = (sum(1 for s in focus.subjects if _names_in(sentence, s) or _names_in(title, s)
                        or (VERSION.fullmatch(s) and _names_in(section, s))) / len(focus.subjects)) \
                if focus.subjects else 0.0  # an entry under "## [0.11.0]" is said of 0.11.0, not of a code in a heading
            if chunk.number in bridged:
                subj = max(subj, BRIDGE_CREDIT)
            score = (FIT_WEIGHTS[0] * float(sim) + FIT_WEIGHTS[1] * attr + FIT_WEIGHTS[2] * subj
                     + FIT_WEIGHTS[3] * min(max(chunk.evidence.score, 0.0), 1.0)
                     + years_in_window(sentence, intent))  # the 2024 row for "in 2024", not the 2022 one
            fits.append(_Fit(chunk.number, sentence, round(score, 4), float(sim), attr, subj, (),
                             sentence in chunk.quotable, chunk.number in bridged))
        if focus.specific:
            # values are read only where a sentence fits well enough to give one (every use of a fit's values asks
            # for a fit of SENTENCE_MIN or more); reading them is most of this method's work
            valued = [i for i, fit in enumerate(fits) if fit.score >= SENTENCE_MIN]
            if focus.answer_type in ("person", "place", "organisation", "work", "date"):
                prime([fits[i].sentence for i in valued])
            for i in valued:
                fit = fits[i]
                values = tuple(typed_values(fit.sentence, focus.answer_type, question, focus.attribute))
                section = version_of.get((fit.chunk, fit.sentence), "")
                if not values and focus.answer_type == "code" and section and fit.attribute > 0:
                    # "which release added X?": a changelog entry's version is the heading of its section
                    values = tuple(typed_values(section, "code", question, focus.attribute))
                fits[i] = replace(fit, values=values)
        fits.sort(key=lambda f: (-f.score, f.chunk))
        return fits


def _said_of_subject(fits: list[_Fit], focus: QuestionFocus) -> _Fit | None:
    """The best-fitting sentence with a value, among those naming the most of the question's subjects."""
    valued = [f for f in fits if f.values and f.score >= SENTENCE_MIN]
    codes = [s for s in focus.subjects if identifies(s)]
    if focus.attribute:  # said with what is asked ("pregnant with"), not any name near the subject; a sentence
        # naming the subject is similar to the question whatever it says, so similarity does not stand in. A code
        # or version named in the sentence does ("## [0.11.0] - 2024-03-07" answers when 0.11.0 was released).
        valued = [f for f in valued if f.attribute > 0 or any(_names_in(f.sentence, c) for c in codes)]
    if focus.relation and focus.answer_type in RELATION_TYPES:
        # "a man born in what year": the year must be said with "born", not "released in 1994"
        valued = [f for f in valued if fuzzy_in(focus.relation, said(f.sentence, focus, verbs=True))
                  or any(_names_in(f.sentence, c) for c in codes)]  # "## [0.11.0] - 2024-03-07": released
    elif focus.answer_type in NAME_TYPES:
        valued = [f for f in valued if cued(f.sentence, focus)]
    if focus.bridge:
        valued = [f for f in valued if _of_bridge(f, focus)]
    if focus.subjects:
        valued = [f for f in valued if f.subject > 0]
    if not valued:
        return None
    most = max(f.subject for f in valued)
    return next(f for f in valued if f.subject == most)


def _of_bridge(fit: _Fit, focus: QuestionFocus) -> bool:
    """The sentence speaks of the thing the question describes without naming it ("a man born in what year"):
    it stands in a document one hop from the subject (the producer's own page, named on the soundtrack's), or it
    names that thing's noun itself ("Anne Marcel, the composer of the film, was born in 1968")."""
    return fit.bridged or fuzzy_in(stem(focus.bridge), said(fit.sentence, focus))


def _side_spans(question: str, focus: QuestionFocus, fits: list[_Fit], evidence: tuple[Evidence, ...],
                intent: Intent) -> tuple[AnswerSpan, ...]:
    """One value per side of "... of the A320 and the B737", each from a sentence naming that side; all or none.

    With a time window ("in 2023"), a document of that period (by its title or date) is preferred
    to one that only quotes it: the timeliness check asks the same of the citation.
    """
    joined, _ = sides(question, focus.subjects)
    if not focus.specific or not joined:
        return ()
    period = asked_period(intent)
    out: list[AnswerSpan] = []
    for side in joined:
        named = [f for f in fits if f.values and f.score >= SENTENCE_MIN and _names_in(f.sentence, side)]
        if period is not None:
            named.sort(key=lambda f: about(evidence[f.chunk - 1], period) is not True)  # stable: score order kept
        fit = named[0] if named else None
        if fit is None:
            return ()
        out.append(AnswerSpan(value=nearest_value(fit.sentence, fit.values, side), sentence=fit.sentence,
                              evidence=fit.chunk, chunk_id=evidence[fit.chunk - 1].chunk_id,
                              quotable=fit.quotable, subject=side))
    return tuple(out)


def _bridges(chunks: list[_Chunk], focus: QuestionFocus) -> set[int]:
    """Chunks one hop from the question: their document's title is named in a chunk that names a subject.

    "In Love and War ... is based on the true story of James Stockdale" makes the chunk titled
    "James Stockdale" a bridge; its sentences then count as about the question's subject.
    """
    if not focus.subjects:
        return set()
    first = [c for c in chunks if any(_mentions(c, s) for s in focus.subjects)]
    out: set[int] = set()
    for chunk in chunks:
        if chunk in first:
            continue
        name = normalise_phrase(TITLE_QUALIFIER.sub("", chunk.evidence.metadata.title))
        # named in another document's text: a chunk's own title, or another part of the same document, is no link
        if len(name) >= BRIDGE_MIN_CHARS and any(f" {name} " in f" {normalise_phrase(c.evidence.text)} "
                                                 for c in first if c.evidence.doc_id != chunk.evidence.doc_id):
            out.add(chunk.number)
    return out


def _superseded(chunk: _Chunk, chunks: list[_Chunk], question: str, intent: Intent) -> bool:
    """Out of scope by revision: a newer one of its series was retrieved and the question does not ask for this
    one, or the question asks for another (older) revision of the series."""
    meta = chunk.evidence.metadata
    if not meta.series or not meta.update_date:
        return False
    series = [c.evidence.metadata for c in chunks if c.evidence.metadata.series == meta.series
              and c.evidence.metadata.update_date]
    newest = max(m.update_date for m in series)
    asked = [m for m in series if m.update_date < newest and asks_for(question, m, intent, newest)]
    if asked:
        return all(m.update_date != meta.update_date for m in asked)
    return meta.update_date < newest


def _chunk(number: int, item: Evidence) -> _Chunk:
    return _Chunk(number, item, *_read(item.metadata.title, item.text))


@lru_cache(maxsize=512)
def _read(title: str, body: str) -> tuple:
    """What a chunk's title and text say, as ``_Chunk`` keeps it (from ``body`` on): read once per text, as the same
    chunks come back in an ask's widened search and in later asks."""
    text = f"{title}\n{body}"
    raw = frozenset(words(text))
    units = evidence_units(body)
    sentences = tuple(u.text for u in units if is_read(u))  # as read_sentences reads them (the store embeds these)
    quotable = frozenset(u.text for u in units if u.kind in QUOTABLE or u.kind == "long")
    lead_ins: list[str] = []
    versioned: list[str] = []
    heading = version_heading = ""
    for unit in units:  # each sentence's lead-in: the units just before it, and the heading of its section
        if unit.kind == "heading":
            heading = unit.text
            if VERSION.search(unit.text):
                version_heading = unit.text
        if is_read(unit):
            lead_ins.append(" ".join(([heading] if heading and heading != unit.text else [])))
            versioned.append(version_heading if version_heading != unit.text else "")
    return (f" {normalise_phrase(text)} ", raw, frozenset(stem(w) for w in raw), sentences or (body.strip(),),
            tuple(lead_ins) or ("",), quotable, tuple(versioned) or ("",))


def _mentions(chunk: _Chunk, subject: str) -> bool:
    """``subject`` is named in the chunk's text or title: as a phrase, as a code variant, or word by word with typos."""
    key = normalise_phrase(subject)
    if not key:
        return True
    if f" {key} " in chunk.body:
        return True
    if codes_in(subject):
        return all(names(chunk.body, code) for code in codes_in(subject))
    if names_model(chunk.body, subject):  # "Boeing 737 MAX" in "The Boeing Company ... (737 MAX) airplanes"
        return True
    if " " not in key:
        return fuzzy_in(key, chunk.raw)  # one word: the same typo tolerance as any other word
    if len(key) < PHRASE_FUZZ_MIN_CHARS:
        return False
    if any(w not in chunk.raw for w in key.split() if any(ch.isdigit() for ch in w)):
        return False  # "Heinkel HD 23" is not the "Heinkel HD 26": a number in a name is written exactly
    return fuzz.partial_ratio(key, chunk.body, score_cutoff=PHRASE_FUZZ_MIN) > 0


def _names_in(text: str, subject: str) -> bool:
    key = normalise_phrase(subject)
    return bool(key) and f" {key} " in f" {normalise_phrase(text)} "


def refusal_text(result: Answerability, searched: Sequence[str], dated: tuple | None = None) -> str:
    """The message shown instead of an answer: why, what was searched, and the closest documents.

    ``dated`` (start, end) is the date filter the searches ran with, when nothing came back through it.
    """
    where = ", ".join(dict.fromkeys(searched)) or "the knowledge bases"
    if dated is not None and not result.closest:
        start, end = dated
        return (f"I can't answer this from the documents: no document in {where} is dated between "
                f"{start or 'the beginning'} and {end or 'today'}, the period the question asks about.")
    closest = "; ".join(f"'{t}'" for t in result.closest) or "none"
    lead = "I can't answer this from the documents" if result.verdict == "unanswerable" else \
        "I can't answer this reliably from the documents"
    return (f"{lead}: {result.reason} Searched: {where}. "
            f"Closest documents: {closest}.")


__all__ = ["AnswerabilityEvaluator", "fuzzy_in", "refusal_text"]
