"""Text helpers shared by the offline generator, the offline reviewer and validation.

Sentences, [n] citations, content words, figures (numbers with units, units compared through
the spellings in ``quantities.toml``), named tokens (codes such as "A320" or "E4027", month
names, capitalised names), negations and their scope, and absolute wording.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from engine.results import Intent

CITATION = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s*(?:\[\d+(?:\s*[,–-]\s*\d+)*\])+)?(?=\s+|$)")
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "approx", "fig", "no", "nos", "rev", "ref", "para", "sect", "mr", "mrs", "ms", "dr", "st", "inc", "ltd", "co", "jr", "sr", "p.n", "u.s", "u.k"]
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’./-]*[A-Za-z0-9]|[A-Za-z0-9]")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])")
_UNIT = re.compile(
    r"\s?(?:(?:US|U\.S\.|imperial|metric)\s+)?(%|°\s?[CF]|[A-Za-z][A-Za-z./°²³]{0,11}(?<![.]))"
    r"(?:\s*(?:/|\bper\s+|\ban?\s+)(hours?|hrs?|h|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|yrs?"
    r"|cycles?|flights?|landings?|FC|FH)\b)?",
    re.IGNORECASE,
)
_PER = {"hour": "h", "hr": "h", "minute": "min", "second": "s", "sec": "s", "day": "d", "year": "yr"}
_CODE = re.compile(
    r"\b(?:[A-Za-z]+[-/]?\d[A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*"  # A320, E4027, ATA-32, B737-800
    r"|\d+[A-Za-z]+\d[A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*"  # 3A2, 12B4
    r"|\d+(?:-\d+){2,})\b"  # 201-587-3
)
_TOLERANCE = re.compile(r"(?:\+/-|\+-|±|\+/−)\s*$")
_TOLERANCE_AFTER = re.compile(r"\s*(?:\+/-|\+-|±|\+/−)\s*\d+(?:\.\d+)?")
_ORDINAL_UNITS = frozenset({"st", "nd", "rd", "th", "s"})
_QUANTITIES = Path(__file__).with_name("quantities.toml")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][a-z]+(?:[-'][A-Za-z]+)?\b")
MONTHS = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
)
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
                      "hundred": 100, "thousand": 1000, "million": 1_000_000, "dozen": 12, "first": 1, "second": 2,
                      "third": 3, "once": 1, "twice": 2, "half": 0.5})
ABSOLUTE_WORDS = frozenset(
    ["always", "never", "guaranteed", "guarantees", "guarantee", "definitely", "certainly", "undoubtedly", "all",
     "impossible"])
"""Absolute wording that needs explicit support; flagged when the evidence does not use it, never rewritten."""
NEGATIONS = frozenset(["not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody", "nowhere",
                       "without", "forbidden", "prohibited", "banned", "unable", "fail", "fails", "failed", "lacks",
                       "lacked", "lacking"])
"""Words that negate what follows them (with every "n't" contraction: isn't, doesn't, won't, can't...);
"forbidden from eating" says what "not allowed to eat" says."""
STOPWORDS = frozenset(ENGLISH_STOP_WORDS) | {
    "yes", "yeah", "oh", "ok", "okay", "really", "just", "like", "got", "absolutely", "sure", "indeed", "wow", "cool",
    "thanks", "hmm", "haha", "lol", "awesome", "um", "uh", "does", "did", "doing", "guess", "believe", "think",
    "maybe", "probably", "actually", "pretty", "lot", "lots", "kind", "sort", "stuff", "thing", "things",
}
_ABSOLUTE = re.compile(r"(?<![\w-])(" + "|".join(sorted(ABSOLUTE_WORDS, key=len, reverse=True)) + r")(?![\w-])",
                       re.IGNORECASE)
_IDIOMS = re.compile(r"\b(?:of all time|at all|after all|above all|all but|all of)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Figure:
    """A number as written, its value, and the unit that follows it ("" when none)."""

    text: str
    value: float
    unit: str


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; a trailing [n] citation stays with its sentence.

    Line breaks end a sentence too (headings, list items, table rows), except a hard wrap
    inside a sentence: a line without end punctuation followed by one starting in lower case.
    """
    sentences: list[str] = []
    for block in _blocks(text or ""):
        sentences.extend(_split_block(block))
    return _merge_citation_only(sentences)


def _blocks(text: str) -> list[str]:
    blocks: list[str] = []
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            if blocks and blocks[-1]:
                blocks.append("")
            continue
        if blocks and blocks[-1] and not re.search(r"[.!?:;]$|\]$", blocks[-1]) and re.match(r"[a-z0-9(]", line):
            blocks[-1] = f"{blocks[-1]} {line}"
        else:
            blocks.append(line)
    return [b for b in blocks if b]


def _split_block(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        head = text[start:end]
        word = re.search(r"([A-Za-z.]+)[.!?]$", text[start:match.start()])
        if word and (word.group(1).lower().rstrip(".") in _ABBREVIATIONS or len(word.group(1)) == 1):
            continue
        if head.strip():
            sentences.append(head.strip())
        start = end
    if text[start:].strip():
        sentences.append(text[start:].strip())
    return sentences


def _merge_citation_only(sentences: list[str]) -> list[str]:
    """Glue a sentence that is only citations ("[2].") onto the one before it."""
    merged: list[str] = []
    for sentence in sentences:
        if merged and not strip_citations(sentence).strip(" .;,"):
            merged[-1] = f"{merged[-1]} {sentence}"
        else:
            merged.append(sentence)
    return merged


def citations(text: str) -> list[int]:
    """Citation numbers in ``text`` in order of appearance, ranges expanded ("[1-3]" -> 1, 2, 3)."""
    found: list[int] = []
    for match in CITATION.finditer(text):
        for part in re.split(r"\s*,\s*", match.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            if len(bounds) == 2 and all(b.isdigit() for b in bounds) and 0 <= int(bounds[1]) - int(bounds[0]) < 50:
                found.extend(range(int(bounds[0]), int(bounds[1]) + 1))
            elif part.isdigit():
                found.append(int(part))
    return list(dict.fromkeys(found))


# The answerability check and the reviewer call these for every sentence, context and chunk they read, and the same
# evidence comes back across the rounds and questions of a session; 4,096 recent texts each (a few MB at most).
@lru_cache(maxsize=4096)
def strip_citations(text: str) -> str:
    """``text`` without its [n] markers."""
    return re.sub(r"\s+([.!?,;:])", r"\1", CITATION.sub("", text)).strip()


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return list(_words(text))


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    return tuple(w.lower().strip(".'’/-") for w in _WORD.findall(strip_citations(text)))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix-stripping stem, enough to match "torques"/"torqued"/"torque"."""
    w = word.lower()
    if len(w) <= 3 or any(ch.isdigit() for ch in w):
        return w
    for suffix, keep in (("ational", "ate"), ("ization", "ize"), ("isation", "ize"), ("iness", "y"),
                         ("ments", ""), ("ment", ""), ("ingly", ""), ("edly", ""), ("ing", ""), ("ied", "y"),
                         ("ies", "y"), ("ed", ""), ("ly", ""), ("es", ""), ("s", ""), ("e", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            w = w[: len(w) - len(suffix)] + keep
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


_IRREGULAR = {form: base for base, forms in (
    ("write", "wrote written"), ("begin", "began begun"), ("win", "won"), ("make", "made"), ("sing", "sang sung"),
    ("draw", "drew drawn"), ("give", "gave given"), ("take", "took taken"), ("lead", "led"), ("hold", "held"),
    ("build", "built"), ("buy", "bought"), ("teach", "taught"), ("fight", "fought"), ("run", "ran"),
    ("see", "seen"), ("go", "went gone"), ("come", "came"), ("become", "became"), ("choose", "chose chosen"),
    ("speak", "spoke spoken"), ("wear", "wore worn"), ("fly", "flew flown"), ("grow", "grew grown"),
    ("know", "knew known"), ("throw", "threw thrown"), ("rise", "risen"), ("fall", "fallen"), ("meet", "met"),
    ("sell", "sold"), ("tell", "told"), ("bring", "brought"), ("think", "thought"), ("send", "sent"),
    ("spend", "spent"), ("stand", "stood"), ("strike", "struck"), ("shoot", "shot"), ("keep", "kept"),
    ("lose", "lost"), ("pay", "paid"), ("drive", "drove driven"), ("ride", "rode ridden"),
    ("break", "broke broken"), ("steal", "stole stolen"), ("get", "got gotten"), ("eat", "ate eaten"),
    ("feed", "fed"), ("breed", "bred"), ("sink", "sank sunk"), ("swim", "swam swum"), ("hide", "hid hidden"),
    ("forget", "forgot forgotten"), ("shake", "shook shaken"), ("sit", "sat"), ("sleep", "slept"),
) for form in forms.split()}
"""Past forms of common irregular verbs, to their base ("wrote", "written" -> "write"). Forms that are also other
words ("found", "left", "rose", "saw", "fell", "lay", "bore") are left out: their reading would be a guess."""


def verb_stem(word: str) -> str:
    """``stem`` of a word with an irregular verb's past forms read as its base: "wrote" and "written" match "writes"."""
    return stem(_IRREGULAR.get(word.lower(), word))


def content_words(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stop words, no bare punctuation)."""
    return [stem(w) for w in words(text) if w and w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def coverage(text: str, support: str | set[str]) -> float:
    """Share of ``text``'s content words found in ``support`` (1.0 when ``text`` has none)."""
    mine = set(content_words(text))
    if not mine:
        return 1.0
    theirs = support if isinstance(support, set) else set(content_words(support))
    return len(mine & theirs) / len(mine)


def figures(text: str) -> list[Figure]:
    """Numbers in ``text`` with the unit word that follows each (years and codes included as plain numbers)."""
    return [figure for _, figure in located_figures(text)]


def located_figures(text: str) -> list[tuple[int, Figure]]:
    """(offset, figure) for each figure of ``text`` with its citations stripped (offsets index that text)."""
    clean = strip_citations(text)
    found: list[tuple[int, Figure]] = []
    code_spans = [m.span() for m in _CODE.finditer(clean)]
    for match in _NUMBER.finditer(clean):
        if any(s <= match.start() and match.end() <= e and (e - s) > (match.end() - match.start())
               for s, e in code_spans):
            continue
        raw = match.group(0)
        unit_match = _UNIT.match(clean, match.end())
        unit = ""
        if _TOLERANCE.search(clean[: match.start()]):
            unit_match = None  # "35 +/- 2 psi": the 2 is a tolerance, not a value of its own
        elif (tolerance := _TOLERANCE_AFTER.match(clean, match.end())) is not None:
            unit_match = _UNIT.match(clean, tolerance.end())  # "35 +/- 2 psi": 35 is in psi
        if unit_match and clean[unit_match.end(): unit_match.end() + 1].isdigit():
            unit_match = None  # "57 E4027 events": the letter opens a code, it is not a unit
        if unit_match:
            candidate = unit_match.group(1).rstrip(".")
            if candidate.lower() not in STOPWORDS and candidate.lower() not in _ORDINAL_UNITS:
                unit = candidate
                if unit_match.group(2):
                    per = unit_match.group(2).lower()
                    per = per[:-1] if per.endswith("s") and len(per) > 3 else per
                    unit = f"{unit}/{_PER.get(per, per)}"
        value = float(raw.replace(",", ""))
        text_form = clean[match.start(): unit_match.end()].rstrip(".") if unit else raw
        found.append((match.start(), Figure(text_form.strip(), value, unit.lower())))
    return found


@lru_cache(maxsize=1)
def _unit_aliases() -> dict[str, str]:
    """Spelling -> canonical unit, from ``quantities.toml``."""
    with _QUANTITIES.open("rb") as handle:
        table = tomllib.load(handle).get("units", {})
    aliases: dict[str, str] = {}
    for canonical, spellings in table.items():
        aliases[canonical.lower()] = canonical.lower()
        for spelling in spellings:
            aliases[str(spelling).lower()] = canonical.lower()
    return aliases


def canonical_unit(unit: str) -> str:
    """The canonical spelling of ``unit`` ("kilometres" -> "km", "percent" -> "%"); unknown units as written."""
    text = re.sub(r"\s+", " ", unit.lower().strip().rstrip("."))
    aliases = _unit_aliases()
    if text in aliases:
        return aliases[text]
    if "/" in text:
        head, _, tail = text.partition("/")
        joined = f"{canonical_unit(head)}/{canonical_unit(tail)}"
        return aliases.get(joined, joined)
    return text


def known_unit(unit: str) -> bool:
    """True for a unit listed in ``quantities.toml`` (or a ratio of listed units)."""
    canonical = canonical_unit(unit)
    return canonical in _unit_aliases() or ("/" in canonical and all(p in _unit_aliases() for p in canonical.split("/")))


def units_agree(a: str, b: str) -> bool:
    """False only when both units are given, differ, and at least one is a known unit ("N.m" vs "psi")."""
    if not a or not b:
        return True
    ca, cb = canonical_unit(a), canonical_unit(b)
    return ca == cb or not (known_unit(a) or known_unit(b))


def numbers(text: str, *, spelled: bool = False) -> set[float]:
    """The numeric values in ``text``; with ``spelled``, also number words ("two" -> 2)."""
    found = {f.value for f in figures(text)}
    if spelled:
        found |= {float(_NUMBER_WORDS[w]) for w in words(text) if w in _NUMBER_WORDS}
    return found


def named_tokens(text: str, *, capitalised: bool = True) -> set[str]:
    """Tokens that must be backed by evidence: codes, month names and (optionally) capitalised names.

    A capitalised word that opens the text or a sentence is skipped, as are stop words.
    """
    clean = strip_citations(text)
    tokens = {m.group(0).lower() for m in _CODE.finditer(clean)}
    tokens |= {w for w in words(clean) if w in MONTHS}
    if capitalised:
        for match in _CAPITALISED.finditer(clean):
            before = clean[: match.start()].rstrip()
            if not before or before[-1] in ".!?:;\"“(":
                continue
            word = match.group(0).lower()
            if word not in STOPWORDS and word not in MONTHS:
                tokens.add(word)
    return tokens


_NAME_TOKEN = re.compile(r"[A-Z][\w'’]*(?:-[\w'’]+)*")


def name_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-case name) of the codes and capitalised names in ``text`` (citations stripped).

    Consecutive capitalised words make one name ("Roads Department", "Beth Okafor"); leading and
    trailing stop words ("The"), month names and one-word names that open a sentence are dropped,
    and so are units written after a number ("300 N.m", "50 MB").
    """
    clean = strip_citations(text)
    units = [(at, at + len(f.text)) for at, f in located_figures(clean)]
    found: list[tuple[int, int, str]] = []
    for match in _CODE.finditer(clean):
        if not any(s <= match.start() < e for s, e in units):
            found.append((match.start(), match.end(), match.group(0).lower()))
    run: list[re.Match[str]] = []
    for match in [*_NAME_TOKEN.finditer(clean), None]:
        if match is not None and run and clean[run[-1].end(): match.start()] == " " and not _digit(match.group(0)):
            run.append(match)
            continue
        if run:
            found.extend(_name_run(clean, run, units))
        run = [match] if match is not None and not _digit(match.group(0)) else []
    return sorted(found)


def _digit(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


def _name_run(clean: str, run: list[re.Match[str]], units: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    kept = [m for m in run if not any(s <= m.start() < e for s, e in units)]
    while kept and (kept[0].group(0).lower() in STOPWORDS or kept[0].group(0).lower() in MONTHS):
        kept.pop(0)
    while kept and (kept[-1].group(0).lower() in STOPWORDS or kept[-1].group(0).lower() in MONTHS):
        kept.pop()
    if not kept or (len(kept) == 1 and len(kept[0].group(0)) < 2):
        return []
    before = clean[: kept[0].start()].rstrip()
    if len(kept) == 1 and (not before or before[-1] in ".!?:;\"“("):
        return []  # one capitalised word opening a sentence: not evidently a name
    start, end = kept[0].start(), kept[-1].end()
    return [(start, end, " ".join(clean[start:end].lower().split()))]


def absolute_words(text: str) -> list[str]:
    """Absolute wording ("always", "never", "guaranteed", ...) found in ``text``."""
    body = _IDIOMS.sub(lambda m: "_" * len(m.group(0)), strip_citations(text))
    return [m.group(0) for m in _ABSOLUTE.finditer(body)]


_NEGATION_TOKEN = re.compile(rf"{_WORD.pattern}|[,;:!?()\"“”]|(?<=\s)[-–—](?=\s)|\.(?=\s|$)")
_SCOPE_END = frozenset(["and", "or", "but", "while", "whereas", "although", "though", "because", "since", "unless",
                        "however", "so", "yet", "then", "which", "who", "when", "if"])
_BOUND = frozenset(["more", "less", "fewer", "later", "earlier", "greater", "higher", "lower", "longer", "shorter",
                    "sooner", "older", "younger", "only", "doubt"])  # "no more than 5", "not only": not a negation


def _is_negation(token: str) -> bool:
    return token in NEGATIONS or token.endswith(("n't", "n’t"))


def negations(text: str) -> list[str]:
    """The negation words of ``text`` in order ("not", "never", "doesn't", ...), bounds such as "no more than" excluded."""
    tokens = [t.lower() for t in _NEGATION_TOKEN.findall(strip_citations(text))]
    return [t for i, t in enumerate(tokens) if _is_negation(t) and not _bound(tokens, i)]


def _bound(tokens: list[str], i: int) -> bool:
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    return tokens[i] in ("no", "not") and (after in _BOUND or (after.isdigit() and tokens[i] == "no"))


def negated_words(text: str) -> frozenset[str]:
    """Stems of the content words said only under a negation: from the negation word to the end of its clause.

    "The part is not approved for the wing spar, but the bolt is" -> {"approv", "wing", "spar"}. A
    scope ends at punctuation, at a conjunction ("and", "but", "while", ...) or at the next negation
    word. A word the text also says outside any negation ("passing the ball ... the team without
    control of the ball") is not counted: the text is not negative about it as a whole.
    """
    tokens = [t.lower().strip(".'’/-") for t in _NEGATION_TOKEN.findall(strip_citations(text))]
    negated: set[str] = set()
    plain: set[str] = set()
    inside = False
    for i, token in enumerate(tokens):
        if _is_negation(token) and not _bound(tokens, i):
            inside = True
            continue
        if not token or not token[0].isalnum() or token in _SCOPE_END:
            inside = False
            continue
        if token not in STOPWORDS and not any(ch.isdigit() for ch in token) and len(token) > 1:
            (negated if inside else plain).add(stem(token))
    return frozenset(negated - plain)


def is_key_statement(sentence: str, min_content_words: int = 3) -> bool:
    """True for a sentence that states something (enough content words or any figure/code)."""
    body = strip_citations(sentence)
    return len(set(content_words(body))) >= min_content_words or bool(figures(body)) or bool(
        named_tokens(body, capitalised=False))


def with_citation(sentence: str, numbers_: list[int]) -> str:
    """``sentence`` with its citations replaced by ``numbers_`` placed before the final punctuation."""
    body = strip_citations(sentence).rstrip().rstrip(":;,").rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    body = body[:-1].rstrip() if end else body
    marks = "".join(f"[{n}]" for n in numbers_)
    return f"{body} {marks}{end or '.'}" if marks else f"{body}{end or '.'}"


@lru_cache(maxsize=4096)
def normalise_phrase(text: str) -> str:
    """Lower case, punctuation and hyphens as single spaces: "Wheel-Axle" and "wheel axle" match."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def mentions(text: str, phrase: str) -> bool:
    """True when ``text`` contains ``phrase`` as whole words, ignoring case, hyphens and punctuation."""
    needle = normalise_phrase(phrase)
    return bool(needle) and f" {needle} " in f" {normalise_phrase(text)} "


_MODEL_TAIL = re.compile(r"(?<=\s)\S*\d\S*(?:\s\S+)*$")
"""From the first word holding a digit to the end of a normalised name: the model or version ("737 max" of
"boeing 737 max"), which a document names as written while the maker's name may stand elsewhere."""


def names_model(text: str, name: str) -> bool:
    """A maker-and-model name ("Boeing 737 MAX") is named by ``text`` when the model is written as a phrase and
    every word before it stands somewhere in ``text`` ("The Boeing Company Model 737-8 ... (737 MAX)")."""
    key = normalise_phrase(name)
    model = _MODEL_TAIL.search(key)
    if not model or model.start() == 0:
        return False
    body = f" {normalise_phrase(text)} "
    return f" {model.group(0)} " in body and all(f" {w} " in body for w in key[: model.start()].split())


def compared_entities(intent: Intent) -> list[str]:
    """The entities a question compares: all of them for a "compare" question, else two or more of one kind."""
    texts = list(dict.fromkeys(e.text for e in intent.entities if e.text.strip()))
    if intent.action == "compare":
        return texts if len(texts) >= 2 else []
    by_label: dict[str, list[str]] = {}
    for entity in intent.entities:
        if entity.text.strip() and entity.text not in by_label.setdefault(entity.label, []):
            by_label[entity.label].append(entity.text)
    return next((names for names in by_label.values() if len(names) >= 2), [])
