"""Governing rules after learning: re-score an edited model on data, compare two models."""
