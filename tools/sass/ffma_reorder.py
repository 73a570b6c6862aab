#!/usr/bin/env python3
"""Reorders the FFMAs of a kernel's main loop in SASS so that more of them take a factor from the
operand-reuse cache. A build step for rung 13 (docs/ladder.md; docs/experiments.md, section 6).

Why: rung 13's k-loop issues one instruction per cycle at best, and an FFMA that reads all three
sources from the register file costs its scheduler about one more cycle (on an H200, clearing
every reuse flag of the loop cost ~0.86 cycles per extra three-read FFMA). ptxas orders
the FFMAs for the shared-memory loads and leaves ~27% of them reading three registers; an FFMA
that shares a factor with the FFMA just before it reads that factor from the reuse cache.

What changes: only which FFMA sits at each FFMA position of the loop, the order of its two
factors, and the reuse flags. The other instructions, every position's control bits (stall
count, yield, scoreboard barriers, wait mask) and all register numbers stay as ptxas wrote them.
An FFMA may move to a position only if there
  - every register it reads still comes from the same instruction (so each accumulator chain
    keeps its order and a fragment is read before the load that overwrites it),
  - it issues at least LATENCY cycles after an FFMA whose result it reads (ptxas' own minimum),
  - the loads it reads, or whose destination it overwrites, are complete: at or after a wait on
    the scoreboard of that load or of a later one (shared loads complete in order, as ptxas
    assumes),
  - it does not cross a branch or any instruction it shares a register with, and it does not
    move earlier at all if it overwrites a source of another instruction before it (a shared
    load reads its address at a variable time: ptxas guards that by a wait on the load's read
    barrier, or by distance alone, both kept only if the FFMA stays where it was or later).
A greedy pass fills the positions in order, taking among the FFMAs allowed there the one with
the fewest extra register-file cycles (two banks, by register parity: three reads, or two of one
parity, take two cycles), then the fewest reads (a factor shared with the previous FFMA comes
from the cache), then one whose deadline is near, then ptxas' order.
The result is checked independently (producers, latencies, load waits, around the back edge),
written into the object file, disassembled again and compared with the expected code. A loop
that is not recognized, or for which the greedy pass finds no order, is kept as it is.

Usage: ffma_reorder.py OBJECT -o OUT --kernel PREFIX --cuobjdump PATH --tsv REPORT
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from resource_report import main_loop_range

LATENCY = 4                                    # cycles from an FFMA to a reader of its result
CONTROL = ((1 << 17) - 1) << 105               # stall, yield, barriers, wait mask: bits 105-121
REUSE_BIT = {0: 122, 1: 123}                   # reuse flags of source slots A and B
MASK128 = (1 << 128) - 1


# --- SASS text -----------------------------------------------------------------------------
class Inst:
    """One SASS instruction: address, text without the trailing ';', 128-bit encoding."""
    def __init__(self, addr, text, enc):
        self.addr, self.text, self.enc = addr, text, enc
        self.op = text.split()[1] if text.startswith('@') else text.split()[0]
        self.is_ffma = self.op == 'FFMA'
        self.stall = (enc >> 105) & 15
        self.write_barrier = (enc >> 110) & 7
        self.wait_mask = (enc >> 116) & 63

    def registers(self):
        """(written, read) general registers; ValueError for an instruction not modelled."""
        regs = [int(r) for r in re.findall(r'\bR(\d+)\b', self.text)]
        if self.is_ffma:
            if re.search(r'^@|[-|]R|\bRZ\b|0x', self.text):
                raise ValueError('FFMA with a predicate, a modifier or an immediate: ' + self.text)
            return [regs[0]], regs[1:]
        if self.op == 'LDS.128':
            return list(range(regs[0], regs[0] + 4)), regs[1:]
        if self.op in ('MOV', 'SHF.L.U32', 'IMAD', 'LEA', 'IADD3'):
            return [regs[0]], regs[1:]
        if self.op in ('SYNCS.PHASECHK.TRANS64.TRYWAIT', 'ISETP.NE.AND', 'SYNCS.ARRIVE.TRANS64.A1T0'):
            return [], regs
        if not regs:                            # uniform registers, predicates, branches only
            return [], []
        raise ValueError('instruction not modelled: ' + self.text)


def disassemble(cuobjdump, path):
    """{function name: [Inst]} for one cubin."""
    out = subprocess.run([cuobjdump, '-sass', path], check=True, capture_output=True, text=True).stdout
    parts = re.split(r'\n\s+Function : (\S+)\n', out)
    line = re.compile(r'^\s+/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* 0x([0-9a-f]{16}) \*/\n'
                      r'\s+/\* 0x([0-9a-f]{16}) \*/', re.M)
    return {parts[k]: [Inst(int(m[1], 16), m[2].strip(), int(m[3], 16) | int(m[4], 16) << 64)
                       for m in line.finditer(parts[k + 1])]
            for k in range(1, len(parts), 2)}


def main_loop(insts):
    """The main loop's instructions, as the resource report finds it (resource_report.py)."""
    code = []
    for x in insts:
        m = re.search(r'\bBRA (0x[0-9a-f]+)', x.text)
        code.append((x.addr, x.op, int(m[1], 16) if m else None))
    loop = main_loop_range(code)
    return [x for x in insts if loop[0] <= x.addr <= loop[1]] if loop else None


# --- constraints ---------------------------------------------------------------------------
def load_completion(body):
    """done[t] for t over two passes of the loop: the last position whose load is known complete
    when position t issues (a wait on a barrier completes its loads and, in order, every earlier
    one)."""
    n = len(body)
    done, issued, last = [-1] * (2 * n), [], -1
    for t in range(2 * n):
        x = body[t % n]
        for b in range(6):
            if x.wait_mask >> b & 1:
                last = max([last] + [u for u, bb in issued if bb == b])
        done[t] = last
        if x.op.startswith('LDS'):
            issued.append((t, x.write_barrier))
    return done


def first_complete(done, n, load, offset):
    """First position of the pass starting at `offset` at which the load at `load` is done."""
    return next(p for p in range(n) if done[offset + p] >= load)


def constraints(body):
    """Per FFMA position: earliest and latest-exclusive position, and the FFMA dependences."""
    n = len(body)
    done = load_completion(body)
    ffma = [i for i in range(n) if body[i].is_ffma]
    lo, hi = {f: 0 for f in ffma}, {f: n for f in ffma}
    edges = set()
    access = {}
    for i, x in enumerate(body):
        written, read = x.registers()
        for r in read:
            access.setdefault(r, []).append((i, 'r'))
        for r in written:
            access.setdefault(r, []).append((i, 'w'))
    for i, x in enumerate(body):                # branches and barriers: nothing crosses them
        # An mbarrier arrive (SYNCS) releases the stage that the loop's shared loads read: ptxas
        # makes it wait for those loads through the FFMAs that read their results, so an FFMA
        # moved across it would let the producer overwrite the stage under a load in flight.
        if x.op in ('BRA', 'BRX', 'JMP', 'JMX', 'CALL', 'RET', 'EXIT', 'BSSY', 'BSYNC',
                    'WARPSYNC') or x.op.startswith(('SYNCS', 'BAR', 'MEMBAR')):
            for f in ffma:
                if f < i: hi[f] = min(hi[f], i)
                else: lo[f] = max(lo[f], i + 1)
    for r, seq in access.items():
        for k, (i, kind) in enumerate(seq):
            for j, kj in seq[:k]:
                if j == i or (kind == 'r' and kj == 'r'):
                    continue
                if body[i].is_ffma and body[j].is_ffma:
                    edges.add((j, i, kj == 'w' and kind == 'r'))
                elif body[i].is_ffma:
                    lo[i] = max(lo[i], j + 1)
                    if kj == 'r':               # overwrites a source of j: never earlier (check())
                        lo[i] = max(lo[i], i)
                    if kj == 'w' and body[j].op.startswith('LDS'):
                        lo[i] = max(lo[i], first_complete(done, n, j, 0))
                elif body[j].is_ffma:
                    hi[j] = min(hi[j], i)
        writes = [i for i, kind in seq if kind == 'w']
        if writes and body[writes[0]].is_ffma and any(
                kind == 'r' and not body[j].is_ffma for j, kind in seq if j > writes[-1]):
            lo[writes[0]] = max(lo[writes[0]], writes[0])   # a source of last pass' instruction
        if writes and body[writes[-1]].op.startswith('LDS'):   # a load of the previous pass
            for i, kind in seq:
                if i > writes[0]:
                    break
                if body[i].is_ffma:
                    lo[i] = max(lo[i], first_complete(done, n, writes[-1], n))
    preds = {f: [] for f in ffma}
    succs = {f: [] for f in ffma}
    for j, i, raw in edges:
        preds[i].append((j, raw))
        succs[j].append((i, raw))
    for f in sorted(ffma, reverse=True):        # a successor's deadline bounds its producers
        for g, raw in succs[f]:
            hi[f] = min(hi[f], hi[g] - (LATENCY if raw else 1))
    return ffma, lo, hi, preds


# --- the order -----------------------------------------------------------------------------
def operands(x):
    """FFMA d, a, b, c as register numbers."""
    return tuple(int(r) for r in re.findall(r'\bR(\d+)\b', x.text))


def file_reads(prev, cur):
    """Registers that FFMA `cur` (d, a, b, c) reads from the register file after `prev`."""
    d, a, b, c = cur
    cached = [r for s, r in ((1, a), (2, b)) if prev and prev[s] == r and prev[0] != r]
    return [r for r in (a, b) if r not in cached] + [c]


def bank_cycles(reads):
    """Extra cycles to read these registers from two banks (by register parity)."""
    even = sum(r % 2 == 0 for r in reads)
    return max(even, len(reads) - even) - 1


def reorder(body):
    """{position: (d, a, b, c, original position)} for every FFMA position; None if stuck."""
    ffma, lo, hi, preds = constraints(body)
    cycle = [0]
    for x in body:
        cycle.append(cycle[-1] + x.stall)
    ops = {f: operands(body[f]) for f in ffma}
    placed, at, left = {}, {}, set(ffma)
    for si, p in enumerate(ffma):
        def ready(f):
            return lo[f] <= p and all(g in placed and (not raw or cycle[p] - cycle[placed[g]] >= LATENCY)
                                      for g, raw in preds[f])
        cand = [f for f in left if ready(f)]
        for deadline in sorted({hi[f] for f in left}):
            need = sum(hi[f] <= deadline for f in left)
            room = sum(q < deadline for q in ffma[si:])
            if need > room:
                return None
            if need == room:                    # no slack left: only those may go here
                cand = [f for f in cand if hi[f] <= deadline]
                break
        if not cand:
            return None
        prev = at.get(p - 1)

        def key(f):
            d, a, b, c = ops[f]
            if prev and (a == prev[2] or b == prev[1]):
                a, b = b, a
            reads = file_reads(prev, (d, a, b, c))
            return (bank_cycles(reads), len(reads), hi[f] - p > 40, f)
        f = min(cand, key=key)
        d, a, b, c = ops[f]
        if prev and (a == prev[2] or b == prev[1]):   # a shared factor keeps its slot
            a, b = b, a
        at[p] = (d, a, b, c, f)
        placed[f] = p
        left.discard(f)
    return at


def three_reads(body, at):
    return sum(len(file_reads(at.get(p - 1), at[p][:4])) == 3 for p in at)


def original_order(body):
    return {p: operands(x) + (p,) for p, x in enumerate(body) if x.is_ffma}


def rewrite(body, at):
    """[(encoding, expected text, written, read, original position)] for every position."""
    out = []
    for p, x in enumerate(body):
        if p not in at:
            written, read = x.registers()
            out.append((x.enc, x.text, written, read, p))
            continue
        d, a, b, c, f = at[p]
        enc = (body[f].enc & ~CONTROL & ~(0xf << 122) & MASK128) | (x.enc & CONTROL)
        enc = (enc & ~(0xff << 24) & ~(0xff << 32) & MASK128) | a << 24 | b << 32
        flags = ['', '']
        nxt = at.get(p + 1)
        for s, r in ((0, a), (1, b)):
            if nxt and nxt[1 + s] == r and d != r:
                enc |= 1 << REUSE_BIT[s]
                flags[s] = '.reuse'
        text = 'FFMA R%d, R%d%s, R%d%s, R%d' % (d, a, flags[0], b, flags[1], c)
        out.append((enc, text, [d], [a, b, c], f))
    return out


def require(ok, what):
    if not ok:
        raise RuntimeError('ffma_reorder: the rewritten loop fails a check: ' + what)


def check(body, new):
    """Raises unless the rewritten loop computes what ptxas' loop computes."""
    n = len(body)
    old = [x.registers() + (p,) for p, x in enumerate(body)]
    mine = [(w, r, ident) for _, _, w, r, ident in new]

    def producers(seq):
        src, last = {}, {}
        for p, (_, read, ident) in enumerate(seq):
            for r in read:
                q = p - 1
                while q >= p - n and r not in seq[q % n][0]:
                    q -= 1
                src[(ident, r)] = seq[q % n][2] if q >= p - n else None
        for written, _, ident in seq:
            for r in written:
                last[r] = ident
        return src, last
    require(producers(old) == producers(mine), 'a register would be read from another producer')
    where = {ident: p for p, (_, _, ident) in enumerate(mine)}
    cycle = [0]
    for x in body:
        cycle.append(cycle[-1] + x.stall)
    done = load_completion(body)
    src, _ = producers(mine)
    for (ident, r), s in src.items():
        if s is None:
            continue
        pc, pp = where[ident], where[s]
        if body[s].is_ffma and body[ident].is_ffma:
            gap = cycle[pc] - cycle[pp] if pp < pc else cycle[n] - cycle[pp] + cycle[pc]
            require(gap >= LATENCY, 'FFMA latency')
        if body[s].op.startswith('LDS') and body[ident].is_ffma:
            require((done[pc] >= pp) if pp < pc else (done[n + pc] >= pp), 'load not complete')
    for p, (written, _, ident) in enumerate(mine):
        if not body[ident].is_ffma:
            continue
        for r in written:
            q = p - 1
            while r not in mine[q % n][0]:
                q -= 1
            if body[mine[q % n][2]].op.startswith('LDS'):
                require((done[p] >= q) if q >= 0 else (done[n + p] >= q + n), 'overwrites a pending load')
            k = q + 1                            # a source of an earlier non-FFMA instruction
            late = any(r in mine[t % n][1] and not body[mine[t % n][2]].is_ffma for t in range(k, p))
            require(not late or p >= ident, 'overwrites a source of an earlier instruction sooner')
    for p, (enc, _, written, read, _) in enumerate(new):    # a reuse flag has its reader next
        for s in (0, 1):
            if body[p].is_ffma and enc >> REUSE_BIT[s] & 1:
                require(p + 1 < n and body[p + 1].is_ffma and new[p + 1][3][s] == read[s]
                        and read[s] not in written, 'a reuse flag without its reader')


# --- object files --------------------------------------------------------------------------
def elf_sections(data):
    """{section name: (offset, size)} of a 64-bit little-endian ELF image."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + k * shentsize) for k in range(shnum)]
    names = heads[shstrndx][4]
    out = {}
    for h in heads:
        name = data[names + h[0]:data.index(b'\0', names + h[0])].decode()
        out[name] = (h[4], h[5])
    return out


def plan_cubin(cuobjdump, cubin, prefix, report):
    """[(original text bytes, new text bytes, expected loop texts)] for the matching kernels."""
    data = open(cubin, 'rb').read()
    sections = elf_sections(data)
    plans = []
    for name, insts in disassemble(cuobjdump, cubin).items():
        if not re.search(r'\d' + re.escape(prefix) + r'I', name) and not name.startswith(prefix):
            continue
        off, size = sections['.text.' + name]
        text = data[off:off + size]
        body = main_loop(insts)
        status, before, after = 'kept: no loop with FFMAs', '-', '-'
        if body and sum(x.is_ffma for x in body) >= 64:
            before = three_reads(body, original_order(body))
            try:
                at = reorder(body)
            except ValueError as e:
                at, status = None, 'kept: ' + str(e)
            else:
                status = 'kept: no order within the constraints' if at is None else status
            if at is not None:
                new = rewrite(body, at)
                check(body, new)
                after = three_reads(body, at)
                patched = bytearray(text)
                for x, (enc, *_rest) in zip(body, new):
                    patched[x.addr:x.addr + 16] = enc.to_bytes(16, 'little')
                plans.append((bytes(text), bytes(patched), name, [(e, t) for e, t, *_r in new]))
                status = 'reordered'
        report.append((name, os.path.basename(cubin), sum(x.is_ffma for x in body or []), before, after, status))
    return plans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('object')
    ap.add_argument('-o', '--output', required=True)
    ap.add_argument('--kernel', required=True, help='mangled-name stem of the kernels to reorder')
    ap.add_argument('--cuobjdump', required=True)
    ap.add_argument('--tsv', required=True, help='report: one row per kernel')
    args = ap.parse_args()
    args.cuobjdump = os.path.abspath(args.cuobjdump) if os.sep in args.cuobjdump else args.cuobjdump
    obj = bytearray(open(args.object, 'rb').read())
    report, plans = [], []
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([args.cuobjdump, '-xelf', 'all', os.path.abspath(args.object)], cwd=tmp,
                       check=True, capture_output=True)
        for cubin in sorted(os.listdir(tmp)):
            if cubin.endswith('.cubin') and 'sm_90a' in cubin:
                plans += plan_cubin(args.cuobjdump, os.path.join(tmp, cubin), args.kernel, report)
        for old, new, name, _ in list(plans):
            at = obj.find(old)
            if at < 0 or obj.find(old, at + 1) >= 0:   # e.g. a compressed fatbin: leave it be
                plans.remove((old, new, name, _))
                report = [r[:5] + ('kept: its code is not found once in the object',) if r[0] == name
                          else r for r in report]
                continue
            obj[at:at + len(old)] = new
        tmp_out = os.path.join(tmp, 'out.o')
        open(tmp_out, 'wb').write(obj)
        check_dir = os.path.join(tmp, 'check')
        os.mkdir(check_dir)
        subprocess.run([args.cuobjdump, '-xelf', 'all', tmp_out], cwd=check_dir, check=True,
                       capture_output=True)
        # One disassembly per cubin for all the kernels checked in it.
        kernels = [disassemble(args.cuobjdump, os.path.join(check_dir, c))
                   for c in sorted(os.listdir(check_dir)) if 'sm_90a' in c]
        for _, _, name, texts in plans:
            loop = main_loop(next(k[name] for k in kernels if k.get(name)))
            if [(x.enc, x.text) for x in loop] != texts:
                sys.exit('ffma_reorder: %s does not disassemble to the expected code' % name)
        shutil.copyfile(tmp_out, args.output)
    with open(args.tsv, 'w') as f:
        f.write('kernel\tcubin\tloop_ffma\tthree_read_before\tthree_read_after\tstatus\n')
        for row in report:
            f.write('\t'.join(str(v) for v in row) + '\n')
    for name, _, nffma, before, after, status in report:
        print('ffma_reorder: %s: %s (three-read FFMAs %s -> %s of %s)' % (name, status, before, after, nffma))


if __name__ == '__main__':
    main()
