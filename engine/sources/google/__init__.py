"""Google accounts: sign-in, Gmail and Calendar."""
