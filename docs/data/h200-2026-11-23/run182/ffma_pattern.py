#!/usr/bin/env python3
"""Microbenchmark helper (run 182): rewrite the FFMAs of ffma_stream.cu's loops in SASS into a
chosen register pattern. The loop's other instructions and every control field stay; only the
FFMAs' four registers and reuse flags change, among the registers the loop's FFMAs already use.
The block is an 8 x 8 outer product: FFMA acc[i][j], a[i], b[j], acc[i][j], in runs of 8 sharing
a[i] (slot A, reuse-cached after the run's first FFMA), each accumulator read again 64 FFMAs
later. Register banks by parity: a two-read FFMA is free of conflicts when its two register-file
reads have different parities.
  ideal      runs snake (j = 0..7, then 7..0) so that a run's first FFMA takes b[j] from the reuse
             cache of slot B: every FFMA reads two registers, of different parities
  runstart3  every run goes j = 0..7: its first FFMA reads three registers (as in rung 13's loop,
             where ~1 FFMA in 8 reads three), the others as in ideal
  conflict   as ideal, but every accumulator has its b[j]'s parity: every FFMA's two reads clash
Usage: ffma_pattern.py OBJ OUT MODE"""
import os, re, subprocess, sys, tempfile
sys.path.insert(0, '/work/main/scripts')
from ffma_reorder import disassemble, main_loop, elf_sections
CU = '/work/main/.deps/python/nvidia/cu13/bin/cuobjdump'
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
MASK128 = (1 << 128) - 1
FIELDS = ((16, 'd'), (24, 'a'), (32, 'b'), (64, 'c'))


def assign(regs):
    """Registers for a[8], b[8], acc[8][8] by parity; returns them and the FFMA conflicts left."""
    by = {0: sorted(r for r in regs if r % 2 == 0), 1: sorted(r for r in regs if r % 2)}
    M = 0 if len(by[0]) >= len(by[1]) else 1          # the more numerous parity
    want_b = {j: M if j in (0, 2, 5, 7) else 1 - M for j in range(8)}
    pools = {0: list(by[0]), 1: list(by[1])}

    def take(p):
        return pools[p].pop() if pools[p] else pools[1 - p].pop()
    b = [take(want_b[j]) for j in range(8)]
    a = [take(M) for _ in range(8)]
    acc_parity = (lambda j: want_b[j]) if mode == 'conflict' else (lambda j: 1 - want_b[j])
    acc = [[take(acc_parity(j)) for j in range(8)] for _ in range(8)]
    return a, b, acc


def sequence(a, b, acc, n):
    """n FFMAs: (d, ra, rb, rc, reuse slot A, reuse slot B)."""
    out = []
    while len(out) < n:
        for i in range(8):
            js = list(range(8)) if (mode == 'runstart3' or i % 2 == 0) else list(range(7, -1, -1))
            for k, j in enumerate(js):
                last = k == 7
                out.append((acc[i][j], a[i], b[j], acc[i][j], not last, last and mode != 'runstart3'))
    return out[:n]


obj = bytearray(open(src, 'rb').read())
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([CU, '-xelf', 'all', os.path.abspath(src)], cwd=tmp, check=True, capture_output=True)
    for cubin in sorted(os.listdir(tmp)):
        if not cubin.endswith('.cubin'): continue
        path = os.path.join(tmp, cubin); data = open(path, 'rb').read(); secs = elf_sections(data)
        for name, insts in disassemble(CU, path).items():
            body = main_loop(insts)
            ffmas = [x for x in body if x.is_ffma]
            assert len(ffmas) % 64 == 0, (name, len(ffmas))
            regs = set()
            for x in ffmas:
                regs |= {int(v) for v in re.findall(r'\bR(\d+)\b', x.text)}
            assert len(regs) == 80, (name, len(regs))
            a, b, acc = assign(regs)
            off, size = secs['.text.' + name]
            text = bytearray(data[off:off + size]); old = bytes(text)
            clashes = threereads = 0
            prev = None
            for x, (d, ra, rb, rc, ua, ub) in zip(ffmas, sequence(a, b, acc, len(ffmas))):
                enc = x.enc & ~(0xf << 122) & MASK128
                for shift, _ in FIELDS:
                    enc &= ~(0xff << shift) & MASK128
                enc |= d << 16 | ra << 24 | rb << 32 | rc << 64 | int(ua) << 122 | int(ub) << 123
                text[x.addr:x.addr + 16] = enc.to_bytes(16, 'little')
                reads = [rc] + ([ra] if not (prev and prev[4] and prev[1] == ra) else []) \
                    + ([rb] if not (prev and prev[5] and prev[2] == rb) else [])
                threereads += len(reads) == 3
                clashes += len(reads) == 2 and reads[0] % 2 == reads[1] % 2
                prev = (d, ra, rb, rc, ua, ub)
            at = obj.find(old); assert at >= 0 and obj.find(old, at + 1) < 0
            obj[at:at + len(old)] = text
            print(f'{name[:30]} FFMAs {len(ffmas)} three-read {threereads} two-read clashes {clashes}')
open(dst, 'wb').write(obj)
