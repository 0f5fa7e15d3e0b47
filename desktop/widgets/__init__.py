"""Small reusable widgets: icons, dialogs, QR codes."""
