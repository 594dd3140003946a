#!/usr/bin/env python3
"""layers.py -- the layer check: every #include "x.h" of src/ and include/
must point at the same layer or one below, and the modules' include graph
must have no circle.

The layers are written once, in tests/lint/layers.txt ("N name name ...",
one line per layer); a module is src/NAME.c with include/NAME.h (or a
private header beside it: src/DIR/NAME.h); NAME is the file's name less
its last extension, so src/kpath/bpf/answer.bpf.c is answer.bpf, not answer.
A header that belongs to no module (config.h, generated skeletons) is
named with "-" and ignored.  "family HEAD NAME ..." names one module
split over files (a public header, a private one its files share): the
names must sit on one layer, and the circle check sees them as HEAD.
Every name in layers.txt must be a file of src/ or include/.

  layers.py SRCDIR             check; exit 1 with one line per finding
  layers.py SRCDIR --map       print the map (for doc/architecture.md)
  layers.py SRCDIR --doc FILE  check that FILE holds the map between
                               "<!-- layers -->" lines, as --map prints it
"""
import os
import re
import sys
import textwrap

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(top):
    layers, ignored, family, fams = {}, set(), {}, []
    with open(os.path.join(top, "tests/lint/layers.txt")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "-":
                ignored.update(line[1:])
                continue
            if line[0] == "family":
                if len(line) < 3:
                    sys.exit("layers.txt:%d: a family of fewer than two" % n)
                fams.append((n, line[1:]))
                continue
            lay = int(line[0])
            for m in line[1:]:
                if m in layers:
                    sys.exit("layers.txt:%d: %s named twice" % (n, m))
                layers[m] = lay
    for n, names in fams:
        for m in names:
            if m not in layers:
                sys.exit("layers.txt:%d: family member %s has no layer" % (n, m))
            if m in family:
                sys.exit("layers.txt:%d: %s in two families" % (n, m))
            if layers[m] != layers[names[0]]:
                sys.exit("layers.txt:%d: family %s spans layers %d and %d"
                         % (n, names[0], layers[names[0]], layers[m]))
            family[m] = names[0]
    return layers, ignored, family


def sources(top):
    """(module, path) of every .c and .h of ours."""
    out = []
    for d in ("src", "include"):
        for root, dirs, files in os.walk(os.path.join(top, d)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")) and not f.endswith(".skel.h"):
                    out.append((f.rsplit(".", 1)[0], os.path.join(root, f)))
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    layers, ignored, family = read_layers(top)
    bad, graph, seen = [], {}, set()
    for mod, path in sources(top):
        seen.add(mod)
        rel = os.path.relpath(path, top)
        if mod in ignored:
            continue
        if mod not in layers:
            bad.append("%s: module %s has no layer in tests/lint/layers.txt" % (rel, mod))
            continue
        with open(path) as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            dep = os.path.basename(inc).rsplit(".", 1)[0]
            if dep in ignored or dep == mod:
                continue
            if dep not in layers:
                bad.append("%s: includes %s, which has no layer" % (rel, inc))
                continue
            if family.get(dep, dep) != family.get(mod, mod):
                graph.setdefault(family.get(mod, mod), set()).add(family.get(dep, dep))
            if layers[dep] > layers[mod]:
                bad.append("%s (layer %d) includes %s (layer %d): up a layer"
                           % (rel, layers[mod], inc, layers[dep]))
    for m in sorted(set(layers) - seen):
        bad.append("tests/lint/layers.txt: %s is no file of src/ or include/" % m)
    # circles, among the modules of one layer (up-layer ones are above)
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cyc = stack[stack.index(d):] + [d]
                bad.append("a circle: " + " -> ".join(cyc))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)

    mp = []
    for lay in sorted(set(layers.values()), reverse=True):
        mods = sorted(m for m, l in layers.items() if l == lay)
        mp.extend(textwrap.wrap(" ".join(mods), 68, initial_indent="%d  " % lay,
                                subsequent_indent="   "))
    if "--map" in sys.argv:
        print("\n".join(mp))
        return 0
    if "--doc" in sys.argv:
        doc = sys.argv[sys.argv.index("--doc") + 1]
        with open(doc) as f:
            parts = f.read().split("<!-- layers -->")
        if len(parts) != 3:
            bad.append("%s: no map between two <!-- layers --> lines" % doc)
        else:
            # the words in order: the layer numbers and their modules;
            # how the lines wrap or indent is the doc's own business
            body = parts[1].replace("`", " ").split()
            if body != " ".join(mp).split():
                bad.append("%s: the layer map differs from tests/lint/layers.txt; "
                           "it should read:\n%s" % (doc, "\n".join(mp)))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
