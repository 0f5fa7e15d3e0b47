"""Sources turn the user's accounts into canonical events in the store, incrementally."""

from engine.sources.base import Batch, NeedsSignIn, Source, SourceError, TransientError

__all__ = ["Batch", "NeedsSignIn", "Source", "SourceError", "TransientError"]
