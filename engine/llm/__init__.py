"""Language model backends behind one small async contract (:class:`LanguageModel`)."""

from engine.llm.base import Completion, LanguageModel, Message, TokenCallback

__all__ = ["Completion", "LanguageModel", "Message", "TokenCallback"]
