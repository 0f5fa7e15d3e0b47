"""TIC: deciding which events are worth an interruption, under the user's rules."""
