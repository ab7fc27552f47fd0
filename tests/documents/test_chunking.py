"""Chunks respect sentence and paragraph boundaries, their size, and overlap."""

from __future__ import annotations

import pytest

from engine.documents.chunking import chunk_sections
from engine.documents.types import Section
from engine.language.sentences import split_sentences

pytestmark = pytest.mark.unit


def test_chunks_end_at_the_toolkits_sentence_ends_not_after_abbreviations():
    text = "The hall seats 900, e.g. for concerts, as in Fig. 3. Then ask Dr. Osei! Done? Yes."
    chunks = chunk_sections([Section(text)], size=60, overlap=0)
    assert [c.text for c in chunks] == ["The hall seats 900, e.g. for concerts, as in Fig. 3.",
                                        "Then ask Dr. Osei! Done? Yes."]


def test_a_heading_line_inside_a_paragraph_starts_a_sentence():
    text = "The old limit no longer applies.\nCurrent limits\nThe limit is 40 units per day."
    chunks = chunk_sections([Section(text)], size=60, overlap=0)
    assert [c.text for c in chunks] == ["The old limit no longer applies. Current limits",
                                        "The limit is 40 units per day."]


def _paragraphs(n: int) -> str:
    return "\n\n".join(f"Paragraph {i} opens here. It has a second sentence of some length. And a third one." for i in range(n))


def test_chunks_fit_size_and_never_cut_sentences():
    text = _paragraphs(12)
    chunks = chunk_sections([Section(text, page=4)], size=200, overlap=40)
    sentences = set(split_sentences(text.replace("\n\n", " ")))
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk.text) <= 200
        assert chunk.page == 4
        for sentence in split_sentences(chunk.text.replace("\n\n", " ")):
            assert sentence in sentences
    assert [c.position for c in chunks] == list(range(len(chunks)))


def test_overlap_repeats_the_tail_of_the_previous_chunk():
    text = " ".join(f"Sentence {i} is short." for i in range(40))
    chunks = chunk_sections([Section(text)], size=120, overlap=45)
    for previous, current in zip(chunks, chunks[1:]):
        prev_sentences = split_sentences(previous.text)
        shared = [s for s in split_sentences(current.text) if s in prev_sentences]
        assert shared, "each chunk starts with sentences from the previous one"
        assert shared[-1] == prev_sentences[-1]
        assert sum(len(s) + 1 for s in shared) <= 45


def test_no_overlap_means_disjoint_chunks():
    text = " ".join(f"Sentence {i} is short." for i in range(40))
    chunks = chunk_sections([Section(text)], size=120, overlap=0)
    joined = " ".join(c.text for c in chunks)
    assert joined == text


def test_overlong_sentence_is_split_on_spaces():
    text = "word " * 100
    chunks = chunk_sections([Section(text.strip())], size=120, overlap=0)
    assert all(len(c.text) <= 120 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == text.split()


def test_chunks_do_not_cross_pages():
    chunks = chunk_sections([Section("First page text.", 1), Section("Second page text.", 2)], size=500, overlap=50)
    assert [(c.text, c.page) for c in chunks] == [("First page text.", 1), ("Second page text.", 2)]


@pytest.mark.parametrize("size,overlap", [(10, 0), (200, 200), (200, -1)])
def test_bad_settings_are_refused(size, overlap):
    with pytest.raises(ValueError):
        chunk_sections([Section("x")], size=size, overlap=overlap)
