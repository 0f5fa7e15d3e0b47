"""The agent loop: schema-constrained actions, definitions, transcripts, tools."""
