"""Scheduled jobs: reminders and agent tasks delivered through notify."""
