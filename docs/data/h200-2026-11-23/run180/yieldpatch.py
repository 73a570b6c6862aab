#!/usr/bin/env python3
"""Diagnostic (run 180): set the yield hint on chosen FFMAs of every rung-13 k-loop in SASS.

Run 177's samples put the loop's warp switches on 128-byte instruction-line boundaries: the warp
is 'not selected' at the first instruction of a line and 'dispatch'-stalled a few before. The
yield hint (control bit 109, 0 = yield) asks the scheduler to switch warps after the instruction.
Modes: line7 yields after the last instruction of each line (line offset 7), line37 after offsets
3 and 7, every after every FFMA. Only FFMAs are changed. Results stay exact: a hint only changes
which ready warp issues."""
import os, subprocess, sys, tempfile
sys.path.insert(0, '/work/main/scripts')
from ffma_reorder import disassemble, main_loop, elf_sections
CU = '/work/main/.deps/python/nvidia/cu13/bin/cuobjdump'
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
OFFSETS = {'line7': {7}, 'line37': {3, 7}, 'every': set(range(8))}[mode]
YIELD = 1 << 109
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
            text = bytearray(data[off:off + size]); old = bytes(text); changed = 0
            for x in body:
                if x.is_ffma and (x.addr % 128) // 16 in OFFSETS and x.enc & YIELD:
                    text[x.addr:x.addr + 16] = (x.enc & ~YIELD).to_bytes(16, 'little'); changed += 1
            at = obj.find(old); assert at >= 0 and obj.find(old, at + 1) < 0
            obj[at:at + len(old)] = text
            print(name[60:110], 'loop', len(body), 'yield set on', changed)
open(dst, 'wb').write(obj)
