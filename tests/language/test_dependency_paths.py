"""Dependency paths between words (engine.language.nlp.dep_path) and the question's paths to its wh-phrase, which
the answer reader compares with a candidate's paths from the same words in a sentence."""

from __future__ import annotations

import pytest

from engine.language import nlp
from engine.language.question import read_question
from engine.language.tokens import stem
from engine.offline.reader import _path_features

pytestmark = pytest.mark.integration


def _token(doc, text):
    return next(t for t in doc if t.text == text)


def test_a_path_goes_up_to_the_common_head_then_down():
    doc = nlp.parse(["Imani Osei designed the lighthouse."])[0]
    assert nlp.dep_path(_token(doc, "designed"), _token(doc, "Osei")) == "nsubjv"
    assert nlp.dep_path(_token(doc, "lighthouse"), _token(doc, "Osei")) == "dobj^ nsubjv"
    assert nlp.dep_path(_token(doc, "Osei"), _token(doc, "Osei")) == ""


def test_a_path_longer_than_the_limit_reads_long():
    doc = nlp.parse(["The keeper of the old lighthouse on the northern cape of the island retired in 1911."])[0]
    assert nlp.dep_path(_token(doc, "island"), _token(doc, "1911"), limit=2) == "long"
    assert nlp.dep_path(_token(doc, "island"), _token(doc, "1911"), limit=12) != "long"


def test_the_question_records_each_content_word_path_to_the_wh_phrase():
    reading = read_question("Who designed the lighthouse?")
    paths = dict(reading.paths)
    assert paths[stem("designed")] == "nsubjv"
    assert paths[stem("lighthouse")] == "dobj^ nsubjv"
    assert "who" not in paths


def test_a_candidate_where_the_question_puts_its_wh_word_has_the_same_path():
    reading = read_question("Who designed the lighthouse?")
    doc = nlp.parse(["Imani Osei designed the lighthouse in 1902."])[0]
    asked = {stem("designed"), stem("lighthouse")}
    hits = [t.i for t in doc if stem(t.lower_) in asked]
    name = _token(doc, "Osei")
    year = _token(doc, "1902")
    by_name = _path_features(reading, doc, name, hits, name.i)
    by_year = _path_features(reading, doc, year, hits, year.i)
    assert by_name.get("path_same") == 1.0
    assert "path_same" not in by_year
    assert "wh=who|path=nsubjv" in by_name
