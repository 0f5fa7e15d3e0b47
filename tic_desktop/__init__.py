"""TIC Desktop's launcher: the one place above both the engine and the desktop app."""
