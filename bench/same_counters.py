#!/usr/bin/env python3
"""Do two runs of the lab read the same hardware counters, record by record?

    same_counters.py BEFORE AFTER [CONTROL]
    same_counters.py --extract RESULTS.json[.gz] OUT.counters.tsv.gz

Each of BEFORE, AFTER, CONTROL is a results file (.json, .json.gz) or its
extract (.counters.tsv.gz: what a comparison reads, small enough to keep
where a whole results file is not).

BEFORE and AFTER are runs of two builds (before and after a change meant to
leave the kernels alone: issue 21's house); CONTROL is a second run of the
AFTER build, the measured control of what two runs of one build differ by.
Records are matched by (experiment, variant, and, for repeated variants,
their order). Each counter is one of:

  exact   what the kernel's instructions decide: instructions executed,
          L1 requests and sectors, bytes per sector. They must be EQUAL; any
          difference fails (exit 1).
  shared  shared-memory wavefronts and bank conflicts: decided by the
          instructions too, but the counter also takes extra passes of the
          L1 data pipe that vary from run to run (two runs of one build on
          an H100 differ by a few wavefronts in a million on async-copy's
          tiles, whose kernels no change touched, and by up to 1-2% on the
          stencils). They are compared like the levels, beside the control,
          and listed on their own.
  level   what the caches decide (L1 hits, L2 sectors, DRAM bytes): they
          vary from run to run. A before/after difference is printed
          against the control's difference for the same record and counter;
          one larger than the control's is listed as "beyond the control"
          (reported, not judged: the control is one more run, not a bound).
  info    cycles and throughput percentages: not compared.

Records present on one side only fail too. Prints a summary last.
"""
import gzip
import json
import sys
from collections import defaultdict

EXACT_PREFIX = ("smsp__inst_executed", "l1tex__t_requests", "smsp__sass_average")
SHARED_PREFIX = ("l1tex__data_bank_conflicts", "l1tex__data_pipe_lsu_wavefronts")
TSV_HEADER = ["experiment", "variant", "occurrence", "counters"]
LEVEL_PREFIX = ("lts__", "dram__bytes", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup")


def kind(name):
    if name.startswith("l1tex__t_sectors"):
        return "level" if "lookup" in name else "exact"
    if name.startswith(EXACT_PREFIX):
        return "exact"
    if name.startswith(SHARED_PREFIX):
        return "shared"
    if name.startswith(LEVEL_PREFIX):
        return "level"
    return "info"


def load(path):
    """A results file (cumemlab-results JSON, gzip or not), or the extract
    same-counters.sh keeps of one: a TSV of experiment, variant, the
    variant's occurrence (1, 2, ... for repeated variants) and its measured
    counters as NAME=VALUE separated by spaces (none: not profiled)."""
    opener = gzip.open if path.endswith(".gz") else open
    out = {}
    if ".tsv" in path:
        with opener(path, "rt", encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            if header != TSV_HEADER:
                raise SystemExit("%s: not a counters extract (header %r)" % (path, header))
            for line in f:
                exp, var, occ, ctrs = line.rstrip("\n").split("\t")
                ctr = out.setdefault((exp, var, int(occ)), {})
                for item in ctrs.split():
                    name, value = item.split("=", 1)
                    ctr[name] = float(value) if "." in value or "e" in value else int(value)
        return None, out
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    seen = defaultdict(int)
    for r in doc.get("records", []):
        key = (r.get("experiment"), r.get("variant"))
        seen[key] += 1
        ctr = {}
        for c in r.get("counters") or []:
            if isinstance(c, dict) and isinstance(c.get("measured"), (int, float)):
                ctr[c["name"]] = c["measured"]
        out[key + (seen[key],)] = ctr
    return doc, out


def extract(src, dst):
    """Write the TSV extract of results file src to dst (gzip if .gz)."""
    _, recs = load(src)
    opener = gzip.open if dst.endswith(".gz") else open
    with opener(dst, "wt", encoding="utf-8") as f:
        f.write("\t".join(TSV_HEADER) + "\n")
        for (exp, var, occ), ctr in recs.items():
            clean = lambda t: str(t).replace("\t", " ").replace("\n", " ")
            f.write("%s\t%s\t%d\t%s\n" % (clean(exp), clean(var), occ, " ".join(
                "%s=%r" % (name, value) for name, value in ctr.items())))


def rel(a, b):
    if a == b:
        return 0.0
    return abs(b - a) / max(abs(a), abs(b), 1)


def main(argv):
    if len(argv) == 4 and argv[1] == "--extract":
        extract(argv[2], argv[3])
        return 0
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    _, before = load(argv[1])
    adoc, after = load(argv[2])
    control = load(argv[3])[1] if len(argv) == 4 else None
    fails = 0
    only = sorted(set(before) ^ set(after))
    for k in only:
        print("ONLY IN %s: %s %s #%d" % ("BEFORE" if k in before else "AFTER", *k))
    fails += len(only)
    n_exact = n_exact_same = 0
    n_level = n_beyond = 0
    one_side = []
    shared_diffs = []
    control_rel = []
    by_exp = defaultdict(lambda: ([], []))
    level_rel = []
    beyond = []
    for k in sorted(set(before) & set(after), key=str):
        b, a = before[k], after[k]
        if not b or not a:
            # Profiled in one run only: peak-bandwidth profiles the best
            # shape of each class, which the timing picks run by run.
            if b or a:
                one_side.append(k)
            continue
        # A cache-level counter that reads 0 is left out of the record.
        names = set(b) | set(a)
        missing = sorted(n for n in set(b) ^ set(a) if kind(n) not in ("level", "shared"))
        if missing:
            print("COUNTERS DIFFER %s %s #%d: %s" % (*k, missing))
            fails += 1
        for name in sorted(names - set(missing)):
            kd = kind(name)
            bv, av = b.get(name, 0), a.get(name, 0)
            if kd == "shared":
                if bv != av:
                    shared_diffs.append((rel(bv, av), k, name, bv, av,
                                         control.get(k, {}).get(name, 0) if control else None))
                kd = "level"
            if kd == "info":
                continue
            if kd == "exact":
                n_exact += 1
                if bv == av:
                    n_exact_same += 1
                else:
                    fails += 1
                    print("EXACT DIFFERS %s %s #%d %s: before %s after %s" % (*k, name, bv, av))
            else:
                n_level += 1
                d = rel(bv, av)
                level_rel.append(d)
                by_exp[k[0]][0].append(d)
                c = None
                if control is not None and control.get(k):
                    cv = control[k].get(name, 0)
                    c = rel(av, cv)
                if c is not None:
                    control_rel.append(c)
                    by_exp[k[0]][1].append(c)
                if c is not None and d > c:
                    n_beyond += 1
                    beyond.append((d, c, k, name, bv, av, cv))
    beyond.sort(reverse=True)
    for d, c, k, name, bv, av, cv in beyond[:25]:
        print("level beyond the control %s %s #%d %s: before %s after %s control %s "
              "(%.2f%% vs control %.2f%%)" % (*k, name, bv, av, cv, 100 * d, 100 * c))
    level_rel.sort()
    control_rel.sort()

    def q(p, v=None):
        v = level_rel if v is None else v
        return 100 * v[min(len(v) - 1, int(p * len(v)))] if v else 0

    # Per experiment: is the before/after spread of the levels the control's?
    print("%-16s %6s %22s %22s" % ("experiment", "levels", "before->after p50/p90 %",
                                   "control p50/p90 %"))
    for e in sorted(by_exp):
        d, c = sorted(by_exp[e][0]), sorted(by_exp[e][1])
        print("%-16s %6d %11.3f %10.3f %11.3f %10.3f" % (e, len(d), q(0.5, d), q(0.9, d),
                                                         q(0.5, c), q(0.9, c)))
    print("records: before %d, after %d, matched %d" % (len(before), len(after),
                                                         len(set(before) & set(after))))
    print("exact counters: %d of %d equal" % (n_exact_same, n_exact))
    shared_diffs.sort(reverse=True)
    for d, k, name, bv, av, cv in shared_diffs[:15]:
        print("shared differs %s %s #%d %s: before %s after %s control %s (%.4f%%)" %
              (*k, name, bv, av, cv, 100 * d))
    for k in one_side:
        print("profiled in one run only: %s %s #%d" % k)
    print("records profiled in one run only (not compared): %d" % len(one_side))
    print("shared wavefronts and conflicts differing before/after: %d (largest %.4f%%); "
          "compared with the levels" % (len(shared_diffs),
                                        100 * shared_diffs[0][0] if shared_diffs else 0))
    print("level counters: %d compared; before->after relative difference median %.3f%%, "
          "p90 %.3f%%, max %.3f%%" % (n_level, q(0.5), q(0.9), q(1.0)))
    if control is not None:
        print("the control (after, then after again): median %.3f%%, p90 %.3f%%, max %.3f%%"
              % (q(0.5, control_rel), q(0.9, control_rel), q(1.0, control_rel)))
        print("level counters whose before/after difference exceeds the control's for the "
              "same record: %d of %d (runs that differ only by chance exceed it about half "
              "the time where either differs)" % (n_beyond, n_level))
    print("SAME COUNTERS" if fails == 0 else "DIFFERENT: %d finding(s)" % fails)
    return 0 if fails == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
