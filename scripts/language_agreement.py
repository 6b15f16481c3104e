#!/usr/bin/env python3
"""Compare the language corpusbot gives a page with the page's own <html lang>.

    python3 scripts/language_agreement.py BIN DIR [--urls ground-truth.json] [--show 20]

BIN is a corpusbot binary; DIR holds HTML pages (.html or .html.gz), read where
they are (gunzipped into a temporary folder for the batch, never copied into the
repository). Runs `corpusbot page parse --batch` once over all of them, reads
each output line's "language", and compares it with the primary subtag of the
page's declared <html lang="..."> (lower-cased: "pt-BR" -> "pt"). Prints the
agreement over the pages that declare a language and get one, per declared
language, and every page where the two differ (declared, given, URL, file) so
that a reader can look at which is right. Pages that declare none, or that get
none (noindex, no text), are counted apart.

--urls names a JSON object {page id: {"url": ...}} (the article-extraction-
benchmark's ground-truth.json) to give each page its real URL; without it each
page gets https://pages.example/<id>/.
"""
import argparse
import collections
import gzip
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

LANG = re.compile(rb'<html\b[^>]*?\blang\s*=\s*["\']?([A-Za-z]{2,3})(?:[-_][^"\'\s>]*)?', re.I)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('bin')
    ap.add_argument('dir')
    ap.add_argument('--urls')
    ap.add_argument('--show', type=int, default=1000)
    a = ap.parse_args()
    urls = {}
    if a.urls:
        urls = {k: v.get('url', '') for k, v in json.load(open(a.urls)).items()}
    pages = sorted(p for p in Path(a.dir).iterdir() if p.name.endswith(('.html', '.html.gz')))
    if not pages:
        sys.exit(f'no .html or .html.gz pages in {a.dir}')
    declared = {}
    with tempfile.TemporaryDirectory() as tmp:
        batch = []
        for p in pages:
            body = gzip.open(p).read() if p.name.endswith('.gz') else p.read_bytes()
            pid = p.name.split('.')[0]
            m = LANG.search(body[:200_000])
            declared[pid] = m.group(1).decode().lower() if m else ''
            dst = Path(tmp) / f'{pid}.html'
            dst.write_bytes(body)
            batch.append({'file': str(dst), 'url': urls.get(pid) or f'https://pages.example/{pid}/', 'content_type': ''})
        inp = ''.join(json.dumps(b) + '\n' for b in batch)
        run = subprocess.run([a.bin, 'page', 'parse', '--batch'], input=inp, capture_output=True, text=True,
                             encoding='utf-8', errors='replace')
        if run.returncode != 0:
            sys.exit(f'page parse --batch exited {run.returncode}: {run.stderr.strip()[:500]}')
    given = {}
    for line in run.stdout.splitlines():
        if line.strip():
            o = json.loads(line)
            given[Path(o.get('file', '')).stem] = (o.get('language') or '').lower()
    both = [pid for pid in declared if declared[pid] and given.get(pid)]
    agree = [pid for pid in both if declared[pid] == given[pid]]
    print(f'{len(pages)} pages; {sum(1 for d in declared.values() if d)} declare a language; '
          f'{sum(1 for g in given.values() if g)} get one; {len(both)} both')
    if both:
        print(f'agreement: {len(agree)}/{len(both)} = {100 * len(agree) / len(both):.1f}%')
    per = collections.defaultdict(lambda: [0, 0])
    for pid in both:
        per[declared[pid]][1] += 1
        per[declared[pid]][0] += declared[pid] == given[pid]
    print('per declared language (agree/pages):')
    print('  ' + ', '.join(f'{l} {ok}/{n}' for l, (ok, n) in sorted(per.items(), key=lambda x: (-x[1][1], x[0]))))
    no_decl = [pid for pid in declared if not declared[pid] and given.get(pid)]
    if no_decl:
        c = collections.Counter(given[pid] for pid in no_decl)
        print(f'no declaration, detected: ' + ', '.join(f'{l} {n}' for l, n in c.most_common()))
    differ = [pid for pid in both if declared[pid] != given[pid]]
    if differ:
        print('declared != given:')
        for pid in differ[:a.show]:
            print(f'  {declared[pid]} -> {given[pid]}  {urls.get(pid, "")}  {pid}')


if __name__ == '__main__':
    main()
