"""Timings per stage (Tracer/Span) and stored runs (TraceStore)."""

from engine.tracing.store import TraceStore, TraceSummary
from engine.tracing.tracer import RecordingTracer, Span, Tracer

__all__ = ["TraceStore", "TraceSummary", "RecordingTracer", "Span", "Tracer"]
