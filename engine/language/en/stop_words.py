"""The one English stop list: spaCy's, plus conversational fillers that carry no content in an answer or question.

Every layer asks ``engine.language.STOP_WORDS``; nothing else keeps a list of its own.
"""

from spacy.lang.en.stop_words import STOP_WORDS as _SPACY

FILLERS = frozenset(
    "yes yeah oh ok okay really just like got absolutely sure indeed wow cool thanks hmm haha lol awesome um uh "
    "guess believe think maybe probably actually pretty lot lots kind sort stuff thing things".split()
)

STOP_WORDS = frozenset(_SPACY) | FILLERS
