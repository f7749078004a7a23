"""Parsers for the reference outputs of c4.5 / c4.5rules in ../shared/reference (tests and bench)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(os.environ.get("C45RULES_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data"
REF = SHARED / "reference" / "c45r8"
OPTIONS = SHARED / "reference" / "c45r8-options"     # -t 10 and -p runs (EXTRA.md)


def stem(name: str) -> str:
    """Path stem of a shared dataset."""
    return str(DATA / name / name)


def option_sets(kind: str) -> list[str]:
    """Datasets with a c45r8-options/NAME.KIND.txt reference (kind: tree_t10, rules_t10, tree_p)."""
    return sorted(p.name[:-len(f".{kind}.txt")] for p in OPTIONS.glob(f"*.{kind}.txt"))


def windowing_text(name: str) -> str:
    """c4.5 -t 10's output from the first trial on, "Best tree from trial K" without "saved"."""
    t = (OPTIONS / f"{name}.tree_t10.txt").read_text()
    return t[t.index("--------\nTrial 0"):].replace(" saved\n", "\n")


def soft_cuts(name: str) -> list[tuple[str, str, str, str]]:
    """c4.5 -p's "Softening thresholds" (NAME.tree_p.txt): (attribute, cut, lower, upper) of every
    cut of the pruned tree, as printed (%g) and in c4.5's order (depth first)."""
    t = (OPTIONS / f"{name}.tree_p.txt").read_text()
    section = t[t.index("Softening thresholds"):]
    return re.findall(r"^Test (.+) <> (\S+)\n\tLower = (\S+), Upper = (\S+)$", section, flags=re.M)


def soft_tree_text(name: str) -> str:
    """The pruned tree c4.5 -p prints with its `[lower,upper]` bands, from its "Decision Tree:"
    heading to "Tree saved" (`[Sk]` subtrees as printed)."""
    t = (OPTIONS / f"{name}.tree_p.txt").read_text()
    start = t.index("Decision Tree:", t.index("Softening thresholds"))
    return t[start:t.index("Tree saved")]


def undated(text: str) -> str:
    """c4.5rules' output with the run date of its banner taken out (the one line no rerun repeats)."""
    return re.sub(r"^(C4\.5 \[release 8\] rule generator\t).*$", r"\1", text, count=1, flags=re.M)


def composite_text(name: str) -> str:
    """c4.5rules' whole output on the trees of c4.5 -t 10 (NAME.rules_t10.txt), undated."""
    return undated((OPTIONS / f"{name}.rules_t10.txt").read_text())


def datasets() -> list[str]:
    """Names of every shared dataset."""
    return sorted(p.name for p in DATA.iterdir() if p.is_dir() and (p / f"{p.name}.names").exists())


def _expand(block: str, subtrees: dict[str, list[str]]) -> list[str]:
    out = []
    for line in block.splitlines():
        m = re.match(r"^(.*?)\[(S\d+)\]\s*$", line)
        if m:
            out.append(m.group(1).rstrip() if m.group(1).endswith(" :") else m.group(1))
            depth = m.group(1).count("|   ") + 1
            out.extend("|   " * depth + sub for sub in _expand("\n".join(subtrees[m.group(2)]), subtrees))
        elif line.strip():
            out.append(line)
    return out


def tree_text(name: str, pruned: bool = False) -> str | None:
    """The printed unpruned (or pruned) tree with `[Sn]` subtrees expanded inline."""
    path = REF / f"{name}.tree.txt"
    if not path.exists():
        return None
    t = path.read_text()
    start = t.index("Decision Tree:") + len("Decision Tree:")
    body = t[start:]
    if pruned:
        if "Simplified Decision Tree:" not in t:
            pass
        else:
            body = t[t.index("Simplified Decision Tree:") + len("Simplified Decision Tree:"):]
    else:
        if "Simplified Decision Tree:" in body:
            body = body[: body.index("Simplified Decision Tree:")]
    body = body[: body.index("Tree saved")] if "Tree saved" in body else body
    parts = re.split(r"^Subtree \[(S\d+)\]\s*$", body, flags=re.M)
    main, subtrees = parts[0], {}
    for i in range(1, len(parts), 2):
        subtrees[parts[i]] = [ln for ln in parts[i + 1].splitlines() if ln.strip()]
    return "\n".join(_expand(main, subtrees))


@dataclass
class RefRule:
    id: int
    conditions: list[str]
    klass: str
    confidence: str


@dataclass
class RefRules:
    rules: list[RefRule]
    default: str
    train_errors: int | None
    test_errors: int | None
    dropped: list[int]


def rules(name: str) -> RefRules | None:
    """The final ruleset c4.5rules printed (after 'Drop rule' sifting) and its error counts."""
    path = REF / f"{name}.rules.txt"
    if not path.exists():
        return None
    t = path.read_text()
    if "Final rules" not in t:
        return None
    final = t[t.index("Final rules"):t.index("Default class:")]
    out = []
    for m in re.finditer(r"Rule (\d+):\n(.*?)\n\t->  class (.*?)  \[(\d+\.\d)%\]", final, re.S):
        conds = [c.strip() for c in m.group(2).splitlines() if c.strip()]
        out.append(RefRule(int(m.group(1)), conds, m.group(3), m.group(4)))
    default = re.search(r"Default class: (.*)", t).group(1).strip()
    dropped = [int(x) for x in re.findall(r"Drop rule (\d+)", t)]
    kept = [r for r in out if r.id not in dropped]
    tests = re.findall(r"Tested (\d+), errors (\d+)", t)
    train = int(tests[-2 if "test data" in t else -1][1]) if tests else None
    test = int(tests[-1][1]) if "Evaluation on test data" in t else None
    return RefRules(kept, default, train, test, dropped)


def tree_summary() -> dict[str, dict]:
    """SUMMARY.md's tree table as {dataset: {column: value}}."""
    t = (SHARED / "reference" / "SUMMARY.md").read_text()
    sec = t[t.index("## C4.5 R8 trees"):t.index("## C4.5 R8 rulesets")]
    rows = [ln for ln in sec.splitlines() if ln.startswith("| ") and not ln.startswith("| dataset")]
    keys = ["train", "test", "u_size", "u_train", "u_test", "p_size", "p_train", "p_test", "estimate", "wall"]
    out = {}
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        out[cells[0]] = dict(zip(keys, cells[1:]))
    return out


def rules_summary() -> dict[str, dict]:
    """SUMMARY.md's c4.5rules table as {dataset: {column: value}}."""
    t = (SHARED / "reference" / "SUMMARY.md").read_text()
    sec = t[t.index("## C4.5 R8 rulesets"):t.index("## C5.0")]
    rows = [ln for ln in sec.splitlines() if ln.startswith("| ") and not ln.startswith("| dataset")]
    keys = ["rules", "conditions", "default", "train_err", "test_err", "wall"]
    out = {}
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        out[cells[0]] = dict(zip(keys, cells[1:]))
    return out


# ---- R rpart 4.1.19 (../shared/reference/rpart, see EXTRA.md) ----------------------------------
RPART = SHARED / "reference" / "rpart"
# the three controls of each rpart reference file: its heading -> our cart options
RPART_CONTROLS = {
    "default": {},
    "no surrogates": {"usesurrogate": 0, "maxsurrogate": 0},
    "full tree": {"cp": 0.0, "minsplit": 2, "minbucket": 1},
}


def rpart_datasets() -> list[str]:
    """Names of the datasets with an rpart reference file."""
    return sorted(p.name.split(".")[0] for p in RPART.glob("*.rpart.txt"))


def rpart_blocks(name: str) -> dict[str, str]:
    """{control heading: its printed block} of NAME.rpart.txt."""
    text = (RPART / f"{name}.rpart.txt").read_text()
    out = {}
    for block in re.split(r"^===== ", text, flags=re.M)[1:]:
        out[block.split(" (")[0]] = block
    return out


def rpart_summary(name: str) -> dict[str, dict[str, int | None]]:
    """{control: {'leaves', 'train_errors', 'test_errors'}} (test_errors None without NAME.test)."""
    out = {}
    for control, block in rpart_blocks(name).items():
        def count(key: str) -> int | None:
            m = re.search(rf"^{key} (\d+)", block, re.M)
            return int(m.group(1)) if m else None
        out[control] = {"leaves": count("leaves"), "train_errors": count("train_errors"),
                        "test_errors": count("test_errors")}
    return out


def rpart_nodes(name: str, control: str) -> list[tuple[int, str, int, int, str]]:
    """The printed tree's nodes: (number, split as printed, n, loss, yval)."""
    nodes = []
    for line in rpart_blocks(name)[control].splitlines():
        m = re.match(r"^\s*(\d+)\) (root|V\d+(?:< \S+|>=\S+|=\S+)) (\d+)\s+(\d+) (.*?) \(", line)
        if m:
            nodes.append((int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)), m.group(5)))
    return nodes


# ---- Weka 3.6.14 J48 (../shared/reference/j48, see EXTRA.md) -------------------------------------
J48 = SHARED / "reference" / "j48"
# each reference file's option suffix -> our j48 grower's options (cf and min_objs as -C and -M)
J48_OPTIONS = {
    "default": {},
    "U": {"unpruned": True},
    "B": {"binary_splits": True},
    "R": {"reduced_error_pruning": True, "folds": 3, "seed": 1},
    "S": {"subtree_raising": False},
    "J": {"mdl_correction": False},
    "M5C0.1": {"min_objs": 5, "cf": 0.1},
}


def j48_datasets() -> list[str]:
    """Names of the datasets with J48 reference files."""
    return sorted({p.name.split(".j48_")[0] for p in J48.glob("*.j48_*.txt")})


def j48_summary(name: str, option: str) -> dict[str, int | None]:
    """{'leaves', 'size', 'train_errors', 'test_errors'} J48 printed for NAME with OPTION
    (test_errors None when it was run without a test file)."""
    text = (J48 / f"{name}.j48_{option}.txt").read_text()

    def after(pattern: str, block: str) -> int | None:
        m = re.search(pattern, block, re.M)
        return int(float(m.group(1))) if m else None

    def incorrect(heading: str) -> int | None:
        at = text.find(f"=== {heading} ===")
        if at < 0:
            return None
        return after(r"^Incorrectly Classified Instances\s+(\S+)", text[at:])
    return {"leaves": after(r"^Number of Leaves\s*:\s*(\d+)", text),
            "size": after(r"^Size of the tree\s*:\s*(\d+)", text),
            "train_errors": incorrect("Error on training data"),
            "test_errors": incorrect("Error on test data")}
