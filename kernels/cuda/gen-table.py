#!/usr/bin/env python3
"""gen-table.py: the list of every ct_cuda_* function, for the CUDA module.

Usage: gen-table.py TABLE.h STUB-NAMES.h HEADER...

Reads the kernels' headers and writes two C headers. TABLE.h includes
those headers that declare ct_cuda_* functions and holds

  CT_CUDA_FUNCTIONS(X): X(return type, short name, (parameters), (arguments))
                        once per ct_cuda_* declaration, in header order;
  CT_CUDA_TABLE_VERSION: a checksum of those declarations.

kernels/cuda/table.h builds the module's table from the list, module.c fills
it inside the module and loader.c forwards each ct_cuda_* call through it, so
the headers stay the only place where a signature is written. The checksum
lets the loader refuse a module built from other headers.

STUB-NAMES.h renames every ct_cuda_X to ct_cuda_stub_X: the stub files
(cuda/stub*.c) are compiled with it in CUDA builds, and answer for the module
when it cannot be loaded."""

import os
import re
import sys
import zlib

DECLARATION = re.compile(
    r'^([A-Za-z_][\w \*]*?)\s*\bct_cuda_(\w+)\s*\(([^;{]*?)\)\s*;', re.M | re.S)


def argument_name(parameter):
    name = re.search(r'(\w+)\s*(\[\s*\w*\s*\])?$', parameter)
    if name is None or '(' in parameter:
        sys.exit(f'gen-table.py: cannot forward the parameter "{parameter}"')
    return name.group(1)


def main():
    table, stub_names, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    entries = []
    includes = []
    for header in headers:
        with open(header, encoding='utf-8') as f:
            text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
        for m in DECLARATION.finditer(text):
            ret = ' '.join(m.group(1).split())
            params = ' '.join(m.group(3).split())
            names = [] if params == 'void' else [argument_name(p) for p in params.split(',')]
            entries.append((ret, m.group(2), params, ', '.join(names)))
            if os.path.basename(header) not in includes:
                includes.append(os.path.basename(header))
    if not entries:
        sys.exit('gen-table.py: no ct_cuda_* declaration found')
    signatures = '\n'.join(f'{r} {n} ({p})' for r, n, p, _ in entries)
    lines = [
        '/* Written by kernels/cuda/gen-table.py from the kernels\' headers; do not edit. */',
        '#pragma once',
        '',
    ]
    lines += [f'#include "{h}"' for h in includes]
    lines += [
        '',
        f'#define CT_CUDA_TABLE_VERSION 0x{zlib.crc32(signatures.encode()):08x}u',
        f'#define CT_CUDA_N_FUNCTIONS {len(entries)}',
        '',
        '#define CT_CUDA_FUNCTIONS(X) \\',
    ]
    lines += [f'  X ({r}, {n}, ({p}), ({a})) \\' for r, n, p, a in entries]
    lines.append('')
    with open(table, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    with open(stub_names, 'w', encoding='utf-8') as f:
        f.write(lines[0] + '\n#pragma once\n\n')
        f.writelines(f'#define ct_cuda_{n} ct_cuda_stub_{n}\n' for _, n, _, _ in entries)


if __name__ == '__main__':
    main()
