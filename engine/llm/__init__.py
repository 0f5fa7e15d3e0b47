"""Language model backends behind one small async contract (:class:`LanguageModel`)."""

from engine.llm.base import Completion, JsonSchema, LanguageModel, Message, Role, TokenCallback

__all__ = ["Completion", "JsonSchema", "LanguageModel", "Message", "Role", "TokenCallback"]
