#!/usr/bin/env python3
"""Every kernel of the lab is written once: its __global__ function runs a
per-thread body (CML_BODY, src/gpu/kernel_body.h) that host C code runs too,
as the model's mirror; or it is a kernel the model does not mirror, listed
in NOT_MIRRORED with the reason.

The kernels are listed from the sources: every `__global__` function in
src/experiments/ and src/lab/, including those a macro stamps out (the
macro's invocations name them and their bodies). The book's programs,
src/book/, keep the book's own kernel text, checked launch by launch
against the model by gpu_test_book; expr's kernel is CUDA C generated at
run time (src/model/expr_codegen.c) and has no __global__ in the sources.

For each kernel: the body functions its braces call (directly, or through a
device function that calls them, as peak.cu's peak_body<W, U>), and for
each such body, C code that calls it outside CUDA (a .c file, or a header's
part outside `#ifdef __CUDACC__`): the mirror. A kernel with no body, or
whose bodies no C code runs, fails, unless NOT_MIRRORED lists it; so does a
NOT_MIRRORED entry that no source defines any more.

Usage: test_kernel_bodies.py [ROOT]   exit 0 when every kernel is one source.
"""
import os
import re
import sys

CHECKER = ("the device checker: an independent reference of what the body must write, "
           "computed from the fill's seeds; derived from the body, it would pass any "
           "mistake the body makes")
# Kernels with no mirror, by name: why the model does not run them.
NOT_MIRRORED = {
    "aos_soa_check": CHECKER,
    "banks_check": CHECKER,
    "constant_check": CHECKER,
    "parallelism_check": CHECKER,
    "l2r_check": CHECKER,
    "shuffle_check": CHECKER,
    "transpose_check": CHECKER,
    "offset_check": CHECKER,
    "stride_check": CHECKER,
    "local_check": CHECKER,
    "unroll_check": CHECKER,
    "readonly_check": CHECKER,
    "pitch2d_check": CHECKER,
    "transfers_check": CHECKER,
    "peak_check": CHECKER,
    "hier_read_check": CHECKER,
    "hier_store_check": CHECKER,
    "peer_check": CHECKER,
    "pitch2d_fill": "fills the padded image before the timed kernels run (not measured)",
    "fill_u32": "fills shuffle's input before the timed kernels run (not measured)",
    "hier_build": "writes the pointer chase's table before the timed chase runs (not measured)",
    "peak_reference_sum": "the sum's reference, on the device from the fill's seed (not measured)",
}

LB = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
GLOBAL = re.compile(r"__global__\s+" + LB + r"void\s+" + LB + r"(\w+)\s*\(")
BODY_DEF = re.compile(r"\bCML_BODY\b[^;{(]*?\b(\w+)\s*\(")
FUNC_DEF = re.compile(r"\b(\w+)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{")
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)(.*)$", re.M)
CALL = re.compile(r"\b(\w+)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof"}


def clean(text):
    """Comments out, macro lines joined, pasted names (a##W##b) as one."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    return text


def paste(text):
    return re.sub(r"\s*##\s*", "", text)


def braces(text, start):
    """The brace block that starts at the first '{' at or after start."""
    i = text.find("{", start)
    if i < 0:
        return ""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j + 1]
    return text[i:]


def split_args(text, start):
    """The arguments of the call whose '(' is at start, split at top-level commas."""
    depth, args, cur = 0, [], ""
    for ch in text[start:]:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(cur.strip())
                return args
        if ch == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return args


def sources(root, sub, exts):
    for d, _, files in os.walk(os.path.join(root, sub)):
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(d, f)


def host_part(path, text):
    if path.endswith(".c"):
        return text
    return re.sub(r"#\s*ifdef\s+__CUDACC__.*?#\s*endif", "", text, flags=re.S)


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    raw = {p: clean(open(p, encoding="utf-8").read())
           for p in sources(root, "src", (".h", ".c", ".cu"))}
    # Macros with parameters (their text before pasting), and where each is
    # invoked (outside defines).
    macros = {}
    for path, text in raw.items():
        for m in DEFINE.finditer(text):
            macros[m.group(1)] = ([a.strip() for a in m.group(2).split(",")], m.group(3))
    texts = {p: paste(t) for p, t in raw.items()}

    def invocations(name):
        for path, text in texts.items():
            for m in re.finditer(r"\b%s\s*\(" % re.escape(name), text):
                line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
                if re.match(r"\s*#\s*define", line):
                    continue
                yield path, split_args(text, m.end() - 1)

    def instances(params, body, args):
        # parameters stand alone or next to a ## (smem_tile_##W##x##H)
        for p, a in zip(params, args):
            body = re.sub(r"(?<![\w])%s(?![\w])" % re.escape(p), a, body)
            body = re.sub(r"(?<=##)%s(?![\w])|(?<![\w])%s(?=\s*##)" % (re.escape(p), re.escape(p)),
                          a, body)
        return paste(body)

    # Body functions: CML_BODY definitions, those a macro stamps included.
    bodies = set()
    for path, text in texts.items():
        bodies.update(n for n in BODY_DEF.findall(text))
    for name, (params, body) in macros.items():
        if "CML_BODY" not in body:
            continue
        for _, args in invocations(name):
            bodies.update(BODY_DEF.findall(instances(params, body, args)))
    # Pasted names as patterns (cml_peak_gs_vW_uU stands for ..._v16_u4).
    def is_body(n):
        return n in bodies

    # Device functions that forward to a body, with the bodies each reaches.
    forwarders = {}
    for path, text in texts.items():
        if path.endswith((".cu", ".h")):
            for m in FUNC_DEF.finditer(text):
                reached = {c for c in CALL.findall(braces(text, m.end() - 1)) if is_body(c)}
                if reached and m.group(1) not in KEYWORDS:
                    forwarders.setdefault(m.group(1), set()).update(reached)

    # Names C code uses outside CUDA: where the mirrors run the bodies.
    host_names = set()
    for path, text in texts.items():
        if path.endswith((".c", ".h")):
            host_names.update(re.findall(r"\b\w+\b", host_part(path, text)))
            # and what the macros invoked there expand to
    for name, (params, body) in macros.items():
        for path, args in invocations(name):
            if path.endswith((".c", ".h")) and name in host_part(path, texts[path]):
                host_names.update(re.findall(r"\b\w+\b", instances(params, body, args)))

    # The kernels: written out, or stamped by a macro's invocations.
    kernels = []  # (name, file, calls)
    for sub in ("src/experiments", "src/lab"):
        for path in sources(root, sub, (".h", ".cu")):
            text = texts[path]
            rel = os.path.relpath(path, root)
            for m in GLOBAL.finditer(text):
                line_start = text.rfind("\n", 0, m.start()) + 1
                dm = DEFINE.match(text, line_start)
                if dm and dm.start(3) <= m.start():  # in a macro: its invocations
                    params, body = macros[dm.group(1)]
                    for _, args in invocations(dm.group(1)):
                        inst = instances(params, body, args)
                        km = GLOBAL.search(inst)
                        if km:
                            kernels.append((km.group(1), rel,
                                            set(CALL.findall(braces(inst, km.end())))))
                    continue
                kernels.append((m.group(1), rel, set(CALL.findall(braces(text, m.end())))))

    fails = 0
    seen = set()
    for name, rel, calls in kernels:
        seen.add(name)
        reached = set()
        for c in calls - {name}:
            if is_body(c):
                reached.add(c)
            elif c in forwarders:
                reached |= forwarders[c]
        mirrored = sorted(b for b in reached if b in host_names)
        if name in NOT_MIRRORED and not mirrored:
            print("no mirror   %-36s %s (%s)" % (name, rel, NOT_MIRRORED[name]))
        elif mirrored:
            print("one source  %-36s %s -> %s" % (name, rel, ", ".join(mirrored)))
        elif reached:
            print("FAIL        %-36s %s runs %s, which no C code runs as the model's mirror"
                  % (name, rel, ", ".join(sorted(reached))))
            fails += 1
        else:
            print("FAIL        %-36s %s runs no body (write it in a _body.h with CML_BODY, "
                  "or list it in NOT_MIRRORED with the reason)" % (name, rel))
            fails += 1
    for name in sorted(set(NOT_MIRRORED) - seen):
        print("FAIL        NOT_MIRRORED lists %s, which no source defines" % name)
        fails += 1
    print("kernel bodies: %d kernels, %d failed" % (len(kernels), fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
