"""The store: peewee models on SQLite (WAL), versioned migrations, injectable database."""

from engine.store.base import database
from engine.store.db import close_database, open_database
from engine.store.models import (
    AgentRun,
    ChatMessage,
    ChatSession,
    ChatToolCall,
    EventRecord,
    Job,
    Notification,
    SourceCursor,
)

__all__ = [
    "AgentRun",
    "ChatMessage",
    "ChatSession",
    "ChatToolCall",
    "EventRecord",
    "Job",
    "Notification",
    "SourceCursor",
    "close_database",
    "database",
    "open_database",
]
