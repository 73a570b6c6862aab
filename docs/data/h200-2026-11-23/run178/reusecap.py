#!/usr/bin/env python3
"""Diagnostic (run 178): in every rung-13 k-loop, clear the reuse flags of the FFMA that would be
the 5th in a row to set one, so that no FFMA follows 5 consecutive reuse-setting FFMAs (the ones
run 177 found held at dispatch). Results stay exact: a cleared flag only makes the next FFMA read
its operand from the register file."""
import os, subprocess, sys, tempfile
sys.path.insert(0, '/work/main/scripts')
from ffma_reorder import disassemble, main_loop, elf_sections
CU = '/work/main/.deps/python/nvidia/cu13/bin/cuobjdump'
src, dst, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
REUSE = 0xf << 122
obj = bytearray(open(src, 'rb').read())
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([CU, '-xelf', 'all', os.path.abspath(src)], cwd=tmp, check=True, capture_output=True)
    for cubin in sorted(os.listdir(tmp)):
        if not (cubin.endswith('.cubin') and 'sm_90a' in cubin): continue
        path = os.path.join(tmp, cubin); data = open(path, 'rb').read(); secs = elf_sections(data)
        for name, insts in disassemble(CU, path).items():
            if 'simt_13_tma_kernel' not in name: continue
            body = main_loop(insts)
            off, size = secs['.text.' + name]
            text = bytearray(data[off:off + size]); old = bytes(text); run = cleared = 0
            for x in body:
                if x.is_ffma and x.enc & REUSE:
                    run += 1
                    if run == cap:
                        enc = x.enc & ~REUSE
                        text[x.addr:x.addr + 16] = enc.to_bytes(16, 'little'); cleared += 1; run = 0
                else:
                    run = 0
            at = obj.find(old); assert at >= 0 and obj.find(old, at + 1) < 0
            obj[at:at + len(old)] = text
            print(name[60:110], 'cleared', cleared)
open(dst, 'wb').write(obj)
