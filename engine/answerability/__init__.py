"""Answerability: does the retrieved evidence answer the question? Decided before drafting, with its signals."""

from engine.answerability.evaluator import AnswerabilityEvaluator, fuzzy_in, refusal_text
from engine.answerability.question import QuestionFocus, analyse, answer_type

__all__ = ["AnswerabilityEvaluator", "QuestionFocus", "analyse", "answer_type", "fuzzy_in", "refusal_text"]
