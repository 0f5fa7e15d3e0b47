"""The chat window and its Markdown rendering."""
