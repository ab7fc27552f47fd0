"""The reasoning pipeline and its options."""

from engine.pipeline.options import AskOptions
from engine.pipeline.pipeline import STAGES, Pipeline

__all__ = ["AskOptions", "Pipeline", "STAGES"]
