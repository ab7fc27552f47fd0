"""The reasoning pipeline and its options."""

from engine.pipeline.options import AskOptions
from engine.pipeline.pipeline import Pipeline
from engine.tracing.stats import STAGES

__all__ = ["AskOptions", "Pipeline", "STAGES"]
