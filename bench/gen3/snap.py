"""Pickle generalise_rules' inputs for STEM (after grow+prune), for timing generalise alone."""
import pickle, sys
import c45rules.pipeline as pipeline
from c45rules.data.names import load_stem
stem, out = sys.argv[1], sys.argv[2]
def grab(tree, data, **kw):
    with open(out, "wb") as f:
        pickle.dump((tree, data, kw), f, protocol=5)
    raise SystemExit(0)
pipeline.generalise_rules = grab
train, _ = load_stem(stem, test=True)
pipeline.fit_dataset(train)
