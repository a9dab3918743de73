#!/usr/bin/env python3
"""An experiment is its folder: nothing else in the build names it.

For every folder src/experiments/NAME/, its rows are the lines
"const cml_experiment cml_exp_X = {" of its C files (what
cmake/experiments.cmake generates the registry from) and its keys the
`.key = "..."` of those rows. Outside the folder, no code of the build
(src/, include/, cmake/, CMakeLists.txt; comments left out) may name them:
not a row's symbol, not a path into the folder ("experiments/NAME/"), but
for the pairs listed in EXCEPTIONS, each with its reason. A key as a string
literal ("read-offset") is looked for in the code outside the folders of the
two-file form only, where it is their rule too; in the old form's folders
not yet ("stride", "constant" or "local" are also the names of options and
memory spaces elsewhere: such a literal, once its folder is converted, is
listed in EXCEPTIONS with its reason, or the key in WORD_KEYS where it is
a word of the code everywhere). Tests may name the
experiments they test; the documentation names them too: every key has its
page, docs/experiments/KEY.md, which this checks as well.

A folder of the two-file form (NAME_body.h and no .cu file: the build
generates the kernels' translation unit, cmake/experiments.cmake) must hold
exactly NAME.c (the row and its host code) and NAME_body.h (the kernels),
but for the files TWO_FILE_EXTRA allows, each with its reason (an entry
FOLDER/FILE in that folder only, and it must be there). The engine
test's own experiment (tests/engine/tiny, the example of
docs/adding-an-experiment.md) is checked the same way. A folder of the old
form (NAME.h, NAME.cu, NAME_kernels.h; or no kernels at all) is listed as
such, so the folders still to convert show in the output.

Usage: test_folder_only.py [ROOT]   Exit 0 when every experiment keeps to its
folder, 1 otherwise (each finding printed).
"""
import os
import re
import sys

# (what is named, the file that names it): why it may.
EXCEPTIONS = {
    ("experiments/transpose/", "src/experiments/async_copy/async_copy.c"):
        "async-copy verifies its transposed tiles with the transpose experiment's device "
        "checker (tests/cli/test_layers.py lists the same pair)",
    ("experiments/expr/", "src/cli/expr_cmd.c"):
        "`model --expr` and `run --expr` still branch to cli/expr_cmd.c, which makes expr's "
        "records itself, instead of going through the expr row (issue 21, item 3)",
    ("cml_exp_expr", "src/cli/expr_cmd.c"): "the same",
    ("experiments/device_facts/", "src/cli/commands.c"):
        "`cumemlab device` writes the device-facts record through the folder's function "
        "rather than running the row",
    ("experiments/device_facts/", "src/cli/device_all.c"):
        "`cumemlab device --all` writes each GPU's device-facts records through the same "
        "function",
}

# Keys of two-file folders that are also a word the code spells as a string
# everywhere, so their literal is not looked for (their row's symbol and
# their folder's path still are): why.
WORD_KEYS = {
    "constant": "the name of a memory space: expr's spaces (src/model/expr_codegen.c, "
                "src/cli/expr_cmd.c, src/experiments/expr/), device-facts' and device-vars' "
                "texts",
    "local": "the name of a memory space: expr's spaces (src/model/expr_codegen.c, "
             "src/cli/expr_cmd.c)",
    "stride": "the name of an option of several experiments (hierarchy, shared-banks, "
              "constant, expr)",
    "unroll": "the text of CUDA's #pragma unroll (_Pragma(\"unroll\") in src/gpu/kernel_body.h)",
    "transpose": "the name of the book's own transpose program (src/book/transpose_book.c) "
                 "and of a workload of async-copy",
}

# Files a two-file folder may hold besides NAME.c and NAME_body.h: what the
# build needs beyond the two (cmake/experiments.cmake), never another part
# of the experiment's code, but for one folder's host code that does not fit
# one file (FOLDER/FILE: that folder's only).
TWO_FILE_EXTRA = {
    "experiment.cmake":
        "asks the build for more than the folder's sources (local: the ptxas table of "
        "its kernels); CMake code cannot live in a C file",
    "NAME_none.c":
        "the build without CUDA compiles no kernel: a function of NAME_body.h's CUDA side "
        "that host code calls even on the model-only path needs a definition there, and a "
        "file compiled only in that build (src/gpu/launcher.h)",
    "hierarchy/hierarchy_model.c":
        "hierarchy's host code is about 1,050 lines, more than one file holds (test_layers.py: "
        "1,000 at most; about 800 wanted), beside a body header of 800: hierarchy.c keeps the "
        "row, options, variants, measurement and the counters' verdict, hierarchy_model.c the "
        "capacity rule, the counters' level, the launch geometry, the chase's permutation and "
        "the mirrors (the kernels' bodies traced one step of their walk at a time)",
    "hierarchy/hierarchy_model_decl.h":
        "the model's declarations (capacity rule, geometry, mirrors, cache levels), out of "
        "hierarchy_body.h, which with them passed 900 lines; the body header includes it",
    "hierarchy/hierarchy_kernels.h":
        "the kernels, launchers and checkers (nvcc only, about 260 lines), out of "
        "hierarchy_body.h, which with them passed 800 lines (816); the body header includes "
        "it at its end under __CUDACC__, so the generated kernels' file still includes the "
        "body header alone",
    "hierarchy/hierarchy_levels.c":
        "the cache levels of hierarchy's launches in closed form with their intervals (issue "
        "22): a model of its own, about 250 lines that neither hierarchy.c nor "
        "hierarchy_model.c has room for",
    "l2_residency/l2_residency_levels.c":
        "the cache levels of l2-residency's launches in closed form with their intervals "
        "(issue 22): about 230 lines from the window's and the hints' own model, which "
        "l2_residency.c (about 690 lines) has no room for under 800",
}

COMMENT_C = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
COMMENT_CMAKE = re.compile(r"#[^\n]*")
ROW = re.compile(r"^const cml_experiment (cml_exp_[a-z0-9_]+) =", re.M)
KEY = re.compile(r'\.key\s*=\s*(?:"([^"]+)"|([A-Z_][A-Z0-9_]*))')
ROW_BODY = re.compile(r"const cml_experiment\s+cml_exp_\w+\s*=\s*\{(.*?)\n\};", re.S)
DEFINE = r'#\s*define\s+%s\s+"([^"]+)"'
BUILD = ("src", "include", "cmake")
SOURCES = (".c", ".h", ".cu", ".cmake", ".txt")


def files_of(root, top):
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in names:
            if n.endswith(SOURCES):
                out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return out


def two_file_problems(folder, label):
    """The files of a two-file folder beyond NAME.c and NAME_body.h, as findings;
    None when the folder is of the old form (it has a .cu file, or no body)."""
    name = os.path.basename(folder.rstrip(os.sep))
    files = sorted(os.listdir(folder))
    if "%s_body.h" % name not in files or any(f.endswith(".cu") for f in files):
        return None
    allowed = {"%s.c" % name, "%s_body.h" % name}
    out = []
    for extra in TWO_FILE_EXTRA:
        owner, _, base = extra.rpartition("/")
        if not owner:
            allowed.add(base.replace("NAME", name))
        elif owner == name:
            allowed.add(base)
            if base not in files:
                out.append("%s: TWO_FILE_EXTRA allows %s, which the folder no longer holds "
                           "(remove it)" % (label, extra))
    out += ["%s: a two-file folder holds %s (only %s.c and %s_body.h, and %s)"
            % (label, f, name, name, ", ".join(sorted(TWO_FILE_EXTRA)))
            for f in files if f not in allowed]
    if "%s.c" % name not in files:
        out.append("%s: a two-file folder without %s.c" % (label, name))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    exp_root = os.path.join(root, "src", "experiments")
    build_files = ["CMakeLists.txt"] + [f for top in BUILD for f in files_of(root, top)]
    text = {}
    for f in build_files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            body = fh.read()
        # comments may cite a folder; code may not (line numbers kept)
        strip = COMMENT_CMAKE if f.endswith((".cmake", ".txt")) else COMMENT_C
        text[f] = strip.sub(lambda m: "\n" * m.group(0).count("\n"), body)
    problems = []
    used = set()
    folders = sorted(d for d in os.listdir(exp_root) if os.path.isdir(os.path.join(exp_root, d)))
    nkeys = 0
    old_form = []
    used_words = set()
    tiny = os.path.join(root, "tests", "engine", "tiny")
    if os.path.isdir(tiny):
        two = two_file_problems(tiny, "tests/engine/tiny/")
        problems.extend(["tests/engine/tiny/: not of the two-file form"] if two is None else two)
    for name in folders:
        prefix = os.path.join("src", "experiments", name) + os.sep
        mine = [f for f in text if f.startswith(prefix)]
        rows = sorted({r for f in mine if f.endswith(".c") for r in ROW.findall(text[f])})
        two = two_file_problems(os.path.join(exp_root, name), prefix)
        if two is None:
            old_form.append(name)
        else:
            problems.extend(two)
        keys = set()
        for f in (f for f in mine if f.endswith(".c")):
            for lit, macro in (kv for body in ROW_BODY.findall(text[f])
                               for kv in KEY.findall(body)):
                m = re.search(DEFINE % macro, text[f]) if macro else None
                keys.add(lit or (m.group(1) if m else macro))
        keys = sorted(keys)
        if not rows or not keys:
            problems.append("%s: no row (const cml_experiment cml_exp_... = {) or no .key"
                            % prefix)
        nkeys += len(keys)
        names = ["experiments/%s/" % name] + rows
        if two is not None:
            names += ['"%s"' % k for k in keys if k not in WORD_KEYS]
            used_words.update(k for k in keys if k in WORD_KEYS)
        for f, body in text.items():
            if f.startswith(prefix) or f == os.path.join("src", "experiments", "registry.c"):
                continue
            for what in names:
                found = (re.search(r"\b%s\b" % re.escape(what), body) if what.startswith("cml_exp_")
                         else what in body)
                if not found:
                    continue
                if (what, f) in EXCEPTIONS:
                    used.add((what, f))
                    continue
                line = body[:body.index(what) if what in body else 0].count("\n") + 1
                problems.append("%s:%d: names %s of %s" % (f, line, what, prefix))
        for k in keys:
            if not os.path.isfile(os.path.join(root, "docs", "experiments", k + ".md")):
                problems.append("%s: key %s has no page docs/experiments/%s.md" % (prefix, k, k))
    for pair in sorted(set(EXCEPTIONS) - used):
        problems.append("exception no longer needed (remove it): %s in %s" % pair)
    for k in sorted(set(WORD_KEYS) - used_words):
        problems.append("WORD_KEYS: %s is no key of a two-file folder (remove it)" % k)
    for p in problems:
        print("FAIL: " + p)
    print("not of the two-file form (yet): %s"
          % (" ".join(old_form) or "none"))
    print("%d experiment folders (%d of two files), %d keys, %d build files: %s" % (
        len(folders), len(folders) - len(old_form), nkeys, len(text),
        "ok" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
