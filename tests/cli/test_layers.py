#!/usr/bin/env python3
"""The shape of the source tree, checked from its #include "..." lines.

Every quoted include in src/ and include/ is read and resolved the way the
build resolves it (-Iinclude -Isrc: the project always names a header by its
path from one of those two roots), and the graph of who includes whom is
checked at three grains:

  files    a cycle of headers including each other;
  units    a source file and its headers are one unit (NAME.c, NAME.cu and
           NAME.h, and the headers that carry NAME's own code: a private
           NAME_internal.h, NAME_kernels.h declaring NAME.cu, NAME_body.h
           compiled into both, or in a two-file experiment folder holding
           the kernels whole), so two units that include each other's
           headers depend on each other: the shape of two .c files calling
           each other;
  folders  src/model, src/core, ..., each experiment's own folder
           (src/experiments/NAME/) and the registry (src/experiments/).

and fails on any cycle, printing it. It also fails on an include from a
lower layer to a higher one or between two peers (the table LAYERS below),
on an experiment's folder including another experiment's (but for the
pairs listed in SHARED_BETWEEN_EXPERIMENTS) or the registry, on a header named
by any other path than from src/ or include/, and on a source file of src/
longer than MAX_LINES lines.

Usage: test_layers.py [ROOT]   (ROOT: the repository; default: two levels
above this script). Exit 0 when the tree keeps every rule, 1 otherwise.
"""
import os
import re
import sys

# The layers, lowest first: a folder may include its own files and those of
# any folder of a lower rank, never a higher one. Folders of the same rank
# are peers and include nothing of each other.
#   model        the model library (src/model and its public headers,
#                include/cumemlab): pure C11, it includes nothing above it
#   core         records, results, options, statistics, chart specs
#   gpu          the harness: the only host code calling the CUDA runtime
#   counters     the CUPTI profiler, on the harness
#   lab          the run engine: the experiment contract (lab/experiment.h),
#                the sweep, the helpers experiments call, the peak
#   experiments  one folder per experiment, and the registry listing them
#   book         the textbook's programs, on the engine
#   report       the reporters: results in, text/JSON/CSV/HTML out; they get
#                the registry's rows as data, never by including them
#   trace        users' kernels traced: the trace file, the model over a
#                trace and its reports (on the model and the reporters)
#   cli          the command line, on top of everything
LAYERS = {
    "model": 0,
    "core": 1,
    "gpu": 2,
    "counters": 3,
    "lab": 4,
    "experiments": 5,
    "book": 5,
    "report": 5,
    "trace": 6,
    "cli": 7,
}
# Experiments include no other experiment's folder, but for these, each
# with its reason (a DAG still: the folder cycle check covers them too).
SHARED_BETWEEN_EXPERIMENTS = {
    ("src/experiments/async_copy", "src/experiments/transpose"):
        "async_copy verifies its transposed tiles with the transpose experiment's "
        "device checker (cml_transpose_check) rather than a second copy of it",
}
# Headers the build generates (in <build>/generated), by the folder they
# belong to: the registry's list of rows, made from the experiments' folders
# (cmake/experiments.cmake). They include only what that folder may.
GENERATED = {
    "experiment_rows.h": "src/experiments/registry.c",
}
MAX_LINES = 1000
SOURCES = (".c", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def sources(root):
    """Every source file under src/ and include/, as paths from root."""
    out = []
    for top in ("src", "include"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SOURCES):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def layer(path):
    """The layer of a file: src/NAME/... is NAME's, include/ is the model's."""
    parts = path.split(os.sep)
    return "model" if parts[0] == "include" else parts[1]


def folder(path):
    """The folder a file counts in: its experiment's for src/experiments/NAME/,
    else its top folder under src/ (include/ is the model's)."""
    parts = path.split(os.sep)
    if parts[0] == "include":
        return "src/model"
    if parts[1] == "experiments" and len(parts) > 3:
        return "/".join(parts[:3])
    return "/".join(parts[:2])


UNIT_SUFFIXES = ("_internal", "_kernels", "_body")


def unit(path):
    """A source and its headers are one unit: NAME.c, NAME.cu, NAME.h and
    NAME_internal.h, NAME_kernels.h, NAME_body.h are all NAME's."""
    stem = os.path.splitext(path)[0]
    for suffix in UNIT_SUFFIXES:
        if stem.endswith(suffix):
            return stem[: -len(suffix)]
    return stem


def cycles(graph):
    """Each strongly connected component of more than one node: one cycle
    through it (a list of nodes, the first repeated at the end) and all of
    its nodes."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):  # Tarjan, iterative enough for this tree's depth
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in found:
        members = set(comp)
        start = min(comp)
        # a path back to the start, inside the component (breadth first)
        prev, queue = {start: None}, [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    out.append((list(reversed(path)) + [start], comp))
                    queue = []
                    break
                if w in members and w not in prev:
                    prev[w] = v
                    queue.append(w)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    files = sources(root)
    problems = []
    edges = []  # (includer, included), both paths from root
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()
        if f.startswith("src" + os.sep) and len(lines) > MAX_LINES:
            problems.append("%s: %d lines (at most %d)" % (f, len(lines), MAX_LINES))
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            if name in GENERATED and GENERATED[name] == f:
                continue
            target = next((os.path.join(top, name) for top in ("src", "include")
                           if os.path.isfile(os.path.join(root, top, name))), None)
            if target is None:
                problems.append('%s:%d: #include "%s": not a path from src/ or include/'
                                % (f, n, name))
                continue
            edges.append((f, os.path.normpath(target), n))

    for f, t, n in edges:
        a, b = layer(f), layer(t)
        for x in (a, b):
            if x not in LAYERS:
                problems.append("%s: folder src/%s is in no layer (add it to LAYERS)" % (f, x))
        if a == b or a not in LAYERS or b not in LAYERS:
            continue
        if LAYERS[b] > LAYERS[a]:
            problems.append('%s:%d: includes "%s": layer %s (%d) includes the higher %s (%d)'
                            % (f, n, t, a, LAYERS[a], b, LAYERS[b]))
        elif LAYERS[b] == LAYERS[a]:
            problems.append('%s:%d: includes "%s": %s and %s are peers (layer %d)'
                            % (f, n, t, a, b, LAYERS[a]))

    # An experiment's folder includes the engine and the layers below it,
    # never another experiment's folder, nor the registry above them all.
    for f, t, n in edges:
        fa, fb = folder(f), folder(t)
        if (fa.startswith("src/experiments/") and fb.startswith("src/experiments") and fa != fb
                and (fa, fb) not in SHARED_BETWEEN_EXPERIMENTS):
            problems.append('%s:%d: includes "%s": an experiment includes another experiment '
                            "or the registry" % (f, n, t))

    grains = (("file", lambda p: p), ("unit", unit), ("folder", folder))
    for grain, node in grains:
        graph = {}
        for f, t, _ in edges:
            a, b = node(f), node(t)
            if a != b:
                graph.setdefault(a, set()).add(b)
        for cyc, members in cycles(graph):
            also = sorted(set(members) - set(cyc))
            problems.append("%s cycle: %s%s" % (grain, " -> ".join(cyc),
                            " (the loop also takes in %s)" % ", ".join(also) if also else ""))

    for p in problems:
        print("FAIL: " + p)
    print("%d files, %d includes, %d layers: %s" % (
        len(files), len(edges), len(set(LAYERS.values())),
        "ok" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
