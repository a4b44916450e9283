#!/usr/bin/env python3
"""The closing lines of .ci/run, from each build's meson-logs/testlog.json.

Usage: summary.py FAILED_SETUPS BUILD...

A test counts once per build (names are prefixed with the build folder).
GLib tests exit 0 when only some of their subtests skip, so each test's
output (GLib's TAP: "ok 3 /path # SKIP reason") is read too: every skipped
subtest, and every incomplete one ("not ok 3 /path # TODO reason"), is
printed with its reason and counted in "N skipped" (a test that skips as
a whole counts once). The last line is
"N passed, N failed"; the exit status is 1 when anything failed.
"""
import json
import os
import re
import sys

SUBTEST = re.compile(r'^(?:ok|not ok) \d+ (\S+) # (SKIP|TODO)\b ?(.*)$', re.MULTILINE)


def main():
    passed, skipped, failed = 0, 0, int(sys.argv[1])
    seen = set()
    for build in sys.argv[2:]:
        path = os.path.join(build, 'meson-logs', 'testlog.json')
        if not os.path.exists(path):
            continue
        for line in open(path, encoding='utf-8', errors='replace'):
            t = json.loads(line)
            key = (build, t['name'])
            if key in seen:
                continue
            seen.add(key)
            subtests = [m.groups() for m in SUBTEST.finditer(t.get('stdout') or '')]
            if t['result'] in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif t['result'] == 'SKIP':
                # one skip, however many of its subtests said why
                skipped += 1
                why = '; '.join(reason.strip() for _, _, reason in subtests if reason.strip())
                print('skipped:', build, t['name'] + (f': {why}' if why else ''))
                continue
            else:
                failed += 1
                print('FAILED:', build, t['name'], t['result'])
            for subtest, kind, reason in subtests:
                skipped += 1
                word = 'skipped' if kind == 'SKIP' else 'incomplete'
                print(f'{word}: {build} {t["name"]} {subtest}: {reason.strip() or "no reason"}')
    print(f'{skipped} skipped (tests and subtests: no GPU, no display, no ../shared ...)')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
