"""Timings per stage (Tracer/Span) and stored runs (TraceStore)."""

from engine.tracing.stats import TraceStats, trace_stats
from engine.tracing.store import TraceStore, TraceSummary
from engine.tracing.tracer import RecordingTracer, Span, Tracer

__all__ = ["TraceStats", "trace_stats", "TraceStore", "TraceSummary", "RecordingTracer", "Span", "Tracer"]
