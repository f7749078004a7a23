"""C4.5-rules: extract paths, drop conditions, select subsets by MDL, order, sift."""
