"""Subset tests for discrete attributes (c4.5 -s, spec 2.4)."""
from __future__ import annotations


def subset_test(table, cases, min_objs, gain_ratio):
    raise NotImplementedError("subset tests are not implemented yet")
