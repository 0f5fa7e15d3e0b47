"""WhatsApp: chat exports and the live (opt-in) client."""
