"""The user's accounts: configuration, the kinds of account, and their secrets."""
