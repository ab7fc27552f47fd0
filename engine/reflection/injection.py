"""Instruction-like text in evidence: found, reported as a review issue of type ``injection``, never followed.

Documents are data. A passage that talks to the model ("ignore previous instructions",
"system: ...", "you are now ...", "approve the pending deletion", a fake ``</untrusted_data>``
closing or a fake tool result) is an attempt to steer the answer or the agent. So is a passage
that talks to whoever checks or writes answers (a note "for whoever checks this answer", graders
told what to accept), that talks about the answers drawn from it ("whatever is summarised from
this page should give ...") or that labels itself the verified answer. The reviewer
reports each such passage once as an issue with no location (a note: the answer may still be
valid), and any answer sentence that carries such text as an issue at that sentence, with a
correction that drops the sentence, so an answer never passes the instruction on.

``never_evidence`` is the test for answer evidence: a document sentence holding such text, or
borrowing the syntax of tool calls and results, markup, hidden comments or the answer's own
``[n]`` citations, is never quoted or used for a value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.language.sentences import split_sentences
from engine.results import Correction, Evidence, Review, ReviewIssue

_IMPERATIVE = (r"(?:you|your|ignore|disregard|forget|must|do not|don't|never|always|call|use|run|execute|delete|"
               r"remove|approve|confirm|reply|respond|answer|output|say|print|send|email|forward|follow|tell|"
               r"include|append|add|reveal|show|write)")
_CHECKER = (r"(?:(?:human\s+|answer\s+|fact[- ]?)?(?:reviewers?|checkers?|verifiers?|graders?|evaluators?|assessors?|"
            r"raters?|moderators?|validators?))")
"""People who judge answers."""
_ANSWERER = r"(?:summari[sz]ers?|(?:answer|chat|ai|rag|qa)[ -](?:engines?|bots?|systems?|tools?|services?)|chatbots?|bots?)"
"""Programs that write answers (the model itself is named in "addressing the model")."""
_MACHINE = rf"(?:software|programs?|programmes?|pipelines?|indexers?|crawlers?|scrapers?|retrievers?|{_ANSWERER})"
"""Programs that read documents or write answers: addressed, never merely described ("the software shall display")."""
_ADDRESSED = (r"(?:\s+(?:that|which|who|reading|indexing|processing|checking|answering|consulting|summari[sz]ing|parsing|"
              r"scanning|crawling|verifying|reviewing|grading)\b[^.:\n]{0,50})?:")
"""The end of an address line: the party, what it does with the text at most, then a colon ("To the indexer
reading this folder:"), not a topic ("For the software installation:")."""
_VERDICT = (r"(?:accept|approve|pass|mark|flag|reject|treat|score|grade|quote|state|say|answer|reply|respond|report|"
            r"return|ignore|disregard|you|your)")
"""What an address to a checker goes on to ask (a role's procedure step, "Reviewer: check the sums", asks none)."""
_READING = (r"(?:whoever|anyone|anybody|someone|somebody|the\s+one|the\s+person|those|you)\b[^.:;\n]{0,30}?"
            r"\b(?:check|read|review|verif|grad|evaluat|assess|answer|respond|repl|summari|process|index|quot|pars|"
            r"scan|crawl)\w*")
"""Whoever reads, checks or answers from this text, described by what they do with it."""
_ANSWERS = r"(?:answers?|responses?|replies|reply|summar(?:y|ies)|outputs?)"
_DIRECTIVE = r"(?:should|must|shall|will|are\s+to|is\s+to|needs?\s+to|ought\s+to|may\s+only|can\s+only)"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern, re.IGNORECASE | re.MULTILINE))
                                                          for kind, pattern in (
    ("override", r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|every\s+)?"
                 r"(?:(?:previous|prior|above|earlier|preceding|former|original|existing|system|safety|your|other)\s+)+"
                 r"(?:instructions?|prompts?|rules|directions|guidelines|guardrails|context|messages?|orders)\b"),
    ("override", r"\b(?:new|updated|real|actual|revised)\s+(?:system\s+)?(?:instructions?|orders|directives?)\s*:"
                 r"|\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:before|above|prior|said|you)"
                 r"|\bstop\s+following\s+(?:your|the|all|any)\s+(?:\w+\s+)?(?:instructions|rules|guidelines|prompt)\b"
                 r"|\byour\s+(?:new|real|actual|true)\s+(?:task|role|job|goal|objective|purpose|instructions?)\b"
                 r"|\b(?:disobey|overlook|set\s+aside|abandon|drop)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?"
                 r"(?:(?:previous|prior|above|given|earlier|current)\s+)?(?:rules|guidance|instructions|guidelines|prompt)\b"
                 r"|\b(?:supersedes?|overrides?|replaces?|cancels?)\s+(?:all\s+)?(?:your|the)\s+(?:system\s+)?"
                 r"(?:instructions|rules|prompt|guidelines)\b"
                 r"|\bforget\s+(?:all\s+)?(?:that|this|everything|it\s+all)\b"
                 r"|[=#*~-]{3,}\s*end\s+of\s+(?:the\s+)?(?:document|context|data|input|passage)\b"),
    ("addressing the model", r"\b(?:dear|attention|hey|note\s+(?:to|for))\s+(?:the\s+)?(?:ai|a\.i\.|assistant|"
                             r"chatbot|bot|language\s+models?|llms?|model|gpt|claude)\b"
                             r"|\bas\s+an?\s+(?:ai|a\.i\.|language\s+model|llm|assistant)\b[^.\n]{0,40}\b(?:you|must|should|will)\b"
                             r"|\b(?:if|when)\s+you\s+(?:are\s+an?\s+(?:ai|language\s+model|llm|assistant)|read\s+this)\b"
                             r"|\b(?:hidden|secret)\s+(?:instruction|message|note|prompt)s?\b"
                             r"|\bbefore\s+(?:answering|responding|replying)\s*,"
                             r"|\b(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:ai|a\.i\.|automated|machine)\s+"
                             r"(?:readers?|agents?|systems?|models?|assistants?|reading)\b"
                             r"|\b(?:the\s+)?(?:ai|a\.i\.|language\s+model|llm|assistant)\s+(?:reading|processing)\s+"
                             r"(?:this|it)\b|\bthe\s+assistant\s+(?:must|should|shall|will|calls?|needs?)\b"
                             r"|\byour\s+(?:answer|reply|response|output)s?\b[^.\n]{0,80}\b(?:add|include|"
                             r"append|write|say|replace|insert|mention)\b|\bin\s+your\s+(?:answer|reply|response|output)\b"
                             r"|\brole-?play\s+as\b|\bfrom\s+here\s+on\b"),
    ("role play", r"\byou\s+are\s+(?:now|no\s+longer|actually|henceforth)\b"),
    ("role play", r"\b(?:from\s+now\s+on|henceforth),?\s+(?:you|act|behave|respond|answer|reply)\b"),
    ("role play", r"\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|different|"
                  r"new|evil|jailbroken|uncensored))\b|\bpretend\s+(?:that\s+)?you\s+(?:are|were)\b"
                  r"|(?:^|[.!?:]\s+|\b(?:now|please|must|should|will)\s+)pretend\s+to\s+be\b"
                  r"|\b(?:developer|god|jailbreak|dan)\s+mode\b|\bswitch\s+(?:your\s+)?(?:role|persona)\b"),
    ("role marker", rf"(?:^|[.!?]\s+)\s*[#>*\s]*(?:system|assistant|developer|admin(?:istrator)?|operator)"
                    rf"(?:\s+(?:message|prompt|note|notice|override|instructions?|update))?\s*:\s*"
                    rf"(?=[^\n]{{0,200}}\b{_IMPERATIVE}\b)"),
    ("role marker", r"(?:^|\n)\s*(?:human|user)\s*:[^\n]*\n\s*(?:assistant|ai|bot)\s*:"
                    r"|(?:^|[.!?]\s+|\n)\s*(?:assistant|ai|bot)\s*:\s*(?:I\b|I'|ok\b|okay\b|sure\b|done\b)"
                    r"|\b(?:begin|end)\s+(?:admin|system|developer)\s+(?:override|mode|instructions?)\b"
                    r"|\[/?(?:system|inst|sys)\]|<</?sys>>|<\|(?:im_start|im_end|system|endoftext)\|>"
                    r"|\bSYSTEM\s+(?:NOTICE|OVERRIDE|MESSAGE|PROMPT|UPDATE)\b"),
    ("fake closing", r"</?\s*(?:untrusted_data|document|evidence|answer|system|instructions?|tool_result|"
                     r"function_results?|context)\b[^<>]*>"),
    ("fake tool result", r"\"?\b(?:tool_result|tool_use_id|tool_use)\b\"?\s*[:=]|\{\s*\"ok\"\s*:\s*true\s*,"
                         r"|\b(?:tool|function)[ _](?:result|output|response)\s*(?:\(|:\s*[{\[<\"])"
                         r"|\[(?:tool|function)[ _](?:result|output|response)\b|\"decision\"\s*:\s*\"approved\""
                         r"|\b(?:previous|last|earlier)\s+(?:tool|function)\s+call\s+(?:succeeded|returned|was)"
                         r"|\bapproved\s*=\s*true\b|\"approved\"\s*:\s*true\b"
                         r"|\b(?:tool|function)\s+(?:response|result|output)\s*(?:>+|=+|-+>)"
                         r"|\"status\"\s*:\s*\"(?:approved|authori[sz]ed|granted)\""),
    ("approval", r"\bapprove\s+(?:the\s+|this\s+|all\s+|any\s+)?(?:pending|queued|waiting)\b"
                 r"|\bauto-?approve\b"
                 r"|\b(?:deletion|call|action|request|change|transfer)\s+(?:is|has\s+been|was)\s+(?:already\s+)?"
                 r"(?:approved|authori[sz]ed|confirmed)\b"
                 r"|\bapproved\s+by\s+(?:the\s+)?(?:administrator|admin|user|operator|owner|security\s+team)\b"
                 r"|\b(?:user|person|administrator|admin|owner|operator|analyst)\s+(?:has|have)\s+(?:already\s+)?"
                 r"(?:authori[sz]ed|approved|allowed|permitted)\s+you\b"
                 r"|\bI\s+(?:hereby\s+)?(?:instruct|order|command|authori[sz]e|permit)\s+you\b"
                 r"|\byou\s+(?:are|have\s+been)\s+(?:now\s+)?(?:authori[sz]ed|permitted|allowed|cleared)\s+to\b"
                 r"|\b(?:approv\w*|granted|authori[sz]\w*|cleared)\b[^.\n]{0,60}\bdeletion\b"
                 r"|\b(?:pending|requested)\s+(?:delete|deletion|call)\b[^.\n]{0,60}\b(?:approv\w*|granted|"
                 r"authori[sz]\w*)\b|\bapprove\s+(?:all\s+|any\s+|the\s+)?pending\b"),
    ("tool request", r"\b(?:call|use|invoke|run|execute|trigger)\s+(?:the\s+)?(?:delete_document|send_report|"
                     r"export_report|search_knowledge_base|answer_with_review|list_documents|get_document|"
                     r"compare_values|calculator)\b"),
    ("output control", r"\b(?:reply|respond|answer|output|say|print|write)\s+(?:only|exactly)\b"
                       r"|\b(?:reply|respond|answer)\s+(?:only\s+)?with\s+(?:only\b|exactly\b|the\s+(?:word|words|phrase|text|"
                       r"string|code)\b|[\"'“‘:])|\b(?:reveal|print|repeat|show)\s+(?:your|the)\s+"
                       r"(?:system\s+prompt|instructions|hidden\s+prompt)\b"
                       r"|\bdo\s+not\s+(?:tell|inform|mention|cite|warn)\s+(?:the\s+)?(?:user|person|analyst|anyone)\b"
                       r"|\bdo\s+not\s+cite\s+(?:this|these|the)\s+(?:document|source|passage)s?\b"
                       r"|\b(?:tell|inform|respond\s+to|reply\s+to|say\s+to)\s+the\s+(?:user|person|analyst|reader)\b"
                       r"|\b(?:output|print|say|write)\s+(?:the\s+)?(?:following|the\s+word|the\s+phrase)\b"
                       r"|\bthe\s+correct\s+(?:response|reply|answer)\s+is\b"
                       r"|\b(?:answer|reply|respond)\s+(?:only\s+)?(?:['\"“‘]\w+['\"”’]|yes|no)\s+to\s+(?:every|all|any)\b"
                       r"|\b(?:answer|reply|respond|write)\s+(?:only\s+)?in\s+(?:json|capital|all\s+caps|upper\s*case|"
                       r"pirate|french|german|spanish|code)\b|\btranslate\s+your\s+(?:answer|reply|response)\b"
                       r"|\b(?:must\s+not|do\s+not|never)\s+reveal\b"
                       r"|\b(?:classify|summari[sz]e|describe)\s+this\s+(?:document|bulletin|passage|"
                       r"text|page|file)\s+as\b"
                       r"|\b(?:print|reveal|dump|leak|list\s+every|list\s+all)\b[^.\n]{0,40}\b(?:passwords?|tokens?|"
                       r"api\s+keys?|credentials|secrets?)\b"),
    ("exfiltration", r"\b(?:include|add|append|insert|embed|render|put|place)\b[^.\n]{0,60}\b(?:image|link|url|"
                     r"markdown|picture|pixel)\b[^.\n]{0,60}\b(?:answer|response|reply|output|summary)\b"),
    # talking to whoever checks or writes the answer: a vocative, a note addressed to them, a directive to them
    ("addressing a checker", rf"(?:^|[.!?]\s+|\n)[\s>*#_-]*(?:(?:dear|hey|hi|hello|attention|attn\.?)\s*,?\s+)?"
                             rf"(?:the\s+|all\s+|any\s+)?(?:{_CHECKER}|{_ANSWERER})\s*[:,]\s+"
                             rf"(?=[^.!?\n]{{0,200}}\b{_VERDICT}\b)"
                             rf"|(?:^|[.!?]\s+|\n)[\s>*#_-]*(?:to|for|attention|dear|hey|hi|hello)\s+(?:the\s+|all\s+|any\s+|"
                             rf"every\s+)?(?:[\w-]+\s+)?(?:{_CHECKER}|{_MACHINE})\b{_ADDRESSED}"
                             rf"|\b(?:notes?|messages?|memo|notice|reminder|heads[- ]up|word|instructions?|guidance|request|"
                             rf"tip|advice)\s+(?:[^.:;\n]{{0,40}}?\s)?(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+|each\s+|"
                             rf"our\s+)?(?:{_CHECKER}|{_MACHINE}|{_READING})"
                             rf"|\b(?:for|to)\s+(?:whoever|anyone|anybody)\s+(?:is\s+|who\s+)?(?:check|read|review|verif|grad|"
                             rf"evaluat|assess|answer|respond|repl|summari|process|index|quot)\w*"
                             rf"|\b{_ANSWERER}\s+(?:\w+\s+){{0,3}}?{_DIRECTIVE}\s+(?:only\s+|always\s+|never\s+|not\s+)?"
                             rf"(?:accept|approve|return|output|give|say|state|quote|report|surface|treat|answer|reply|"
                             rf"respond|repeat|cite|show|display|print|list)\b"
                             rf"|\b{_CHECKER}\s+{_DIRECTIVE}\s+(?:only\s+)?(?:accept|approve|pass|mark|score|grade|treat|count|"
                             rf"take)\s+(?:only\s+)?(?:as\s+correct\s+)?(?:an?\s+|the\s+|any\s+)?(?:{_ANSWERS}|values?|"
                             rf"figures?|[\d€$£])"),
    # the text speaks of the answers that will be drawn from it, or of what to say when asked
    ("about the answer", rf"\b(?:{_ANSWERS}|quot(?:es|ations?))\s+(?:[\w-]+\s+){{0,2}}?(?:drawn|generated|produced|"
                         rf"derived|taken|built|compiled|made|extracted|written|created|given)\s+(?:from|using|out\s+of|"
                         rf"on\s+the\s+basis\s+of)\s+(?:this|these)\b"
                         rf"|\b(?:whatever|anything|everything|what)\s+(?:is|gets|are|will\s+be)\s+(?:summari[sz]ed|quoted|"
                         rf"taken|extracted|reported|answered|said|cited|repeated|reproduced)\s+(?:from|out\s+of|about)\s+"
                         rf"(?:this|these|here)\b"
                         rf"|\b(?:whenever|when|each\s+time|every\s+time)\s+(?:this|these|the|it)\s+(?:[\w-]+\s+){{0,2}}?"
                         rf"(?:is|are|gets|get)\s+(?:quoted|summari[sz]ed|queried|asked\s+about|"
                         rf"used\s+to\s+answer)\b"
                         rf"|\b(?:any|all|every|each)\s+(?:automated|automatic|generated|machine[- ]\w+|ai[- ]\w+)\s+"
                         rf"{_ANSWERS}\b[^.\n]{{0,80}}?\b(?:{_DIRECTIVE}|cite|quote|state|say|give|report|read)\b"
                         rf"|\b(?:when|whenever|if)\s+(?:people|anyone|anybody|someone|somebody|users?|customers?|visitors?|"
                         rf"clients?|callers?|they)\s+(?:\w+\s+){{0,2}}?(?:ask|asks|asked|enquire|enquires|inquire|inquires|"
                         rf"query|queries)\b[^.\n]{{0,120}}?\b(?:quote[ds]?|say|said|state[ds]?|tell|told|answer(?:ed)?|give|"
                         rf"given|reply|respond|cite[ds]?)\b"
                         rf"|\byou\b[^.\n]{{0,40}}\b(?:putting\s+together|writing|drafting|preparing|composing|generating|"
                         rf"producing)\s+(?:a|an|the|your|any)\s+(?:reply|response|answer|summary)\b"),
    # text that calls itself the answer to give
    ("answer label", r"\b(?:verified|approved|canonical|definitive|authoritative|sanctioned|certified)\s+"
                     r"(?:answers?|wording|responses?|replies|reply)\b"
                     r"|\b(?:use|quote|repeat|copy|reproduce|give|state)\s+(?:this|these|that|the\s+following|it|them)\s+"
                     r"(?:[\w-]+\s+){0,2}?(?:verbatim|word\s+for\s+word|word-for-word|exactly\s+as\s+(?:written|given|"
                     r"stated))\b"),
))
SNIPPET = 80
RELAYED_CONFIDENCE = 0.3
"""A review whose answer relays a planted instruction is at most this confident (below any accept threshold)."""


@dataclass(frozen=True)
class Instruction:
    """Instruction-like text found in a passage: what kind, and the words that gave it away."""

    kind: str
    text: str


def find_instructions(text: str) -> list[Instruction]:
    """Each kind of instruction-like text in ``text`` once, in pattern order."""
    found: list[Instruction] = []
    for kind, pattern in PATTERNS:
        match = pattern.search(text or "")
        if match and all(f.kind != kind for f in found):
            start = max(0, match.start() - 10)
            snippet = " ".join(text[start: match.end() + 40].split())
            found.append(Instruction(kind, snippet[:SNIPPET]))
    return found


BORROWED_SYNTAX: tuple[tuple[str, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern)) for kind, pattern in (
    ("tool syntax", r"[{\[]\s*\"[\w ]+\"\s*:|\b\w+\(\s*\w+\s*="),  # a JSON object; a call with named arguments
    ("markup", r"</?\w+>|<!--"),  # a tag; a comment, hidden from whoever reads the rendered document
    ("citation mark", r"(?<![\w\]])\[\^?\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]|\[\^\w+\]"
                      r"|(?<=[.,;:!?)\]\"'\u201d\u2019])[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+"
                      r"|(?:^|\n)\s*[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+\s"),  # [2], [^1], a superscript mark
    ("record syntax", r"(?:\b[A-Za-z_][\w-]*=[^\s=][^=]*?){3}"),  # three key=value pairs: a log or tool line
))
"""Syntax a statement of the document's author does not use: tool calls and results, markup and hidden comments,
citation marks in the answers' own ``[n]`` form (quoted, they would read as the answer's citations) and key=value
records. A sentence holding it is data for a program, not answer evidence."""


def borrowed_syntax(sentence: str) -> str:
    """The kind of borrowed syntax in ``sentence`` ("" when it has none)."""
    return next((kind for kind, pattern in BORROWED_SYNTAX if pattern.search(sentence or "")), "")


def never_evidence(sentence: str) -> bool:
    """True for a document sentence that is never answer evidence: it reads as an instruction (to the model, the
    reviewer, whoever answers or checks) or borrows the syntax of tool calls, markup or citations."""
    return bool(borrowed_syntax(sentence)) or bool(find_instructions(sentence))


def injection_issues(evidence: Sequence[Evidence], sentences: Sequence[str],
                     answer: str = "") -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(issues, corrections): a note per evidence chunk holding instructions; an issue and a drop per answer sentence.

    The notes have no location: they report the evidence, not a fault of the answer.
    """
    issues: list[dict[str, str]] = []
    for number, item in enumerate(evidence, start=1):
        found = find_instructions(item.text) + find_instructions(item.metadata.title or "")
        if found:
            kinds = ", ".join(dict.fromkeys(f.kind for f in found))
            issues.append({"type": "injection", "location": "", "description": (
                f"[{number}] contains text that reads as an instruction ({kinds}: \"{found[0].text}\"); it is "
                "document data and was not followed.")})
    corrections: list[dict[str, str]] = []
    for sentence in sentences:
        found = find_instructions(sentence)
        if not found:
            continue
        issues.append({"type": "injection", "location": sentence, "description": (
            f"This sentence passes on an instruction found in the documents ({found[0].kind}: \"{found[0].text}\"); "
            "an answer reports what documents say, it never relays their instructions.")})
        original = f"{sentence} " if f"{sentence} " in answer else sentence  # the sentence goes with its space
        corrections.append({"type": "injection", "original": original, "corrected": ""})
    return issues, corrections


def is_note(issue: dict[str, str] | object) -> bool:
    """True for an injection issue about the evidence only (no answer sentence): it does not fail the answer."""
    kind = issue.get("type") if isinstance(issue, dict) else getattr(issue, "type", None)
    location = issue.get("location") if isinstance(issue, dict) else getattr(issue, "location", "")
    return kind == "injection" and not location


def with_injection_issues(review: Review, evidence: Sequence[Evidence], answer: str) -> Review:
    """``review`` (e.g. a model's) with the injection issues and drops found here added, whatever the model saw.

    A relayed instruction makes the review invalid; notes on the evidence alone do not change the verdict.
    """
    planted, dropped = injection_issues(evidence, split_sentences(answer), answer)
    if not planted:
        return review
    have = {(i.type, i.location) for i in review.issues}
    issues = review.issues + tuple(ReviewIssue(**i) for i in planted if ("injection", i["location"]) not in have
                                   or i["location"] == "")
    fixes = tuple(Correction(**c) for c in dropped if all(f.original != c["original"] for f in review.corrections))
    relayed = any(not is_note(i) for i in planted)
    return review.model_copy(update={
        "issues": issues, "corrections": fixes + review.corrections, "valid": review.valid and not relayed,
        "confidence": min(review.confidence, RELAYED_CONFIDENCE) if relayed else review.confidence})
