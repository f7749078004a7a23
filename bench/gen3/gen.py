"""Time generalise_rules alone on a snapshot (snap.py); print seconds and a digest of the result."""
import hashlib, pickle, sys, time
from c45rules.rules.generalize import generalise_rules
tree, data, kw = pickle.load(open(sys.argv[1], "rb"))
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 1
jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
kw["jobs"] = jobs
for _ in range(reps):
    t, c0 = time.perf_counter(), time.process_time()
    c = generalise_rules(tree, data, **kw)
    dt = time.perf_counter() - t; cpu = time.process_time() - c0
    h = hashlib.sha1(repr([(r.leaf if hasattr(r,'leaf') else None, r) for r in c]).encode()).hexdigest()[:12]
    print(f"{dt:.2f}s cpu {cpu:.2f}s {len(c)} rules {h}", flush=True)
