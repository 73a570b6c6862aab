#!/usr/bin/env python3
"""Diagnostic only (not for main): rewrite the shared loads of rung 13's k-loops in SASS.
mode nop:   every LDS.128 of the loop becomes a NOP (same stall count, no scoreboard).
mode lds32: every LDS.128 becomes LDS (32-bit) with the same address, destination, scoreboard.
The results are wrong; the point is the loop's speed without (or with 1/4 of) the loads'
register write-backs."""
import os, re, shutil, subprocess, sys, tempfile
sys.path.insert(0, '/work/main/scripts')
from ffma_reorder import disassemble, main_loop, elf_sections
CU = '/work/main/.deps/python/nvidia/cu13/bin/cuobjdump'
src, dst, mode = sys.argv[1:4]
obj = bytearray(open(src, 'rb').read())
NOP = 0x7918
CTRL = ((1 << 17) - 1) << 105
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([CU, '-xelf', 'all', os.path.abspath(src)], cwd=tmp, check=True, capture_output=True)
    for cubin in sorted(os.listdir(tmp)):
        if not (cubin.endswith('.cubin') and 'sm_90a' in cubin): continue
        path = os.path.join(tmp, cubin); data = open(path, 'rb').read(); secs = elf_sections(data)
        for name, insts in disassemble(CU, path).items():
            if 'simt_13_tma_kernel' not in name: continue
            body = main_loop(insts)
            off, size = secs['.text.' + name]
            text = bytearray(data[off:off + size]); old = bytes(text); n = 0
            for x in body:
                if x.op != 'LDS.128': continue
                if mode == 'nop':
                    ctrl = x.enc & CTRL
                    ctrl |= 7 << 110 | 7 << 113          # no write or read barrier
                    enc = NOP | ctrl
                else:
                    enc = x.enc & ~(1 << 74)              # size .128 -> .32
                text[x.addr:x.addr + 16] = enc.to_bytes(16, 'little'); n += 1
            at = obj.find(old); assert at >= 0 and obj.find(old, at + 1) < 0
            obj[at:at + len(old)] = text
            print(name[60:110], 'patched', n)
open(dst, 'wb').write(obj)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([CU, '-xelf', 'all', os.path.abspath(dst)], cwd=tmp, check=True, capture_output=True)
    for cubin in sorted(os.listdir(tmp)):
        if cubin.endswith('.cubin') and 'sm_90a' in cubin:
            for name, insts in disassemble(CU, os.path.join(tmp, cubin)).items():
                if 'simt_13_tma_kernel' in name and 'ILb1ELb0ELb0E' in name:
                    body = main_loop(insts)
                    print([x.text for x in body if x.op.startswith('LDS') or x.op == 'NOP'][:6], len(body))
