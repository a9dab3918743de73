#!/usr/bin/env python3
"""Do two HTML reports of cumemlab draw the same charts?

Usage: bench/same_charts.py OLD.html NEW.html   (exit 0: the same pictures)

Each chart's SVG, with every mark drawn again later in its series dropped (a
later drawing of an identical mark covers it: what each pixel shows is the
last mark drawn over it), must be the same text in both files. This is how
the report's counters charts, which once drew most readings of a sweep many
times over, were checked to draw the same picture with each mark once.
"""
import re, sys
def keep_last(svg):
    out = []
    for p in re.split(r'(<g class="series"[^>]*>\n.*?</g>\n)', svg, flags=re.S):
        if p.startswith('<g class="series"'):
            lines = p.split('\n')
            head, body, tail = lines[0], lines[1:-2], lines[-2:]
            last = {l: i for i, l in enumerate(body)}
            p = '\n'.join([head] + [l for i, l in enumerate(body) if last[l] == i] + tail)
        out.append(p)
    return ''.join(out)
a = re.findall(r'<svg.*?</svg>', open(sys.argv[1]).read(), re.S)
b = re.findall(r'<svg.*?</svg>', open(sys.argv[2]).read(), re.S)
same = sum(1 for x, y in zip(a, b) if x == y)
drawn = sum(1 for x, y in zip(a, b) if keep_last(x) == keep_last(y))
print(f"{len(a)} and {len(b)} charts; byte-identical {same}; the same picture {drawn}; "
      f"marks {sum(x.count('<title>') for x in a)} -> {sum(x.count('<title>') for x in b)}")
sys.exit(0 if len(a) == len(b) == drawn else 1)
