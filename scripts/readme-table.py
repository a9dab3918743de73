#!/usr/bin/env python3
"""The README's table of experiments, generated from the registry.

The rows come from `cumemlab list --json` (number, key, title, summary),
each key linked to its page docs/experiments/KEY.md, so an experiment added
as a folder (docs/adding-an-experiment.md) reaches the README by running
this, not by an edit of the README: the table is generated output, like
the registry itself. The table sits between the two marker lines below in
README.md's "## The experiments"; nothing outside them is touched.

Usage: readme-table.py BINARY [README]           rewrite the table in place
       readme-table.py --check BINARY [README]   exit 1 (with a diff) if the
                                                 README's table is not the
                                                 registry's
"""
import difflib
import json
import os
import subprocess
import sys

BEGIN = ("<!-- The table below is generated from the registry by "
         "scripts/readme-table.py (cumemlab list --json); do not edit it. -->")
END = "<!-- End of the generated table. -->"


def cell(text):
    """A table cell: a '|' would end it, a newline the row, and the
    summaries' C ("__constant__", "y*pitch") would turn bold or italic."""
    text = " ".join(text.split())
    for c in "\\|*_`":
        text = text.replace(c, "\\" + c)
    return text


def table(binary):
    out = subprocess.run([binary, "list", "--json", "-"], check=True,
                         stdout=subprocess.PIPE).stdout
    rows = json.loads(out)["experiments"]
    lines = ["| # | name | what it shows |", "|---|------|---------------|"]
    for r in sorted(rows, key=lambda r: r["number"]):
        key = r["key"]
        lines.append("| %d | [%s](docs/experiments/%s.md) | **%s**: %s |" % (
            r["number"], key, key, cell(r["title"]), cell(r["summary"])))
    return lines


def main(argv):
    check = len(argv) > 1 and argv[1] == "--check"
    args = argv[2:] if check else argv[1:]
    if not args or len(args) > 2:
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\n")
        return 2
    binary = args[0]
    readme = args[1] if len(args) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read().split("\n")
    try:
        a, b = text.index(BEGIN), text.index(END)
    except ValueError:
        sys.stderr.write("readme-table: %s has no generated table (its marker lines "
                         "are missing)\n" % readme)
        return 1
    if b < a:
        sys.stderr.write("readme-table: %s: the end marker comes before the start\n" % readme)
        return 1
    new = text[:a + 1] + table(binary) + text[b:]
    if check:
        if new == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            [l + "\n" for l in text], [l + "\n" for l in new], readme, "generated"))
        return 1
    with open(readme, "w", encoding="utf-8") as f:
        f.write("\n".join(new))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
