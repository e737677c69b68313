#!/usr/bin/env python3
"""Check that the numbers the README and the cover letter quote measured the
series as it is in patches/.

    scripts/provenance.py [--top DIR]

1. results/latest names a results folder whose metadata.json "series_hash"
   equals the hash of patches/ now (bench/series-hash.sh: the patches in
   series order, without the cover letter, which quotes the results).
2. In README.md's "## Benchmarks" section and in the "Numbers" section of
   cover/cover-letter.txt (the generated blocks aside: they are written
   from that folder by make export), every number with two decimals
   (a ratio, an efficiency) appears in that folder's report.md.
3. Every results/<folder> those two files name exists; one named in those
   sections was measured on the current series, or on no series at all:
   "series_hash": "host" marks a measurement of the host's own kernel
   (make readsizes), which no change to the series makes stale.

Exit status 1 with the list of stale or untraceable quotes; 0 with one line
otherwise.
"""

import json
import os
import re
import subprocess
import sys

NUM = re.compile(r"(?<![\w.])\d+\.\d{2}(?![\d])")
FOLDER = re.compile(r"results/([0-9]{8}T[0-9]{6}Z[\w-]*)")


def series_hash(top):
    """bench/series-hash.sh, the hash that bench/uml/run.sh records."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return subprocess.run([os.path.join(here, "bench", "series-hash.sh"),
                           os.path.join(top, "patches")],
                          check=True, capture_output=True, text=True).stdout.strip()


def section(text, start, end_re):
    """The text from the line matching start to the next match of end_re."""
    m = re.search(start, text, re.M)
    if not m:
        return ""
    rest = text[m.end():]
    e = re.search(end_re, rest, re.M)
    return rest[:e.start()] if e else rest


def strip_generated(text):
    return re.sub(r"<!-- bench:begin.*?<!-- bench:end -->", "", text, flags=re.S)


def check(top):
    problems = []
    latest = os.path.join(top, "results", "latest")
    if not os.path.exists(latest):
        return ["results/latest is missing: no results folder is quoted"], None
    name = open(latest).read().strip()
    folder = os.path.join(top, "results", name)
    meta_path = os.path.join(folder, "metadata.json")
    if not os.path.exists(meta_path):
        return [f"results/latest names results/{name}, which has no metadata.json"], name
    meta = json.load(open(meta_path))
    now = series_hash(top)
    got = meta.get("series_hash")
    if got != now:
        problems.append(f"results/{name} measured series {got or '(no series_hash)'}, "
                        f"patches/ is {now}: rerun make bench, or quote nothing from it")
    report = open(os.path.join(folder, "report.md")).read() \
        if os.path.exists(os.path.join(folder, "report.md")) else ""
    known = set(NUM.findall(report))

    texts = {}
    for rel in ("README.md", "cover/cover-letter.txt"):
        p = os.path.join(top, rel)
        texts[rel] = open(p).read() if os.path.exists(p) else ""
    quoted = {
        "README.md": strip_generated(section(texts["README.md"], r"^## Benchmarks\s*$", r"^## ")),
        "cover/cover-letter.txt": section(texts["cover/cover-letter.txt"],
                                          r"^Numbers\n-+\s*$", r"^\S.*\n-{3,}\s*$"),
    }
    for rel, sec in quoted.items():
        for n in NUM.findall(sec):
            if n not in known:
                problems.append(f"{rel}: {n} is not in results/{name}/report.md")
    for rel, text in texts.items():
        for f in sorted(set(FOLDER.findall(text))):
            d = os.path.join(top, "results", f)
            if not os.path.isdir(d):
                problems.append(f"{rel}: names results/{f}, which does not exist")
                continue
            if f in FOLDER.findall(quoted.get(rel, "")) and f != name:
                mp = os.path.join(d, "metadata.json")
                h = json.load(open(mp)).get("series_hash") if os.path.exists(mp) else None
                if h not in (now, "host"):
                    problems.append(f"{rel}: quotes results/{f}, measured on series "
                                    f"{h or '(unknown)'}, not {now}")
    return problems, name


def main(argv):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if argv[:1] == ["--top"]:
        top = argv[1]
    problems, name = check(top)
    if problems:
        print("provenance: stale or untraceable quotes:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"provenance: README and cover letter quote results/{name}, "
          f"measured on the series in patches/ ({series_hash(top)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
