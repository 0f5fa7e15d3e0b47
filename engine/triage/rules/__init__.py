"""The user's rules file: parsed, edited, and compiled into conditions."""
