#!/usr/bin/env python3
"""Compare the records of two cumemlab results files, field by field.

    python3 bench/compare_model_json.py OLD.json NEW.json [--allow FIELD ...]

Every leaf of every record (the model under both rule sets, the cache levels,
parameters, bytes, extras, findings) is compared; the files' headers (command
line, diagnostics) are not. `"sample": null` in NEW where OLD, written before
sampled models, has no `sample` counts as equal: it says the model is exact.
A record whose model NEW sampled (`model.sample` an object) is compared
figure by figure against its half-width instead: OLD's figure must lie within
it. --allow names leaf fields that may differ (e.g. model_blocks_traced, how
many blocks the model traced). Prints a summary and up to 20 differences;
exits 1 when a field differs that is not allowed to.
"""
import json
import sys

RATIOS = ("sectors_per_request", "efficiency")


def leaves(x, path, out):
    if isinstance(x, dict):
        for k, v in x.items():
            leaves(v, path + "." + k, out)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            leaves(v, "%s[%d]" % (path, i), out)
    else:
        out[path] = x


def within(old, new, where):
    """Sampled figures against their half-widths; returns differences."""
    bad = []
    s = new["model"]["sample"]
    for rules in ("modern", "fermi"):
        for cls, t in new["model"][rules].items():
            for field, v in t.items():
                if field in RATIOS:
                    continue
                truth = old["model"][rules].get(cls, {}).get(field, 0)
                half = s["half_width"][rules][cls][field]
                if abs(v - truth) > half:
                    bad.append("%s.model.%s.%s.%s: %r outside %r +- %r" %
                               (where, rules, cls, field, v, truth, half))
    return bad


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    allow = set(argv[argv.index("--allow") + 1:]) if "--allow" in argv else set()
    old, new = (json.load(open(f)) for f in argv[1:3])
    ro, rn = old["records"], new["records"]
    diffs, allowed, fields, sampled = [], 0, 0, 0
    if len(ro) != len(rn):
        diffs.append("records: %d / %d" % (len(ro), len(rn)))
    for i, (a, b) in enumerate(zip(ro, rn)):
        where = "records[%d] (%s)" % (i, b.get("variant", ""))
        if b.get("model") and b["model"].get("sample"):
            sampled += 1
            diffs += within(a, b, where)
            a = dict(a, model=None, finding=None, extra=None, bytes_read=None,
                     bytes_written=None)
            b = dict(b, model=None, finding=None, extra=None, bytes_read=None,
                     bytes_written=None)
        fa, fb = {}, {}
        leaves(a, "", fa)
        leaves(b, "", fb)
        if ".model.sample" in fb and fb[".model.sample"] is None and ".model.sample" not in fa:
            del fb[".model.sample"]
        for k in sorted(set(fa) | set(fb)):
            fields += 1
            va, vb = fa.get(k, "<absent>"), fb.get(k, "<absent>")
            if va == vb:
                continue
            if k.split(".")[-2 if k.endswith(".value") else -1] in allow:
                allowed += 1
                continue
            diffs.append("%s%s: %r / %r" % (where, k, va, vb))
    print("%s vs %s: %d records (%d sampled, checked against their bounds), %d fields, "
          "%d differ%s" % (argv[1], argv[2], len(rn), sampled, fields, len(diffs),
                           ", %d allowed to" % allowed if allowed else ""))
    for d in diffs[:20]:
        print("  " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
