"""The chat: user turns, mute, and the notification delivery chain."""
