"""Perception: a question becomes an intent, via an editable rules file plus spaCy NER."""

from engine.perception.rules import DEFAULT_RULES_PATH, Rules, load_rules
from engine.perception.stage import Perception, get_perception

__all__ = ["DEFAULT_RULES_PATH", "Perception", "Rules", "get_perception", "load_rules"]
