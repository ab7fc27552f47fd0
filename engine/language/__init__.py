"""The language toolkit: every layer reads text through these modules, and nothing else splits sentences, tokenises,
stems, keeps a stop list, reads numbers, units, dates or citations, or reads a question.

- ``citations``: [n] markers; ``tokens``: words, the Snowball stem, content words, phrases;
- ``codes``: identifiers and versions; ``quantities``: numbers with units, years; ``sentences``: sentence
  splitting and evidence units (sentences, records, headings); ``names``: names and named tokens;
- ``negation``: negations and absolute wording; ``status``: what a sentence calls out of date;
- ``question``: the question reader (spaCy parse + Matcher); ``mentions``: the names a passage mentions;
- ``nlp``: spaCy pipelines, loaded once; ``en/``: the English data all of these read.
"""
