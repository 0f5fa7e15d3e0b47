"""Native notifications (toasts), with fallbacks."""
