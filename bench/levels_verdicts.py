"""The model-vs-counter error of the five cache-level figures, from what
`cumemlab validate --json` wrote (schema cumemlab-validation: every record's
counters with measured, predicted, lo, hi and verdict), for
`compare_levels.py --verdicts FILE`.

Per experiment and counter: how many values lie inside the model's interval
(exact or within), how many are explained by an entry with its control, how
many are not judged (below the noise floor) and how many are unexplained;
then per counter over every record the error of the point (|model - measured|
/ measured: median, p90, max) and how far outside its interval the worst
value lies. A value outside its interval and its noise floor but within the counter
map's 1%/2% tolerance is counted apart ("tol"), as validate's summary does.
"""
import sys

import results_file

FIGURES = [
    ("L1hit", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"),
    ("L2rd", "lts__t_sectors_srcunit_tex_op_read.sum"),
    ("L2wr", "lts__t_sectors_srcunit_tex_op_write.sum"),
    ("DRAMrd", "dram__bytes_read.sum"),
    ("DRAMwr", "dram__bytes_write.sum"),
]
KINDS = ("inside", "tol", "explained", "not-judged", "unexplained")


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def kind_of(c):
    """The kind of one judged value, or None for a value validate did not judge."""
    v = c.get("verdict")
    if v in ("exact", "within-interval"):
        lo, hi, m = c.get("lo"), c.get("hi"), c.get("measured")
        floor = c.get("floor") if _num(c.get("floor")) else 0
        if _num(lo) and _num(hi) and _num(m) and not lo - floor <= m <= hi + floor:
            return "tol"
        return "inside"
    if v in ("explained", "not-judged", "unexplained"):
        return v
    return None


def percentile(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def outside(c):
    """How far outside [lo, hi] the measured value is, relative to the bound."""
    m, lo, hi = c.get("measured"), c.get("lo"), c.get("hi")
    if not (_num(m) and _num(lo) and _num(hi)):
        return 0.0
    if m < lo:
        return (lo - m) / lo if lo else 0.0
    if m > hi:
        return (m - hi) / hi if hi else float("inf")
    return 0.0


def table(path, markdown=False, out=sys.stdout):
    doc = results_file.load(path)
    if not isinstance(doc, dict) or doc.get("schema") != "cumemlab-validation":
        sys.exit("compare_levels.py: --verdicts %s: not a cumemlab-validation document" % path)
    dev = doc.get("device")
    tally = {}   # exp -> label -> {kind: n}
    errs = {l: [] for l, _ in FIGURES}
    worst = {l: (0.0, None) for l, _ in FIGURES}
    unexplained = []
    for r in doc.get("verdicts") or []:
        if not isinstance(r, dict) or r.get("subject") != "record":
            continue
        exp = str(r.get("experiment"))
        for label, metric in FIGURES:
            c = next((x for x in r.get("counters") or []
                      if isinstance(x, dict) and x.get("name") == metric), None)
            if c is None:
                continue
            k = kind_of(c)
            if k is None:
                continue
            t = tally.setdefault(exp, {}).setdefault(label, dict.fromkeys(KINDS, 0))
            t[k] += 1
            m, p = c.get("measured"), c.get("predicted")
            if k != "not-judged" and _num(m) and _num(p) and m > 0:
                errs[label].append(abs(p - m) / m)
            o = outside(c)
            if k != "not-judged" and o > worst[label][0]:
                worst[label] = (o, "%s %s" % (exp, r.get("variant")))
            if k == "unexplained":
                unexplained.append((exp, str(r.get("variant")), label, m, p, c.get("lo"),
                                    c.get("hi")))
    name = dev.get("name") if isinstance(dev, dict) else dev if isinstance(dev, str) else None
    print("device: %s; %s" % (name or "?", path), file=out)
    cell = lambda t: "%d/%d/%d/%d/%d" % tuple(t[k] for k in KINDS) if t else "-"
    labels = [l for l, _ in FIGURES]
    print("per experiment, each counter: inside/tol/explained/not judged/unexplained", file=out)
    if markdown:
        print("| experiment | " + " | ".join(labels) + " |", file=out)
        print("|---|" + "---|" * len(labels), file=out)
    for exp in sorted(tally):
        cells = [cell(tally[exp].get(l)) for l in labels]
        if markdown:
            print("| %s | %s |" % (exp, " | ".join(cells)), file=out)
        else:
            print("%-14s %s" % (exp, " ".join("%15s" % c for c in cells)), file=out)
    print("\nthe point's error |model - measured| / measured over the judged values, and the "
          "farthest value outside its interval:", file=out)
    for label in labels:
        e = errs[label]
        tot = {k: sum(t.get(label, {}).get(k, 0) for t in tally.values()) for k in KINDS}
        md, p90, mx = percentile(e, 0.5), percentile(e, 0.9), max(e) if e else None
        f = lambda x: "-" if x is None else "%.2f%%" % (100 * x)
        w, where = worst[label]
        judged = sum(tot[k] for k in KINDS if k != "not-judged")
        # the error is over the judged values measured above 0 (a relative
        # error of a 0 has no meaning): fewer than the judged where some are 0
        print("%-7s judged %5d  inside %5d  tol %4d  explained %4d  unexplained %4d  "
              "not judged %4d  error (over %d measured > 0) median %s p90 %s max %s  outside by "
              "at most %s%s" %
              (label, judged, tot["inside"], tot["tol"], tot["explained"], tot["unexplained"],
               tot["not-judged"], len(e), f(md), f(p90), f(mx), f(w) if where else "0",
               (" (" + where + ")") if where else ""), file=out)
    print("\nunexplained (%d):" % len(unexplained), file=out)
    for u in unexplained:
        print("  %-12s %-60s %-6s measured %s model %s [%s, %s]" % (u[0], u[1][:60], *u[2:]),
              file=out)
    return len(unexplained)
