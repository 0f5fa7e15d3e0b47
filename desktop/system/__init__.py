"""The desktop environment around the app: XDG entries (menu, autostart) and Qt's preflight."""
