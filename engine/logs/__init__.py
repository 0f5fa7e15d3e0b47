"""The workspace's log: where records go, for the tray app and the command line alike
(``setup``), and the file handler that never fails what TIC is doing (``file``)."""
