"""Does an answer address the question? The reviewer's check that the asked value and subject are stated.

An extractive answer is trivially faithful to its evidence; that says nothing about whether it
answers. This check asks two things of the answer text: that it states a value of the expected
type ("how much" -> a number with a unit, "when" -> a date, "who" -> a name), and that it names
each subject of the question (itself, or through the title of the evidence it cites).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.answerability.question import QuestionFocus, analyse, identifies
from engine.answerability.spans import typed_values
from engine.reflection.signals import question_parts
from engine.reflection.text import citations, mentions, names_model, split_sentences, stem, strip_citations, words
from engine.results import Evidence, Intent


ADDRESS_ATTRIBUTE_SHARE = 0.5
"""The sentence stating the value must name at least half of the asked attribute's words: "80 percent of the
limit" does not answer "what is the maximum APU oil consumption"."""


def _attribute_share(sentence: str, focus: QuestionFocus, evidence: Sequence[Evidence] = ()) -> float:
    """Share of the asked attribute's words that ``sentence`` names, out of those its cited evidence uses.

    Words of the question that the cited evidence never uses ("what college preparatory boys' school" against
    "graduated from Hebron Academy") cannot be expected in an answer quoting it; with nothing cited, all count.
    """
    from engine.answerability.evaluator import fuzzy_in

    if not focus.attribute:
        return 1.0
    cited = [evidence[n - 1] for n in citations(sentence) if 1 <= n <= len(evidence)]
    expected = list(focus.attribute)
    if cited:
        used = {stem(w) for e in cited for w in words(f"{e.metadata.title} {e.text}")}
        expected = [a for a in focus.attribute if fuzzy_in(a, used)]
        if not expected:  # the evidence never speaks of the attribute, unless the sentence names the asked code
            # or version, as the answerability check allows ("0.11.0: 2024-03-07" from a changelog heading)
            body = strip_citations(sentence)
            return 1.0 if any(identifies(s) and mentions(body, s) for s in focus.subjects) else 0.0
    own = {stem(w) for w in words(strip_citations(sentence))}
    return sum(1 for a in expected if fuzzy_in(a, own)) / len(expected)


def _names(sentence: str, subject: str, evidence: Sequence[Evidence]) -> bool:
    """``subject`` is named in the sentence or in the title of the evidence it cites: the value is said of it.

    Not the cited chunk's text: a long chunk names many things, and on qa_dev reading it let a song of another
    episode answer "what song debuted in the October 1999 episode of South Park"."""
    titles = [evidence[n - 1].metadata.title for n in citations(sentence) if 1 <= n <= len(evidence)]
    return any(mentions(t, subject) or names_model(t, subject) for t in [strip_citations(sentence), *titles])


def unaddressed(question: str, answer: str, evidence: Sequence[Evidence], intent: Intent | None = None,
                focus: QuestionFocus | None = None, *, subjects: bool = True) -> list[str]:
    """Why ``answer`` does not answer ``question`` (empty when it does); one reason per gap.

    ``subjects=False`` skips the subject check (when the caller has already reported a missing code).
    """
    if focus is None:
        if intent is None:
            from engine.perception import get_perception

            intent = get_perception().run(question)
        focus = analyse(question, intent)
    sentences = [s for s in split_sentences(answer) if strip_citations(s).strip()]
    if not sentences:
        return ["The answer is empty."]
    reasons: list[str] = []
    parts = question_parts(question)
    if len(parts) >= 2 and intent is not None:  # "what was the interval, and why did it change?": the value is
        asked = analyse(parts[0], intent)  # asked by the first part, the rest asks for explanation
        focus = QuestionFocus(asked.answer_type, focus.subjects, asked.attribute, asked.attribute_words)
    if focus.specific:
        valued = [s for s in sentences if typed_values(strip_citations(s), focus.answer_type, question, focus.attribute)
                  and _attribute_share(s, focus, evidence) >= ADDRESS_ATTRIBUTE_SHARE]
        # every subject gets a value said of it (one sentence may serve several; a comparison needs each side)
        stated = bool(valued) and all(any(_names(s, subject, evidence) for s in valued) for subject in focus.subjects)
        if not stated:
            reasons.append(f"The answer does not state {focus.describe()}, which the question asks for.")
    cited_titles = [evidence[n - 1].metadata.title for s in sentences for n in citations(s) if 1 <= n <= len(evidence)]
    if not cited_titles:  # nothing cited (the citation check reports that): judge against every document's title
        cited_titles = [e.metadata.title for e in evidence]
    # the answer itself names the subject, or the title of what it cites: a cited chunk that merely mentions it
    # does not make the answer about it (an attorney's line of a transcript naming the case in its header)
    body = " ".join(strip_citations(s) for s in sentences)
    missing = [s for s in focus.subjects
               if not mentions(body, s) and not names_model(body, s) and not any(mentions(t, s) for t in cited_titles)]
    if subjects and missing and len(missing) == len(focus.subjects):
        names = ", ".join(repr(m) for m in missing)
        reasons.append(f"The answer does not mention {names}, which the question is about.")
    return reasons
