"""The single-instance channel between front ends and the engine that holds the workspace."""
