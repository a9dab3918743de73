#!/usr/bin/env python3
"""The cache-level model against measured counters, record by record.

Usage: bench/compare_levels.py [RESULTS.json[.gz]] [--cumemlab PATH] [--registry FILE]
                               [--only EXP,...] [--all] [--markdown]
       bench/compare_levels.py --validate VALIDATE.txt [...]
       bench/compare_levels.py --verdicts VALIDATE.json[.gz] [--markdown]

The third form reads what `cumemlab validate --json` wrote, every record
at both footprints with the model's interval, and prints the error table of
the five cache-level figures by the verdicts validate gave
(levels_verdicts.py): no model is run.

The registry (each experiment's validate settings and the differences
docs/model-evidence.md explains) is read from `cumemlab list --json`
(schema cumemlab-registry, docs/json-schema.md): from FILE with --registry,
else by running the cumemlab binary the script uses for the model.

The second form reads the text `cumemlab validate` prints (its rows give the
five counters as L1hit, L2rd, L2wr in sectors and DRAMrd, DRAMwr in MiB; a
counter that read 0 is left out) and runs the model as validate does: each
experiment's validate settings (the registry's) at 32 MiB per array.

For every record of a measured results file (default: the H100 suite,
bench/results/h100/2026-11-24-suite.json.gz) that carries the cache counters,
runs `cumemlab model EXPERIMENT --<param> <value> ...` with the record's own
parameters (the model alone, on the machine running this script; the device
the results come from must match the model's default, an H100, or the
numbers mean little), finds the record of the same variant and prints, for
each of the five counters, model vs measured and the difference:

  L1hit  l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum  vs levels.l1_hit_sectors
  L2rd   lts__t_sectors_srcunit_tex_op_read.sum                     vs levels.l2_read_sectors
  L2wr   lts__t_sectors_srcunit_tex_op_write.sum                    vs levels.l2_write_sectors
  DRAMrd dram__bytes_read.sum                                       vs levels.dram_read_bytes
  DRAMwr dram__bytes_write.sum                                      vs levels.dram_write_bytes

then, per experiment and counter, how many records agree by the rules
`cumemlab validate` applies (docs/model.md, the cache levels): L1 hits and L2
read sectors within 1% of the load sectors the kernel asks for, L2 write
sectors within 1% of its store sectors, DRAM bytes within 2% (floors: 1024
sectors, 256 KiB), DRAM judged only for footprints of at least 4x L2 or at
most L2/4 (elsewhere shown with ~ and counted apart). Records are listed
only where a judged counter misses, unless --all.
"""
import json
import os
import subprocess
import sys
import tempfile

import results_file

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

COUNTERS = [
    ("L1hit", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "l1_hit_sectors", 0.01, 1024),
    ("L2rd", "lts__t_sectors_srcunit_tex_op_read.sum", "l2_read_sectors", 0.01, 1024),
    ("L2wr", "lts__t_sectors_srcunit_tex_op_write.sum", "l2_write_sectors", 0.01, 1024),
    ("DRAMrd", "dram__bytes_read.sum", "dram_read_bytes", 0.02, 262144),
    ("DRAMwr", "dram__bytes_write.sum", "dram_write_bytes", 0.02, 262144),
]


def sectors(model, classes):
    modern = model.get("modern") or {}
    return sum((modern.get(c) or {}).get("sectors", 0) for c in classes)

# Experiments whose parameters are not all command-line options of `model`.
SKIP = {"device-facts", "transfers", "peak-bandwidth"}

def load_registry(cumemlab, path):
    """The registry as `cumemlab list --json` writes it: from `path`, else by
    running `cumemlab`. Exits with one line when it cannot be read."""
    if path:
        try:
            with open(path) as f:
                reg = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit("compare_levels.py: --registry %s: %s" % (path, e))
    else:
        p = subprocess.run([cumemlab, "list", "--json", "-"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit("compare_levels.py: %s list --json -: %s" %
                     (cumemlab, (p.stderr.strip().splitlines() or ["failed"])[-1]))
        reg = json.loads(p.stdout)
    if reg.get("schema") != "cumemlab-registry" or reg.get("schema_version") != 2:
        sys.exit("compare_levels.py: not a cumemlab-registry version 2 document")
    return reg


def load_explained(registry):
    """{experiment: [(variant_has or None, metric_has, signed bound, section)]}: each
    validate spec's explained differences, then those validate applies to every
    experiment (the registry's explained_everywhere), in the order validate
    tries them. The bound is signed by its direction (+ excess, - deficit). A
    `control` is not checked here (a results file holds no control runs): the
    entry applies as its bound says."""
    out = {}
    every = registry.get("explained_everywhere", [])
    for e in registry["experiments"]:
        if not e.get("validate"):
            continue
        for x in e["validate"].get("explained", []) + every:
            sign = 1.0 if x["direction"] == "excess" else -1.0
            out.setdefault(e["key"], []).append((x["variant_has"], x["metric_has"],
                                                 sign * float(x["bound"]), x["section"]))
    return out


def validate_settings(registry):
    """{experiment: [settings, ...]}: the runs `cumemlab validate` makes, each
    "name=list ..." as the model takes it on the command line ("": the default
    sweep)."""
    return {e["key"]: list(e["validate"]["settings"])
            for e in registry["experiments"] if e.get("validate")}


def explained_by(entries, variant, metric, meas, pred, ref):
    """The section of the first entry that explains the difference, or None
    (cml_explained_diff semantics, src/lab/experiment.h: f > 0 an excess of at
    most f * ref, f < 0 a deficit of at most -f * ref)."""
    for v, m, f, sec in entries:
        if v and v not in variant:
            continue
        if m not in metric:
            continue
        if f > 0 and not (meas > pred and meas - pred <= f * ref):
            continue
        if f < 0 and not (meas < pred and pred - meas <= -f * ref):
            continue
        return sec
    return None


def validate_records(path, cumemlab, cache, settings):
    """Pseudo-records (experiment, variant, measured counters, model record)
    from a validate text and the model run with validate's settings
    ({experiment: [settings, ...]}, validate_settings())."""
    import re
    names = {"L1hit": COUNTERS[0][1], "L2rd": COUNTERS[1][1], "L2wr": COUNTERS[2][1],
             "DRAMrd": COUNTERS[3][1], "DRAMwr": COUNTERS[4][1]}
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"^(\S+)\s+(.*?)\s+((?:ld|st|sld|sst|lld|lst)\.\S+ .*|L2wr .*)=>", line)
            if not m or m.group(1) not in settings:
                continue
            exp, variant, body = m.group(1), m.group(2).strip(), m.group(3)
            counters = []
            for label, metric in names.items():
                v = re.search(r"\b%s (\d+(?:\.\d+)?)(MiB)?" % label, body)
                if v:
                    val = float(v.group(1)) * (1048576.0 if v.group(2) else 1.0)
                    counters.append({"name": metric, "measured": val})
            out.append({"experiment": exp, "variant": variant, "state": "ok",
                        "counters": counters, "params": {}})
    for exp in settings:
        for setting in settings[exp]:
            args = (setting.split() if setting else []) + ["--size", "32M"]
            run_model(cumemlab, exp, args, cache)
    return out


def run_model(cumemlab, exp, args, cache):
    key = (exp, tuple(args))
    if key in cache:
        return cache[key]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "m.json")
        cmd = [cumemlab, "model", exp] + list(args) + ["--json", out, "--quiet"]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            cache[key] = ({}, p.stderr.strip().splitlines()[-1:] or ["failed"])
            return cache[key]
        with open(out) as f:
            recs = json.load(f)["records"]
    cache[key] = ({r["variant"]: r for r in recs}, None)
    return cache[key]


def model_args(rec):
    exp = rec["experiment"]
    if rec.get("validate"):
        return rec["validate"]
    p = rec["params"]
    if exp == "expr":
        # The built-in set, all of it (matched by variant); sized like the run.
        return ["--threads", str(p.get("threads", 0))]
    args = []
    for k, v in p.items():
        args += ["--" + k, str(v)]
    return args


def fmt(v, bytes_):
    if v is None:
        return "-"
    if bytes_:
        return "%.2fMiB" % (v / 1048576.0)
    return "%d" % v


def main(argv):
    path = os.path.join(HERE, "results", "h100", "2026-11-24-suite.json.gz")
    cumemlab = os.path.join(ROOT, "build", "cumemlab")
    registry_path = None
    only = None
    validate = None
    verdicts = None
    show_all = False
    markdown = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--cumemlab":
            cumemlab = argv[i + 1]
            i += 1
        elif a == "--registry":
            registry_path = argv[i + 1]
            i += 1
        elif a == "--only":
            only = set(argv[i + 1].split(","))
            i += 1
        elif a == "--all":
            show_all = True
        elif a == "--markdown":
            markdown = True
        elif a == "--validate":
            validate = argv[i + 1]
            i += 1
        elif a == "--verdicts":
            verdicts = argv[i + 1]
            i += 1
        elif a.startswith("-"):
            sys.exit("compare_levels.py: unknown option %s" % a)
        else:
            path = a
        i += 1
    if verdicts:
        import levels_verdicts
        levels_verdicts.table(verdicts, markdown)
        return
    cache = {}
    registry = load_registry(cumemlab, registry_path)
    explained = load_explained(registry)
    nexpl = [0]
    expl_rows = {}
    if validate:
        data = {"records": validate_records(validate, cumemlab, cache,
                                            validate_settings(registry))}
        # Every model run of the settings, merged: a variant's record wherever it is.
        merged = {}
        for (exp, _), (models, _) in cache.items():
            merged.setdefault(exp, {}).update(models)
        for rec in data["records"]:
            rec["validate"] = ["--merged"]
        for exp, models in merged.items():
            cache[(exp, ("--merged",))] = (models, None)
    else:
        data = results_file.load(path)
    tally = {}  # exp -> counter -> [agree, total]
    lines = []
    for rec in data["records"]:
        exp = rec["experiment"]
        if exp in SKIP or (only and exp not in only) or rec.get("state") != "ok":
            continue
        measured = {c["name"]: c["measured"] for c in rec.get("counters", [])}
        if not measured:
            continue
        models, err = run_model(cumemlab, exp, model_args(rec), cache)
        m = models.get(rec["variant"])
        lv = (m or {}).get("model") or {}
        lv = lv.get("levels")
        if not lv:
            lines.append("%-12s %-52s  no model levels%s" %
                         (exp, rec["variant"][:52], (": " + err[0]) if err else ""))
            continue
        cells = []
        bad = False
        ld = sectors(m["model"], ("global_ld", "local_ld"))
        st = sectors(m["model"], ("global_st", "local_st"))
        l2 = lv["assumed"]["l2_bytes"]
        fp = lv["footprint_bytes"]
        for label, metric, field, tol, floor in COUNTERS:
            meas = measured.get(metric, 0.0) or 0.0  # absent: the counter read 0
            pred = lv[field]
            diff = pred - meas
            if label == "L1hit":
                ref = sectors(m["model"], ("global_ld",))
            elif label == "L2rd":
                ref = ld
            elif label == "L2wr":
                ref = st
            else:
                ref = max(abs(meas), abs(pred))
            judged = "DRAM" not in label or (lv.get("settled", True) and
                                             (fp >= 4 * l2 or fp <= l2 // 4))
            ok = abs(diff) <= max(tol * ref, floor)
            why = None
            if judged and not ok:
                # Explained entries measure L1/L2 against the sectors asked
                # for, DRAM against the predicted counter.
                eref = ref if "DRAM" not in label else pred
                why = explained_by(explained.get(exp, []), rec["variant"], metric, meas, pred, eref)
                if why:
                    nexpl[0] += 1
                    expl_rows.setdefault(why, set()).add((exp, rec["variant"]))
            key = label if judged else label + "~"
            t = tally.setdefault(exp, {}).setdefault(key, [0, 0])
            t[0] += ok
            t[1] += 1
            bad |= judged and not ok and not why
            rel = ("%+.1f%%" % (100.0 * diff / meas)) if meas else ("+inf" if pred else "0")
            mark = "" if ok else ("~" if not judged else ("e" if why else "!"))
            cells.append("%s %s/%s %s%s" % (label, fmt(pred, "DRAM" in label),
                                            fmt(meas, "DRAM" in label), rel, mark))
        if bad or show_all:
            lines.append("%-12s %-52s %s" % (exp, rec["variant"][:52], "  ".join(cells)))
    print("model/measured per record (! = beyond the target and not explained; e = beyond "
          "it, explained; ~ = DRAM beyond 2% where it is not judged):")
    for l in lines:
        print(l)
    print()
    labels = [c[0] for c in COUNTERS] + ["DRAMrd~", "DRAMwr~"]
    if markdown:
        print("| experiment | " + " | ".join(labels) + " |")
        print("|---|" + "---|" * len(labels))
        for exp, t in tally.items():
            print("| %s | " % exp + " | ".join(
                "%d/%d" % tuple(t.get(l, [0, 0])) for l in labels) + " |")
    else:
        print("%-14s " % "experiment" + " ".join("%9s" % l for l in labels))
        for exp, t in tally.items():
            print("%-14s " % exp + " ".join("%9s" % ("%d/%d" % tuple(t.get(l, [0, 0])))
                                           for l in labels))
    print("(agree/records; a judged counter beyond its target counts as not agreeing "
          "even when explained)")
    print("explained: %d counters in %d records, by section:" %
          (nexpl[0], len(set().union(*expl_rows.values())) if expl_rows else 0))
    for sec, rows in sorted(expl_rows.items()):
        print("  %-45s %d records" % (sec, len(rows)))
    tot = [sum(t.get(l, [0, 0])[0] for t in tally.values()) for l in labels]
    n = [sum(t.get(l, [0, 0])[1] for t in tally.values()) for l in labels]
    print("%-14s " % "all" + " ".join("%9s" % ("%d/%d" % (a, b)) for a, b in zip(tot, n)))


if __name__ == "__main__":
    main(sys.argv[1:])
