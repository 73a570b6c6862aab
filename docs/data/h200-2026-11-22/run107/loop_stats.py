#!/usr/bin/env python3
"""Statistics of the hottest loop (the backward branch whose body holds the most FFMAs) of each
kernel in a cuobjdump -sass listing: instructions, FFMAs, register-file reads per FFMA (sources
not served by the operand reuse cache) and bank clashes among those reads."""
import re, sys
ins_re = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?);')
def parse(lines):
    out = []
    for l in lines:
        m = ins_re.search(l)
        if m: out.append((int(m.group(1), 16), m.group(2).strip()))
    return out
def hottest_loop(ins):
    best = None
    for i, (addr, text) in enumerate(ins):
        m = re.search(r'BRA (0x[0-9a-f]+)', text)
        if not m: continue
        tgt = int(m.group(1), 16)
        if tgt >= addr: continue
        body = [t for a, t in ins if tgt <= a <= addr]
        n = sum(1 for t in body if re.match(r'(@!?U?P\w+\s+)?FFMA', t))
        if n >= 1024 and (best is None or len(body) < len(best[1])): best = (n, body)
    return best[1] if best else []
def stats(body):
    prev = {}  # slot -> (reg, reuse flag) of the previous instruction
    s = dict(ins=len(body), ffma=0, reads3=0, clash4=0, clash2_3=0, lds=0)
    for t in body:
        if 'LDS' in t: s['lds'] += 1
        m = re.match(r'(?:@!?U?P\w+\s+)?(\w+)(\.\S+)?\s*(.*)', t)
        op, args = m.group(1), m.group(3)
        regs = [a.strip() for a in args.split(',')]
        srcs = regs[1:]
        cur = {}
        if op == 'FFMA':
            s['ffma'] += 1
            file_reads = []
            for slot, r in enumerate(srcs):
                rm = re.match(r'-?\|?(R\d+)(\.reuse)?', r)
                if not rm: continue
                reg, reuse = rm.group(1), bool(rm.group(2))
                hit = prev.get(slot, (None, False))
                if not (hit[0] == reg and hit[1]): file_reads.append(int(reg[1:]))
                cur[slot] = (reg, reuse)
            fr = sorted(set(file_reads))
            if len(fr) == 3: s['reads3'] += 1
            banks4 = [r % 4 for r in fr]
            if len(banks4) != len(set(banks4)): s['clash4'] += 1
            if len(fr) == 3 and len({r % 2 for r in fr}) == 1: s['clash2_3'] += 1
            key = f"r{len(fr)}{'c' if len(banks4) != len(set(banks4)) else ''}"
            s[key] = s.get(key, 0) + 1
        prev = cur
    return s
txt = open(sys.argv[1]).read().split('Function : ')[1:]
for f in txt:
    name, *lines = f.split('\n')
    m = re.search(r'kernelILb(\d)ELb(\d)ELb(\d)E', name)
    key = ''.join(m.groups()) if m else name[:40]
    st = stats(hottest_loop(parse(lines)))
    # dispatch-stall cycles per warp and k-tile, by session 3's samples per category (run 14)
    est = (18 * (st.get('r2', 0) + st.get('r1', 0)) + 25 * st.get('r3', 0) + 52.5 * st.get('r3c', 0) + 18 * st.get('r2c', 0)) / 117.4
    print(key, st, 'est', round(est, 1))
