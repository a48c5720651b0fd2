#!/usr/bin/env python3
"""Lists every citation in the tree that does not resolve, one "FILE:LINE: CITATION" a line.

Citations are how the code and the documents point at each other (docs/design.md, first
paragraph):
  design.md §N, design.md §N.M   section N of docs/design.md, item M of its numbered list
  kernel-facts.md §N              section N of docs/kernel-facts.md
  docs/NAME.md, "Title"           a heading of docs/NAME.md that contains Title

usage: citations.py [ROOT] [FILE...]   (the files git tracks under ROOT, test data aside, or
the FILEs given)."""
import os
import re
import subprocess
import sys

SECTION = re.compile(r'(design|kernel-facts)\.md §(\d+)(?:\.(\d+))?')
TITLE = re.compile(r'(?:docs/)?([a-z0-9-]+)\.md, "([^"]+)"')
_docs = {}


def doc(name):
    path = os.path.join('docs', name + '.md')
    if path not in _docs:
        try:
            with open(path, encoding='utf-8') as f:
                _docs[path] = f.read().split('\n')
        except OSError:
            _docs[path] = None
    return _docs[path]


def section_resolves(name, n, m):
    lines = doc(name)
    if lines is None:
        return False
    start = next((i for i, l in enumerate(lines) if re.match(r'^## %s\.(\s|$)' % n, l)), None)
    if start is None:
        return False
    if m is None:
        return True
    for line in lines[start + 1:]:
        if line.startswith('## '):
            return False
        if re.match(r'^%s\. ' % m, line):
            return True
    return False


def title_resolves(name, title):
    lines = doc(name)
    if lines is None:
        return True  # not one of the project's documents: nothing to hold it against
    want = title.replace('`', '').lower()
    return any(l.startswith('#') and want in l.replace('`', '').lower() for l in lines)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    os.chdir(root)
    files = sys.argv[2:]
    if not files:
        out = subprocess.check_output(['git', 'ls-files'], text=True)
        files = [f for f in out.split('\n') if f and not f.startswith('tests/data/')]
    for f in files:
        try:
            with open(f, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
        except (OSError, IsADirectoryError):
            continue
        for ln, line in enumerate(text.split('\n'), 1):
            for m in SECTION.finditer(line):
                if not section_resolves(m.group(1), m.group(2), m.group(3)):
                    print('%s:%d: %s' % (f, ln, m.group(0)))
            for m in TITLE.finditer(line):
                if not title_resolves(m.group(1), m.group(2)):
                    print('%s:%d: %s' % (f, ln, m.group(0)))


main()
