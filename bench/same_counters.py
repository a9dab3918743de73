#!/usr/bin/env python3
"""Do two runs of the lab read the same hardware counters, record by record?

    same_counters.py BEFORE.json[.gz] AFTER.json[.gz] [CONTROL.json[.gz]]

BEFORE and AFTER are runs of two builds (before and after a change meant to
leave the kernels alone: issue 21's house); CONTROL is a second run of the
AFTER build, the measured control of what two runs of one build differ by.
Records are matched by (experiment, variant, and, for repeated variants,
their order). Each counter is one of:

  exact   what the kernel's instructions decide: instructions executed,
          L1 requests and sectors, bytes per sector. They must be EQUAL; any
          difference fails (exit 1).
  shared  shared-memory wavefronts and bank conflicts: decided by the
          instructions too, but the counter also takes the extra passes of
          the L1 data pipe that global traffic beside them causes (two runs
          of one build differ by up to 1-2% on the stencils and tiles).
          Where the CONTROL reads the same value twice, the value is the
          kernel's and must be equal before and after (a difference
          fails); where the control itself differs, it is compared like a
          level counter. Without a control they are judged exact.
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
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    seen = defaultdict(int)
    out = {}
    for r in doc.get("records", []):
        key = (r.get("experiment"), r.get("variant"))
        seen[key] += 1
        ctr = {}
        for c in r.get("counters") or []:
            if isinstance(c, dict) and isinstance(c.get("measured"), (int, float)):
                ctr[c["name"]] = c["measured"]
        out[key + (seen[key],)] = ctr
    return doc, out


def rel(a, b):
    if a == b:
        return 0.0
    return abs(b - a) / max(abs(a), abs(b), 1)


def main(argv):
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
    n_level = n_beyond = n_shared_varying = 0
    level_rel = []
    beyond = []
    for k in sorted(set(before) & set(after), key=str):
        b, a = before[k], after[k]
        if set(b) != set(a):
            print("COUNTERS DIFFER %s %s #%d: %s" % (*k, sorted(set(b) ^ set(a))))
            fails += 1
        for name in sorted(set(b) & set(a)):
            kd = kind(name)
            if kd == "shared":
                steady = control is None or (k in control and control[k].get(name) == a[name])
                kd = "exact" if steady else "level"
                n_shared_varying += not steady
            if kd == "exact":
                n_exact += 1
                if b[name] == a[name]:
                    n_exact_same += 1
                else:
                    fails += 1
                    print("EXACT DIFFERS %s %s #%d %s: before %s after %s" %
                          (*k, name, b[name], a[name]))
            elif kd == "level":
                n_level += 1
                d = rel(b[name], a[name])
                level_rel.append(d)
                c = None
                if control is not None and k in control and name in control[k]:
                    c = rel(a[name], control[k][name])
                if c is not None and d > c and abs(a[name] - b[name]) > 0:
                    n_beyond += 1
                    beyond.append((d, c, k, name, b[name], a[name], control[k][name]))
    beyond.sort(reverse=True)
    for d, c, k, name, bv, av, cv in beyond[:25]:
        print("level beyond the control %s %s #%d %s: before %s after %s control %s "
              "(%.2f%% vs control %.2f%%)" % (*k, name, bv, av, cv, 100 * d, 100 * c))
    level_rel.sort()

    def q(p):
        return 100 * level_rel[min(len(level_rel) - 1, int(p * len(level_rel)))] if level_rel else 0

    print("records: before %d, after %d, matched %d" % (len(before), len(after),
                                                         len(set(before) & set(after))))
    print("exact counters: %d of %d equal" % (n_exact_same, n_exact))
    print("shared wavefronts and conflicts that the control read differently twice "
          "(compared as levels): %d" % n_shared_varying)
    print("level counters: %d compared; before->after relative difference median %.3f%%, "
          "p90 %.3f%%, max %.3f%%" % (n_level, q(0.5), q(0.9), q(1.0)))
    if control is not None:
        print("level counters beyond the control's difference for the same record: %d of %d"
              % (n_beyond, n_level))
    print("SAME COUNTERS" if fails == 0 else "DIFFERENT: %d finding(s)" % fails)
    return 0 if fails == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
