"""The C4.5 tree: grow (gain ratio, thresholds, unknowns) then prune (pessimistic)."""
