"""Mail sources other than Gmail (IMAP)."""
