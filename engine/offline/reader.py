"""The answer reader: every span of the evidence that could answer a question, with the features a learned ranker
scores it by.

The evidence sentences come ranked from ``engine.offline.sentences`` (the packaged sentence model over their fit to
the question); the best of them are parsed with spaCy, and each gives candidates: its named entities,
noun phrases (with and without their modifiers), numbers with units, dates, codes, and the sides of an "A or B"
question. Each candidate is described by features of the candidate in its sentence (its kind against the
expected answer type, the question words near it and its place in the parse) and of the sentence and its
evidence (similarity, rank, subjects named, retrieval score, credibility, date), in the spirit of the
feature-based reader of the SQuAD paper (Rajpurkar et al. 2016): among them the dependency paths from the
question's words to the candidate, against those from the same words to the wh-phrase in the question, and the
span model's start and end scores (``engine.offline.span_model``: the bundled MiniLM fine-tuned as a reader,
which also adds each best sentence's best span as a candidate). The packaged ranker (models/ranker.json, fitted by
tools/train_reader.py) scores them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from engine.fork_safe import ForkSafePool
from engine.language import nlp
from engine.language.codes import CODE, VERSION
from engine.language.question import QuestionReading
from engine.language.quantities import located_figures
from engine.language.status import asks_former, retired_tokens
from engine.language.tokens import STOP_WORDS, normalise_phrase, stem, words
from engine.offline import span_model
from engine.offline.shapes import shape_features
from engine.offline.sentences import Sentence, question_stems
from engine.results import Evidence

SENTENCES = 16
"""Sentences parsed for candidates per question (the best by the sentence model; see ``rank_sentences``). On 264
questions about the real documents of real_docs, which no model here was fitted on, the gold answer stands in the
best 8 for 0.63 of the 129 whose evidence holds it and in the best 16 for 0.82 (squad2: 0.96 and 0.99; qa_dev 0.82
and 0.91). Each more sentence adds candidates to tell apart, parse time and span-model time (docs/benchmarks.md)."""
MAX_CANDIDATE_WORDS = 12
"""Longest candidate: an answer is a phrase, not a clause."""
NEAR = 6
"""Tokens either side of a candidate counted as its neighbourhood."""
_LABEL_KIND = {"PERSON": "person", "NORP": "group", "FAC": "place", "ORG": "organisation", "GPE": "place",
               "LOC": "place", "PRODUCT": "work", "EVENT": "event", "WORK_OF_ART": "work", "LAW": "work",
               "LANGUAGE": "group", "DATE": "date", "TIME": "date", "PERCENT": "percent", "MONEY": "money",
               "QUANTITY": "quantity", "ORDINAL": "number", "CARDINAL": "number"}
"""spaCy entity labels as candidate kinds."""


@dataclass(frozen=True)
class Candidate:
    """A span that could answer the question: its text, kind, sentence, and the features the ranker reads."""

    text: str
    kind: str
    sentence: Sentence
    start: int
    end: int
    features: Mapping[str, float] = field(default_factory=dict, repr=False)
    score: float = 0.0

    @property
    def key(self) -> str:
        return normalise_phrase(self.text)


def candidates(reading: QuestionReading, evidence: Sequence[Evidence], sentences: Sequence[Sentence],
               today: date | None = None, limit: int = SENTENCES) -> list[Candidate]:
    """The candidates of the ``limit`` best sentences, each with its features."""
    top = list(sentences[:limit])
    if not top:
        return []
    scorer = span_model.packaged()
    # the span model runs on ONNX Runtime, which lets go of the interpreter, while spaCy parses the same sentences
    texts = [s.text for s in top]
    spans_read = _SPAN_READS.submit(span_model.read, scorer, reading.text, texts) if scorer is not None else None
    docs = nlp.parse(texts)
    asked = question_stems(reading)
    subject_keys = [normalise_phrase(s) for s in reading.subjects]
    context = _EvidenceContext.of(evidence, today)
    keep_retired = asks_former(reading.lemmas)
    read = spans_read.result() if spans_read is not None else [None] * len(top)
    found: list[Candidate] = []
    for rank, (sentence, doc, scores) in enumerate(zip(top, docs, read)):
        best = scores.best() if scores is not None and rank < SPAN_SENTENCES else None
        extra = [best[:2]] if best else []
        spans = _spans(doc, reading, sentence, extra)
        if not keep_retired:
            spans = _current(doc, spans)
        if not spans:
            continue
        tokens = [stem(t.lower_) for t in doc]
        hits = [i for i, s in enumerate(tokens) if s in asked and doc[i].lower_ not in STOP_WORDS]
        body = normalise_phrase(sentence.text)
        title = normalise_phrase(evidence[sentence.evidence - 1].metadata.title)
        named, titled = _share_named(subject_keys, body), _share_named(subject_keys, title)
        for start, end, kind, text in spans:
            features = _features(reading, doc, start, end, kind, text, hits, asked, sentence, named, titled, context)
            if scores is not None:
                features.update(_span_features(scores, doc[start:end]))
            found.append(Candidate(text, kind, sentence, start, end, features))
    _relative(found)
    return found


def _current(doc, spans: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """``spans`` without the values (spans with a digit) that their own sentence calls out of date ("cards that
    show 40 psi are out of date": engine/language/status.py); a name is never dropped ("Osei retired in 2001")."""
    retired = retired_tokens(doc) if any(any(ch.isdigit() for ch in text) for _, _, _, text in spans) else ()
    if not retired:
        return spans
    return [s for s in spans
            if not (any(ch.isdigit() for ch in s[3]) and all(i in retired for i in range(s[0], s[1])))]


def _share_named(keys: Sequence[str], text: str) -> float:
    """Share of the question's subjects (normalised) that normalised ``text`` names as whole words."""
    return sum(1 for k in keys if k and f" {k} " in f" {text} ") / len(keys) if keys else 0.0


_SPAN_READS = ForkSafePool(2, "span-reads")
"""Span-model reads, each beside its own ask's parse (two asks at once each get one)."""

SPAN_SENTENCES = 3
"""Sentences (the best first) whose best-scored span by the span model is a candidate of its own."""


def _span_features(scores: span_model.SentenceSpans, span) -> dict[str, float]:
    """The span model's score of a candidate, alone and against the sentence's "no answer here" score."""
    score = scores.span(span.start_char, span.end_char)
    if score is None:
        return {"qa_missing": 1.0}
    return {"qa_span": max(min(score / 10.0, 2.0), -2.0),
            "qa_over_null": max(min((score - scores.null) / 10.0, 2.0), -2.0),
            "qa_positive": float(score > scores.null)}


def _spans(doc, reading: QuestionReading, sentence: Sentence,
           extra: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int, str, str]]:
    """(first token, end token, kind, text) of each candidate span in ``doc``, without repeats; ``extra`` are
    character spans (the span model's best) added as kind "span" when no other kind covers them."""
    out: dict[tuple[int, int], tuple[int, int, str, str]] = {}
    fields = _record_values(doc) if sentence.kind == "record" else []
    tokens = list(doc)  # a list: indexing a Doc builds a new Token each time

    def add(start: int, end: int, kind: str) -> None:
        if fields:  # in a "key: value; key: value" record a candidate lies inside one value, never across keys
            inside = next(((a, b) for a, b in fields if a <= start < b), None)
            if inside is None:
                return
            end = min(end, inside[1])
        while start < end and (tokens[start].is_punct or tokens[start].pos_ in ("DET", "CCONJ", "ADP", "PRON")
                               or tokens[start].lower_ in STOP_WORDS and not tokens[start].like_num):
            start += 1
        while end > start and (tokens[end - 1].is_punct or tokens[end - 1].pos_ in ("CCONJ", "ADP", "DET", "PART")):
            end -= 1
        end = _balanced_end(tokens, start, end)
        if start >= end or end - start > MAX_CANDIDATE_WORDS:
            return
        text = doc[start:end].text
        if text.count(")") > text.count("(") or text.count("]") > text.count("["):
            return  # starts inside brackets: a cut span
        if not any(ch.isalnum() for ch in text):
            return
        out.setdefault((start, end), (start, end, kind, text))

    for ent in doc.ents:
        add(ent.start, ent.end, _LABEL_KIND.get(ent.label_, "name"))
    for chunk in doc.noun_chunks:
        kind = "name" if chunk.root.pos_ == "PROPN" else "phrase"
        add(chunk.start, chunk.end, kind)
        sub = list(chunk.root.subtree)
        if len(sub) > chunk.end - chunk.start:  # the phrase with its modifiers ("the conquest of England")
            add(sub[0].i, sub[-1].i + 1, kind)
    by_char = {t.idx: t.i for t in doc}
    ends = {t.idx + len(t.text): t.i + 1 for t in doc}
    for at, figure in located_figures(sentence.text):
        start, end = by_char.get(at), ends.get(at + len(figure.text))
        if start is not None and end is not None:
            add(start, end, "quantity" if figure.unit else "number")
    for pattern, kind in ((CODE, "code"), (VERSION, "code")):
        for match in pattern.finditer(sentence.text):
            start, end = by_char.get(match.start()), ends.get(match.end())
            if start is not None and end is not None:
                add(start, end, kind)
    for choice in reading.choices:
        key = normalise_phrase(choice)
        for chunk in [*doc.noun_chunks, *doc.ents]:
            if key and (normalise_phrase(chunk.text) == key or key in normalise_phrase(chunk.text).split(" ")):
                add(chunk.start, chunk.end, "choice")
    for start, end in fields:  # "Key: value; Key: value": each value is a candidate
        add(start, end, "field")
    for begin, finish in extra:  # widened to whole words: a span never ends inside "TR-4471-02"
        begin = max(sentence.text.rfind(" ", 0, begin) + 1, 0)
        finish = next((k for k in range(finish, len(sentence.text)) if sentence.text[k].isspace()), len(sentence.text))
        start = next((t.i for t in tokens if t.idx + len(t.text) > begin), None)
        end = next((t.i + 1 for t in reversed(tokens) if t.idx < finish), None)
        if start is not None and end is not None and end > start:
            add(start, end, "span")
    return sorted(_whole_words(out, tokens, sentence.text))


def _whole_words(found: dict, tokens, text: str) -> list[tuple[int, int, str, str]]:
    """The spans, less those cut inside a word when another span from the same token runs to the word's end
    ("TR-4471" beside "TR-4471-02")."""
    def ends_in_word(end: int) -> bool:
        at = tokens[end - 1].idx + len(tokens[end - 1].text)
        return at < len(text) and not text[at].isspace() and (text[at].isalnum() or text[at] == "-" and
                                                             at + 1 < len(text) and text[at + 1].isalnum())

    whole = {(a, b) for a, b, _, _ in found.values() if not ends_in_word(b)}
    return [v for v in found.values()
            if not ends_in_word(v[1]) or not any(a == v[0] and b > v[1] for a, b in whole)]


def _balanced_end(tokens, start: int, end: int) -> int:
    """``end``, or the span cut before a bracket it opens and does not close ("Imani Osei (1889-1961" -> "Imani
    Osei"), with punctuation and function words trimmed again."""
    open_at = None
    depth = 0
    for i in range(start, end):
        if tokens[i].text in ("(", "["):
            depth += 1
            if depth == 1:
                open_at = i
        elif tokens[i].text in (")", "]") and depth:
            depth -= 1
    if not depth or open_at is None:
        return end
    end = open_at
    while end > start and (tokens[end - 1].is_punct or tokens[end - 1].pos_ in ("CCONJ", "ADP", "DET", "PART")):
        end -= 1
    return end


def _record_values(doc) -> list[tuple[int, int]]:
    out, start = [], None
    for token in doc:
        if token.text == ":":
            start = token.i + 1
        elif token.text == ";" and start is not None:
            out.append((start, token.i))
            start = None
    if start is not None:
        out.append((start, len(doc)))
    return out


@dataclass(frozen=True)
class _EvidenceContext:
    scores: tuple[float, ...]
    credibility: tuple[float, ...]
    recency: tuple[float, ...]

    @classmethod
    def of(cls, evidence: Sequence[Evidence], today: date | None) -> _EvidenceContext:
        dates = [e.metadata.update_date for e in evidence]
        known = sorted({d for d in dates if d})
        recency = tuple((known.index(d) / max(len(known) - 1, 1)) if d in known and len(known) > 1 else 0.5
                        for d in dates)
        top = max((e.score for e in evidence), default=1.0) or 1.0
        return cls(tuple(max(e.score, 0.0) / top for e in evidence), tuple(e.credibility for e in evidence), recency)


def _features(reading: QuestionReading, doc, start: int, end: int, kind: str, text: str, hits: list[int],
              asked: frozenset[str], sentence: Sentence, named: float, titled: float,
              context: _EvidenceContext) -> dict[str, float]:
    span = doc[start:end]
    root = span.root
    own = [stem(t.lower_) for t in span if not t.is_punct and t.lower_ not in STOP_WORDS]
    in_question = sum(1 for s in own if s in asked) / len(own) if own else 1.0
    inside = [i for i in hits if start <= i < end]
    outside = [i for i in hits if not start <= i < end]
    distance = min((start - i if i < start else i - end + 1 for i in outside), default=99)
    near = len({doc[i].lower_ for i in outside if start - NEAR <= i < end + NEAR})
    head = root.head
    path = _path(doc, root, outside)
    n = sentence.evidence - 1
    at = reading.answer_type
    f: dict[str, float] = {
        "bias": 1.0,
        "sent_similarity": sentence.similarity,
        "sent_overlap": sentence.overlap,
        "sent_rank_inv": 1.0 / (1 + sentence.rank),
        "sent_model": max(min(sentence.score, 10.0), -10.0) / 10.0,
        "sent_linked": sentence.features.get("linked", 0.0),
        "sent_first": sentence.features.get("first", 0.0),
        "sent_subject": named,
        "sent_title_subject": titled,
        "evidence_score": context.scores[n],
        "evidence_rank_inv": 1.0 / sentence.evidence,
        "credibility": context.credibility[n],
        "recency": context.recency[n],
        "in_question": in_question,
        "all_in_question": float(in_question >= 1.0),
        "question_inside": float(bool(inside)),
        "distance_log": math.log1p(distance) if distance < 99 else math.log1p(30),
        "no_question_word": float(distance >= 99),
        "near": min(near, 5) / 5,
        "path_log": math.log1p(path) if path < 99 else math.log1p(12),
        "head_in_question": float(stem(head.lower_) in asked and head.i not in range(start, end)),
        "words_log": math.log1p(end - start),
        "position": start / max(len(doc), 1),
        "capitalised": float(text[:1].isupper()),
        "digit": float(any(ch.isdigit() for ch in text)),
        "is_head": float(bool(reading.head) and root.lemma_.lower() == reading.head),
        "choice": float(kind == "choice"),
        f"kind={kind}": 1.0,
        f"type={at}|kind={kind}": 1.0,
        f"wh={reading.wh or '-'}|dep={root.dep_}": 1.0,
        f"type={at}|dep={root.dep_}": 1.0,
        f"type={at}|unit={sentence.kind}": 1.0,
        f"type={at}|ent={root.ent_type_ or '-'}": 1.0,
    }
    if reading.relation:
        f["relation_head"] = float(head.lemma_.lower() == reading.relation)
    key = _field_key(sentence.text, span.start_char)  # the doc's text (Doc.text is rebuilt on each read)
    if key:  # a value in a "key: value; key: value" record: does its key name what is asked?
        own_key = {stem(w) for w in words(key)}
        f["field_key"] = len(own_key & asked) / max(len(own_key), 1)
        f["in_field"] = 1.0
    if reading.wh_head:  # "Who designed X" and "Osei designed X": the answer hangs where the wh-phrase hangs
        same_head = head.lemma_.lower() == reading.wh_head and head.i not in range(start, end)
        f["wh_head"] = float(same_head)
        f[f"whdep={reading.wh_dep}|dep={root.dep_}|same_head={int(same_head)}"] = 1.0
    f.update(_path_features(reading, doc, root, outside, start))
    f[f"pos={span[0].pos_}-{span[-1].pos_}"] = 1.0
    f[f"type={at}|head_dep={head.dep_}"] = 1.0
    f.update(shape_features(text, at, reading.head, reading.wh, reading.text))  # engine/offline/shapes.py
    return f


PATH_ANCHORS = 3
"""Question words nearest a candidate whose dependency paths to it are compared with the question's."""


def _path_features(reading: QuestionReading, doc, root, hits: list[int], start: int) -> dict[str, float]:
    """Where the candidate stands from the question's words, against where the wh-phrase stands from the same words
    in the question (the dependency-path features of the SQuAD paper's reader): "Osei designed the bridge" puts
    "Osei" where "Who designed the bridge?" puts "who". Each pair of paths is a feature the ranker weighs; so is the
    path alone by wh-word, and whether the two paths are the same."""
    asked = dict(reversed(reading.paths))  # the first word of a stem wins
    anchors = sorted((i for i in hits if _stem_of(doc[i]) in asked), key=lambda i: abs(i - start))[:PATH_ANCHORS]
    f: dict[str, float] = {}
    nearest = None
    for i in anchors:
        here = nlp.dep_path(doc[i], root)
        there = asked[_stem_of(doc[i])]
        f[f"qpath={there}|path={here}"] = 1.0
        if here == there and here != "long":
            f["path_same"] = 1.0
        if nearest is None:
            nearest = here
    if nearest is not None:
        f[f"wh={reading.wh or '-'}|path={nearest}"] = 1.0
    return f


def _stem_of(token) -> str:
    return stem(token.lower_)


def _field_key(text: str, at: int) -> str:
    """The key of the "key: value" field a character offset stands in ("" outside a record field)."""
    start = text.rfind(";", 0, at) + 1
    colon = text.find(":", start, at)
    if colon < 0 or at - colon > 80:
        return ""
    return text[start:colon].replace("_", " ").strip()


def _path(doc, root, targets: list[int]) -> int:
    """Dependency edges from ``root`` to the nearest of ``targets`` (99 when there is none)."""
    if not targets:
        return 99
    ancestors = {root.i: 0}
    node, depth = root, 0
    while node.head.i != node.i and depth < 20:
        node, depth = node.head, depth + 1
        ancestors[node.i] = depth
    best = 99
    for i in targets:
        node, depth = doc[i], 0
        while node.i not in ancestors and node.head.i != node.i and depth < 20:
            node, depth = node.head, depth + 1
        if node.i in ancestors:
            best = min(best, depth + ancestors[node.i])
    return best


def _relative(found: list[Candidate]) -> None:
    """Features of a candidate among the question's others: how many pieces of evidence give the same value (several
    sources agreeing), and where it stands among the candidates of its kind (the first one of the expected kind in
    the best sentence is often the answer)."""
    where: dict[str, set[int]] = {}
    first_of_kind: dict[str, int] = {}
    order: dict[str, list[Candidate]] = {}
    for c in found:
        where.setdefault(c.key, set()).add(c.sentence.evidence)
        first_of_kind[c.kind] = min(first_of_kind.get(c.kind, c.sentence.rank), c.sentence.rank)
        order.setdefault(c.kind, []).append(c)
    for kind, same in order.items():
        same.sort(key=lambda c: (c.sentence.rank, c.start))
        for position, c in enumerate(same):
            c.features["kind_position_inv"] = 1.0 / (1 + position)  # type: ignore[index]
    best_qa = max((c.features.get("qa_span", -9.0) for c in found), default=-9.0)
    for c in found:
        if "qa_span" in c.features:  # the span model's score against the question's best-scored candidate
            c.features["qa_gap"] = max(c.features["qa_span"] - best_qa, -2.0)  # type: ignore[index]
            c.features["qa_top"] = float(c.features["qa_span"] >= best_qa)  # type: ignore[index]
        c.features["sources_log"] = math.log1p(len(where[c.key]) - 1)  # type: ignore[index]
        c.features["best_sentence_of_kind"] = float(c.sentence.rank == first_of_kind[c.kind])  # type: ignore[index]
