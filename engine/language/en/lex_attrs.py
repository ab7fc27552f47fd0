"""Lexical attributes of English words: number words and ordinals (spaCy's ``lex_attrs`` in spirit)."""

import re

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
CARDINALS: dict[str, int] = {**{w: i for i, w in enumerate(_ONES)}, **TENS, "hundred": 100, "thousand": 1000,
                             "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12}
"""Whole numbers written as one word ("two" -> 2, "dozen" -> 12)."""
NUMBER_WORDS: dict[str, float] = {**CARDINALS, "first": 1, "second": 2, "third": 3, "once": 1, "twice": 2,
                                  "half": 0.5}
"""Number words and their values ("two" -> 2, "dozen" -> 12, "twice" -> 2, "half" -> 0.5)."""
ARTICLE_COUNTS = {"a": 1, "an": 1}
"""Articles that count one thing where a number may stand ("within a year")."""

ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th", "s"})
"""What follows a digit in "1st", "2nd", "1990s": not a unit."""

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")

_COMPOUND = re.compile(rf"({'|'.join(TENS)})[-\s]({'|'.join(_ONES[1:10])})")
COUNT_PATTERN = ("(?:\\d{1,4}|(?:" + "|".join(TENS) + ")[-\\s](?:" + "|".join(_ONES[1:10]) + ")|"
                 + "|".join(sorted([*CARDINALS, *ARTICLE_COUNTS], key=len, reverse=True)) + ")")
"""A regular expression (no groups) for a count: digits, a cardinal word, "twenty-four", or "a"/"an"."""


def count(text: str) -> int | None:
    """The whole number a count is written as ("12", "twelve", "twenty-four", "a" -> 1); None for anything else."""
    text = " ".join(text.lower().split())
    if text.isdigit():
        return int(text)
    if match := _COMPOUND.fullmatch(text):
        return TENS[match.group(1)] + _ONES.index(match.group(2))
    return CARDINALS.get(text, ARTICLE_COUNTS.get(text))


def like_num(text: str) -> bool:
    """True for "12", "1,200", "3.5", "1/2" and number words ("twelve")."""
    text = text.lower().replace(",", "").replace(".", "", 1).lstrip("+-")
    if text.isdigit():
        return True
    if text.count("/") == 1 and all(p.isdigit() for p in text.split("/")):
        return True
    return text in NUMBER_WORDS
