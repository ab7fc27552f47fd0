"""The offline generator: an extractive, cited answer that states the asked value first.

The answerability verdict comes in as an argument (the pipeline decided it before drafting). Its span gives the
lead: for a question that asks for a value, a sentence stating the value with its citation ("The final torque of
the axle nut is 325 N.m [2]."), then the evidence sentence it stands in; for any other question, that sentence
itself. A comparison gets one sentence for each compared thing. Nothing else is added: every sentence of the answer
answers the question.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.language.citations import strip_citations, with_citation
from engine.language.layout import readable_record, record_excerpt
from engine.language.question import read_question
from engine.language.sentences import split_sentences
from engine.language.tokens import mentions
from engine.offline.lead import lead_sentence
from engine.offline.sentences import rank_sentences
from engine.periods import about, asked_period, in_force
from engine.results import Answerability, Evidence, Intent, Review

NO_ANSWER = "The documents do not answer this question."


class OfflineGenerator:
    """Composes and revises extractive answers with [n] citations, without a model call."""

    uses_answerability = True
    """The review loop passes the pipeline's answerability verdict to ``draft``."""

    def __init__(self, embedder=None, *, cache=None, model_name: str | None = None, reader=None) -> None:
        if embedder is not None and not callable(getattr(embedder, "encode", None)):
            raise TypeError("embedder must have an encode(texts) method returning normalised vectors")
        if cache is None:
            from engine.embeddings import VectorCache

            cache = VectorCache.shared(embedder, model_name=model_name)
        self.cache = cache
        self._reader = reader
        self._verdicts: dict[str, Answerability] = {}  # the pipeline's verdict per question, for a fresh redraft
        self.name = "offline-generator"

    @property
    def reader(self):
        """The answerability stage used when ``draft`` is called without a verdict (tests, the CLI's draft-only)."""
        if self._reader is None:
            from engine.offline.answerability import ReaderAnswerability

            self._reader = ReaderAnswerability(self.cache)
        return self._reader

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent,
              answerability: Answerability | None = None) -> str:
        """The answer: the lead (the asked value with its citation), its source sentence, one per compared thing."""
        if not evidence:
            return NO_ANSWER
        if answerability is not None:
            self._verdicts.pop(question, None)
            self._verdicts[question] = answerability
            while len(self._verdicts) > 64:
                self._verdicts.pop(next(iter(self._verdicts)))
        judged = answerability if answerability is not None else self.reader.run(question, intent, evidence)
        if judged.verdict == "unanswerable":
            return NO_ANSWER
        out: list[str] = []
        span = judged.span
        period = asked_period(intent) if not in_force(intent.constraints.time) else None
        if judged.sides:  # a comparison: each side's value, said of that side, with its sentence
            for side in judged.sides:
                if side.value:
                    out.append(f"{side.subject}: {side.value.rstrip('.')} [{side.evidence}].")
                out.append(with_citation(_quoted(side.sentence, side.value, question, period), [side.evidence]))
        even = [c for c in judged.conflicts if not c.note] if judged.verdict == "ambiguous" else []
        if even and span is not None and span.value:
            # sources of equal standing disagree: say so and name every value with its source, choosing none. The
            # sentences are not quoted: one of them may be planted text addressed to whoever answers, and quoting
            # it would pass its words on; the evidence panel shows both sentences.
            given = [f"[{span.evidence}] gives {_value(span.value)}"] + [f"[{c.evidence}] gives {_value(c.value)}"
                                                                       for c in even]
            out.append(f"The sources disagree: {', '.join(given[:-1])} and {given[-1]}"
                       f" [{', '.join(str(n) for n in dict.fromkeys([span.evidence, *(c.evidence for c in even)]))}].")
        elif span is not None:
            if span.value:
                out.append(lead_sentence(question, span.value, span.evidence, span.sentence))
            if span.quotable or not span.value or _is_record(span.sentence):  # a flattened table is not quoted
                out.append(with_citation(_quoted(span.sentence, span.value, question, period), [span.evidence]))
        for other in judged.conflicts:
            if other not in even:
                out.append(_conflict_sentence(other))
        if not judged.sides:
            out.extend(self._compared(question, evidence, intent, out))
        if not out:
            return NO_ANSWER
        return " ".join(dict.fromkeys(out))

    def _disputed(self, question: str, lead: str, review: Review) -> bool:
        """Whether the review disputes the asked value itself in ``lead``, the answer's first sentence, which states it
        ("the evidence gives 340 for Northfield, not for Eastvale"), rather than other words of that sentence. What
        is left without it, the evidence it stood in, may be true of something else (another region's row), so it
        no longer answers the question however well it is supported."""
        verdict = self._verdicts.get(question)
        value = verdict.span.value.strip() if verdict is not None and verdict.span is not None else ""
        return bool(value) and any(i.type == "fact" and _about(i.location, lead) and value in i.description
                                   for i in review.issues)

    def _compared(self, question: str, evidence: Sequence[Evidence], intent: Intent, chosen: list[str]) -> list[str]:
        """For "compare A and B": the best sentence naming each of them, in the question's period when it has one."""
        from engine.validation.comparison import compared_entities

        entities = compared_entities(intent)
        if len(entities) < 2:
            return []
        reading = read_question(" ".join(question.split()), tuple(e.text for e in intent.entities))
        ranked = rank_sentences(reading, evidence, self.cache.encode, intent)
        period = asked_period(intent)
        if period is not None:  # a sentence of the asked period first, then the rest in rank order
            ranked = sorted(ranked, key=lambda s: about(evidence[s.evidence - 1], period, s.text) is not True)
        out: list[str] = []
        for entity in entities:
            if any(mentions(strip_citations(c), entity) for c in chosen + out):
                continue
            others = [e for e in entities if e != entity]
            own = [s for s in ranked if s.states and (
                mentions(s.text, entity) or mentions(evidence[s.evidence - 1].metadata.title, entity))]
            alone = next((s for s in own if not any(mentions(s.text, o) for o in others)), None)
            pick = alone or (own[0] if own else None)
            if pick is not None:
                out.append(with_citation(_quoted(pick.text, "", question, None), [pick.evidence]))
        return out

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """Apply ``review``: corrections in place; a sentence cited to the wrong evidence re-cited to the one that
        supports it; sentences flagged as unsupported or off the question dropped. When nothing is left, or the
        review says the answer misses what was asked, or disputes the asked value in the first sentence that states
        it while what is left names nothing the question asks about, the reader's own answer is drafted afresh: the
        same draft again ends the loop in a refusal that gives the review's reason."""
        from engine.offline.support import EvidenceIndex

        index = EvidenceIndex(evidence, self.cache, extra=[question]) if evidence else None
        out: list[str] = []
        sentences = split_sentences(answer)
        lead_dropped = False  # the first sentence, which states the asked value
        for n, sentence in enumerate(sentences):
            fixed = sentence
            for correction in review.corrections:
                if correction.original and correction.original in fixed:
                    fixed = fixed.replace(correction.original, correction.corrected)
            kinds = {i.type for i in review.issues if _about(i.location, sentence)}
            if "citation" in kinds and fixed == sentence and index is not None:
                best = index.best_single(strip_citations(fixed), current_only=True)
                if best.supported and best.chunk is not None:
                    fixed = with_citation(fixed, [best.chunk])
            if kinds & {"fact", "logic", "citation", "injection"} and fixed == sentence:
                lead_dropped = lead_dropped or n == 0
                continue  # unsupported and not corrected: drop it
            out.append(fixed)
        missed = any(i.type == "logic" and not i.location for i in review.issues)
        if evidence and (not out or missed or (lead_dropped and self._disputed(question, sentences[0], review)
                                               and not _names_asked(question, " ".join(out)))):
            # drafted afresh as the pipeline judged this question (its target accuracy), else by the own reader
            fresh = self.draft(question, evidence, Intent(action="unknown", raw_query=question),
                               self._verdicts.get(question))
            if fresh != NO_ANSWER:
                out = split_sentences(fresh)  # the answer missed the question: the reader's answer replaces it
        return " ".join(dict.fromkeys(out)) or NO_ANSWER


def _quoted(sentence: str, value: str, question: str, period) -> str:
    """An evidence sentence as the answer quotes it: a record row cut to its name and the fields that answer (not
    every column), any other sentence made readable and cut to the asked period."""
    return record_excerpt(within(sentence, period), value, question)  # any other text comes back as it is


def _is_record(sentence: str) -> bool:
    return readable_record(sentence) != sentence


def _value(text: str) -> str:
    """A value as said in a sentence: the figure of a "key: figure; ..." record value, else the text."""
    from engine.language.quantities import figures

    found = figures(text)
    return found[0].text if found and (";" in text or ":" in text) else text.rstrip(".")


def within(record: str, period) -> str:
    """A "label - key: value; key: value" record with the fields about years outside ``period`` left out (the row of
    a table that gives 2022 and 2023 side by side, quoted for a question about 2023); any other text unchanged."""
    if period is None or ";" not in record:
        return record
    from engine.language.quantities import years

    parts = record.rstrip(".").split(";")
    label, _, first = parts[0].rpartition(" - ") if " - " in parts[0] else ("", "", parts[0])
    fields = [first, *parts[1:]]
    kept = [f for f in fields if not years(f) or any(period.overlaps_year(y) for y in years(f))]
    if len(kept) == len(fields) or not kept:
        return record
    text = ";".join(kept).strip()
    return f"{label} - {text}." if label else f"{text}."


def _conflict_sentence(other) -> str:
    """Another value the evidence gives: marked superseded when the answer's source stands above it."""
    if other.note:
        return f"The value {other.value} in [{other.evidence}] is superseded: the answer's source is {other.note}."
    return f"[{other.evidence}] gives a different value: {other.value} [{other.evidence}]."


def _names_asked(question: str, text: str) -> bool:
    """Whether ``text`` names any subject the question asks about (or the question names none)."""
    from engine.offline.signals import names_subject

    subjects = read_question(" ".join(question.split())).subjects
    body = strip_citations(text)
    return not subjects or any(names_subject(body, subject) for subject in subjects)


def _about(location: str, sentence: str) -> bool:
    """True when an issue's location points at ``sentence``."""
    if not location:
        return False
    a, b = strip_citations(location).strip().lower(), strip_citations(sentence).strip().lower()
    return bool(a) and (a == b or a in b or (len(a) > 20 and b in a))

