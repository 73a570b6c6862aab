"""Unit tests of ffma_reorder.py on hand-written SASS.

The instructions are built with a toy 128-bit encoding that keeps the fields the script touches
where Hopper has them (Ra at bit 24, Rb at bit 32, stall/barrier/wait control bits 105-121,
reuse flags 122-123). A fake cuobjdump (a Python script written to a temporary directory)
disassembles that encoding, so the whole build step runs here: no GPU, no cuobjdump.
Standard library only. Run from the build with `ctest -L host`, or:
  python3 -m unittest discover -s tools/sass -p 'test_*.py' -v
"""

import io
import os
import random
import shutil
import stat
import struct
import sys
import tempfile
import unittest
import warnings
from contextlib import redirect_stdout
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ffma_reorder as fr  # noqa: E402

# --- the toy encoding ------------------------------------------------------------------------
OP_FFMA, OP_BRA, OP_EXIT, OP_NOP, OP_LDS, OP_MOV = 1, 2, 3, 4, 5, 6


def control(stall=1, barrier=7, wait=0):
    return stall << 105 | barrier << 110 | wait << 116


def ffma(d, a, b, c, **ctl):
    return (OP_FFMA | d << 16 | a << 24 | b << 32 | c << 64 | control(**ctl),
            'FFMA R%d, R%d, R%d, R%d' % (d, a, b, c))


def lds128(d, address, **ctl):
    return OP_LDS | d << 16 | address << 24 | control(**ctl), 'LDS.128 R%d, [R%d]' % (d, address)


def mov(d, s, **ctl):
    return OP_MOV | d << 16 | s << 24 | control(**ctl), 'MOV R%d, R%d' % (d, s)


def bra(target, **ctl):
    return OP_BRA | target << 40 | control(**ctl), 'BRA 0x%x' % target


def nop(**ctl):
    return OP_NOP | control(**ctl), 'NOP'


def exit_(**ctl):
    return OP_EXIT | control(**ctl), 'EXIT'


def insts(*encoded, start=0):
    """[Inst] at 16-byte steps from `start`."""
    return [fr.Inst(start + 16 * i, text, enc) for i, (enc, text) in enumerate(encoded)]


def outer_product(order, a0=2, b0=10, acc0=32, **ctl):
    """FFMAs acc[i][j] += a[i] * b[j] for the (i, j) of `order`: independent accumulators."""
    return [ffma(acc0 + 8 * i + j, a0 + i, b0 + j, acc0 + 8 * i + j, **ctl) for i, j in order]


# Diagonal order: no two consecutive FFMAs share a factor, so all 64 read three registers.
DIAGONAL = [(i, (i + k) % 8) for k in range(8) for i in range(8)]


def filler(count, start=0):
    """Independent FFMAs on registers no test uses otherwise (R128-R217)."""
    return outer_product(DIAGONAL[start:start + count], a0=200, b0=210, acc0=128)


def loop_body(encoded):
    """A loop body: the instructions, then the branch back to its first one (whose stall covers
    the FFMA latency around the back edge)."""
    return insts(*encoded, bra(0, stall=5))


def at_order(body, order):
    """An `at` map (as reorder returns) that puts the FFMA at original position order[k] at the
    k-th FFMA position, factors as they are."""
    positions = [p for p, x in enumerate(body) if x.is_ffma]
    return {p: fr.operands(body[f]) + (f,) for p, f in zip(positions, order)}


def swapped(body, p, q):
    order = [f for f, x in enumerate(body) if x.is_ffma]
    i, j = order.index(p), order.index(q)
    order[i], order[j] = order[j], order[i]
    return at_order(body, order)


# --- SASS text -------------------------------------------------------------------------------
class Instruction(unittest.TestCase):
    def test_fields(self):
        enc, text = ffma(1, 2, 3, 1, stall=5, barrier=3, wait=0b100001)
        x = fr.Inst(0x40, text, enc)
        self.assertTrue(x.is_ffma)
        self.assertEqual((x.addr, x.op, x.stall, x.write_barrier, x.wait_mask),
                         (0x40, 'FFMA', 5, 3, 0b100001))

    def test_predicated_opcode(self):
        x = fr.Inst(0, '@!P0 BRA 0x100', 0)
        self.assertEqual(x.op, 'BRA')
        self.assertFalse(x.is_ffma)

    def test_registers(self):
        cases = {
            'FFMA R100, R2, R10, R100': ([100], [2, 10, 100]),
            'FFMA R7, R2.reuse, R10, R8': ([7], [2, 10, 8]),
            'LDS.128 R4, [R20+0x100]': ([4, 5, 6, 7], [20]),
            'MOV R3, R9': ([3], [9]),
            'IADD3 R3, R4, 0x10, RZ': ([3], [4]),
            'ISETP.NE.AND P0, PT, R5, RZ, PT': ([], [5]),
            'SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x8], R6': ([], [6]),
            'BAR.SYNC.DEFER_BLOCKING 0x0': ([], []),
            'UIADD3 UR4, UR4, 0x1, URZ': ([], []),
            'BRA 0x80': ([], []),
        }
        for text, expected in cases.items():
            with self.subTest(text=text):
                self.assertEqual(fr.Inst(0, text, 0).registers(), expected)

    def test_instructions_not_modelled(self):
        for text in ('FFMA R1, -R2, R3, R1', 'FFMA R1, |R2|, R3, R1', 'FFMA R1, R2, RZ, R1',
                     'FFMA R1, R2, 0x3f800000, R1', '@P0 FFMA R1, R2, R3, R1',
                     'LDG.E R2, desc[UR4][R4.64]', 'STS.128 [R3], R4'):
            with self.subTest(text=text), self.assertRaises(ValueError):
                fr.Inst(0, text, 0).registers()

    def test_main_loop_from_the_branch_text(self):
        code = insts(nop(), *outer_product([(0, 0), (0, 1)]), mov(3, 4), bra(0x10), exit_())
        self.assertEqual([x.addr for x in fr.main_loop(code)], [0x10, 0x20, 0x30, 0x40])
        self.assertIsNone(fr.main_loop(insts(nop(), *outer_product([(0, 0)]), exit_())))


# --- registers, banks, reads -----------------------------------------------------------------
class Reads(unittest.TestCase):
    def test_operands(self):
        self.assertEqual(fr.operands(fr.Inst(0, 'FFMA R100, R2.reuse, R11, R100', 0)), (100, 2, 11, 100))

    def test_file_reads(self):
        self.assertEqual(fr.file_reads(None, (1, 2, 3, 4)), [2, 3, 4])
        self.assertEqual(fr.file_reads((5, 2, 7, 8), (1, 2, 3, 4)), [3, 4])    # a from the cache
        self.assertEqual(fr.file_reads((5, 9, 3, 8), (1, 2, 3, 4)), [2, 4])    # b from the cache
        self.assertEqual(fr.file_reads((5, 2, 3, 8), (1, 2, 3, 4)), [4])
        # The cache is per slot, and holds nothing the previous FFMA overwrote.
        self.assertEqual(fr.file_reads((5, 9, 2, 8), (1, 2, 3, 4)), [2, 3, 4])
        self.assertEqual(fr.file_reads((2, 2, 7, 8), (1, 2, 3, 4)), [2, 3, 4])
        # The addend always comes from the file.
        self.assertEqual(fr.file_reads((5, 9, 7, 4), (1, 2, 3, 4)), [2, 3, 4])

    def test_bank_cycles(self):
        self.assertEqual(fr.bank_cycles([2, 3]), 0)
        self.assertEqual(fr.bank_cycles([3]), 0)
        self.assertEqual(fr.bank_cycles([2, 4]), 1)
        self.assertEqual(fr.bank_cycles([2, 3, 4]), 1)
        self.assertEqual(fr.bank_cycles([1, 3, 5]), 2)

    def test_three_reads(self):
        body = loop_body(outer_product(DIAGONAL))
        self.assertEqual(fr.three_reads(body, fr.original_order(body)), 64)
        row_major = loop_body(outer_product([(i, j) for i in range(8) for j in range(8)]))
        self.assertEqual(fr.three_reads(row_major, fr.original_order(row_major)), 8)


# --- constraints -----------------------------------------------------------------------------
class Constraints(unittest.TestCase):
    def test_load_completion(self):
        body = insts(lds128(4, 20, barrier=0), *outer_product([(0, 0)]), ffma(40, 4, 10, 40, wait=0b1))
        # A wait on barrier 0 completes the load of this pass (and, in order, the earlier ones).
        self.assertEqual(fr.load_completion(body), [-1, -1, 0, 0, 0, 3])
        done = fr.load_completion(body)
        self.assertEqual(fr.first_complete(done, 3, 0, 0), 2)
        self.assertEqual(fr.first_complete(done, 3, 3, 3), 2)
        # A wait on another barrier completes nothing; a wait on a later load's barrier completes
        # the earlier loads as well.
        other = insts(lds128(4, 20, barrier=0), ffma(40, 4, 10, 40, wait=0b10))
        self.assertEqual(fr.load_completion(other), [-1, -1, -1, -1])
        later = insts(lds128(4, 20, barrier=0), lds128(8, 20, barrier=1), ffma(40, 4, 10, 40, wait=0b10))
        self.assertEqual(fr.load_completion(later), [-1, -1, 1, 1, 1, 4])

    def test_reader_of_a_load_waits_for_it(self):
        body = insts(lds128(4, 20, barrier=0), *outer_product([(0, 0)]),
                     ffma(40, 4, 10, 40, wait=0b1), bra(0))
        ffmas, lo, hi, preds = fr.constraints(body)
        self.assertEqual(ffmas, [1, 2])
        self.assertEqual((lo[1], lo[2]), (0, 2))
        self.assertEqual((hi[1], hi[2]), (3, 3))    # not past the branch
        self.assertEqual(preds, {1: [], 2: []})

    def test_overwriting_a_load_address_never_moves_earlier(self):
        # The load reads R30 at some time after it issues: the FFMA that overwrites R30 stays
        # where it is or later, even with an FFMA between them.
        body = insts(lds128(4, 30), *filler(1), ffma(30, 12, 13, 30))
        _, lo, _, _ = fr.constraints(body)
        self.assertEqual((lo[1], lo[2]), (0, 2))

    def test_dependences_and_deadlines(self):
        # FFMA 1 reads FFMA 0's result; FFMA 3 accumulates into FFMA 0's register too.
        body = insts(ffma(40, 2, 10, 40), ffma(41, 40, 11, 41), ffma(50, 5, 15, 50),
                     ffma(40, 3, 12, 40), *[nop()] * 6, bra(0))
        ffmas, lo, hi, preds = fr.constraints(body)
        self.assertEqual(ffmas, [0, 1, 2, 3])
        self.assertIn((0, True), preds[1])          # read after write: the FFMA latency applies
        self.assertIn((0, True), preds[3])
        self.assertIn((1, False), preds[3])         # 3 overwrites what 1 reads: order only
        self.assertEqual(hi[3], 10)                 # the branch
        self.assertEqual(hi[1], hi[3] - 1)
        self.assertEqual(hi[0], min(hi[1], hi[3]) - fr.LATENCY)


# --- the order -------------------------------------------------------------------------------
class Reorder(unittest.TestCase):
    def assert_legal(self, body, at):
        self.assertIsNotNone(at)
        positions = [p for p, x in enumerate(body) if x.is_ffma]
        self.assertEqual(sorted(at), positions)
        self.assertEqual(sorted(v[4] for v in at.values()), positions)    # each FFMA once
        for p, (d, a, b, c, f) in at.items():                              # factors may swap
            od, oa, ob, oc = fr.operands(body[f])
            self.assertEqual((d, c, sorted((a, b))), (od, oc, sorted((oa, ob))))
        fr.check(body, fr.rewrite(body, at))

    def test_shares_factors(self):
        body = loop_body(outer_product(DIAGONAL))
        at = fr.reorder(body)
        self.assert_legal(body, at)
        before, after = fr.three_reads(body, fr.original_order(body)), fr.three_reads(body, at)
        self.assertEqual(before, 64)
        self.assertLessEqual(after, 8)

    def test_never_more_three_reads(self):
        rng = random.Random(2024)
        for trial in range(25):
            with self.subTest(trial=trial):
                order = [(i, j) for i in range(4) for j in range(8)]
                rng.shuffle(order)
                encoded = outer_product(order)
                # A second pass over some accumulators (a chain), spread by other instructions.
                encoded += [nop() for _ in range(rng.randint(4, 8))]
                encoded += outer_product(rng.sample(order, 8), a0=100)
                body = loop_body(encoded)
                fr.check(body, fr.rewrite(body, fr.original_order(body)))   # a legal input
                at = fr.reorder(body)
                self.assert_legal(body, at)
                self.assertLessEqual(fr.three_reads(body, at),
                                     fr.three_reads(body, fr.original_order(body)))

    def test_keeps_loads_and_their_readers_apart(self):
        # The FFMAs reading the loaded R4 may not move above the wait that completes the load.
        encoded = [lds128(4, 20, barrier=0)] + filler(16)
        encoded.append(ffma(100, 4, 10, 100, wait=0b1))
        encoded += [ffma(101 + j, 4, 11 + j, 101 + j) for j in range(4)]
        body = loop_body(encoded)
        at = fr.reorder(body)
        self.assert_legal(body, at)
        wait = 17
        for p, v in at.items():
            if 4 in v[1:3]:
                self.assertGreaterEqual(p, wait)

    def test_no_order_within_the_constraints(self):
        # Two dependent FFMAs, one apart: no position is LATENCY after the first.
        body = loop_body([ffma(40, 2, 10, 40), ffma(41, 40, 11, 41)])
        self.assertIsNone(fr.reorder(body))

    def test_unmodelled_instruction(self):
        body = loop_body(outer_product(DIAGONAL[:4]) + [(0, 'LDG.E R2, desc[UR4][R4.64]')])
        with self.assertRaises(ValueError):
            fr.reorder(body)


class Rewrite(unittest.TestCase):
    def test_encoding_and_text(self):
        body = loop_body([ffma(40, 2, 10, 40, stall=2), ffma(41, 3, 11, 41, stall=3, wait=0b10),
                          ffma(42, 10, 2, 42, stall=4)])
        # Swap the first two; FFMA 2 shares R2 with FFMA 0 (in the other slot).
        at = {0: (41, 3, 11, 41, 1), 1: (40, 2, 10, 40, 0), 2: (42, 2, 10, 42, 2)}
        new = fr.rewrite(body, at)
        self.assertEqual([t for _, t, *_ in new], ['FFMA R41, R3, R11, R41',
                                                   'FFMA R40, R2.reuse, R10.reuse, R40',
                                                   'FFMA R42, R2, R10, R42', 'BRA 0x0'])
        for p, (enc, _, _, _, f) in enumerate(new):
            self.assertEqual(enc & fr.CONTROL, body[p].enc & fr.CONTROL)   # the position's bits
            if p < 3:
                d, a, b, c, _ = at[p]
                self.assertEqual((enc >> 16 & 0xff, enc >> 24 & 0xff, enc >> 32 & 0xff, enc >> 64 & 0xff),
                                 (d, a, b, c))
                self.assertEqual(f, at[p][4])
        self.assertEqual(new[1][0] >> 122 & 3, 3)
        self.assertEqual(new[0][0] >> 122 & 3, 0)
        self.assertEqual(new[3][0], body[3].enc)                             # others unchanged
        fr.check(body, new)


    def test_no_reuse_of_a_factor_the_ffma_overwrites(self):
        body = loop_body([ffma(2, 2, 10, 2, stall=4), ffma(50, 2, 10, 50)])
        new = fr.rewrite(body, fr.original_order(body))
        self.assertEqual(new[0][1], 'FFMA R2, R2, R10.reuse, R2')
        self.assertEqual(new[0][0] >> 122 & 3, 2)
        fr.check(body, new)


class Check(unittest.TestCase):
    def test_original_order_passes(self):
        body = loop_body(outer_product(DIAGONAL))
        fr.check(body, fr.rewrite(body, fr.original_order(body)))

    def assert_refused(self, body, at, what):
        with self.assertRaisesRegex(RuntimeError, what):
            fr.check(body, fr.rewrite(body, at))

    def test_another_producer(self):
        # One accumulator chain of three FFMAs: swapping two reads a sum from the wrong link.
        body = loop_body([ffma(40, 2, 10, 40), *filler(4), ffma(40, 3, 11, 40), *filler(4, 4),
                          ffma(40, 4, 12, 40)])
        fr.check(body, fr.rewrite(body, fr.original_order(body)))
        self.assert_refused(body, swapped(body, 0, 5), 'another producer')

    def test_ffma_latency(self):
        body = loop_body([ffma(120, 2, 10, 120), *filler(4), ffma(121, 120, 11, 121)])
        fr.check(body, fr.rewrite(body, fr.original_order(body)))
        self.assert_refused(body, swapped(body, 1, 5), 'FFMA latency')

    def test_load_not_complete(self):
        body = loop_body([lds128(4, 20, barrier=0), *filler(4), ffma(120, 4, 11, 120, wait=0b1)])
        fr.check(body, fr.rewrite(body, fr.original_order(body)))
        self.assert_refused(body, swapped(body, 1, 5), 'load not complete')

    def test_overwrites_a_source_sooner(self):
        body = loop_body([*filler(1), lds128(4, 30), ffma(30, 12, 13, 30)])
        fr.check(body, fr.rewrite(body, fr.original_order(body)))
        self.assert_refused(body, swapped(body, 0, 2), 'overwrites a source of an earlier')

    def test_reuse_flag_without_its_reader(self):
        body = loop_body(filler(8))
        new = fr.rewrite(body, fr.original_order(body))
        enc, *rest = new[3]
        new[3] = (enc | 1 << fr.REUSE_BIT[0], *rest)
        with self.assertRaisesRegex(RuntimeError, 'reuse flag'):
            fr.check(body, new)


# --- object files and the build step ---------------------------------------------------------
def make_elf(sections):
    """A 64-bit little-endian ELF image holding {name: bytes} and its section-name table."""
    names = b'\0' + b''.join(n.encode() + b'\0' for n in list(sections) + ['.shstrtab'])
    data, offsets = bytearray(64), {}
    for name, payload in list(sections.items()) + [('.shstrtab', names)]:
        data += b'\0' * (-len(data) % 16)
        offsets[name] = (len(data), len(payload))
        data += payload
    data += b'\0' * (-len(data) % 8)
    shoff = len(data)
    data += bytes(64)                                                   # the null section
    for name, (off, size) in offsets.items():
        name_at = names.index(b'\0' + name.encode() + b'\0') + 1
        data += struct.pack('<IIQQQQIIQQ', name_at, 1, 0, 0, off, size, 0, 0, 16, 0)
    struct.pack_into('<Q', data, 0x28, shoff)
    struct.pack_into('<HHH', data, 0x3a, 64, len(offsets) + 1, len(offsets))
    return bytes(data)


FAKE_CUOBJDUMP = r'''
import os, shutil, sys
sys.path.insert(0, %(here)r)
from ffma_reorder import elf_sections

def text(enc):
    op, r = enc & 0xff, lambda at: enc >> at & 0xff
    reuse = lambda s: '.reuse' if enc >> (122 + s) & 1 and not os.environ.get('FAKE_NO_REUSE') else ''
    if op == 1:
        return 'FFMA R%%d, R%%d%%s, R%%d%%s, R%%d' %% (r(16), r(24), reuse(0), r(32), reuse(1), r(64))
    if op == 2:
        return 'BRA 0x%%x' %% (enc >> 40 & 0xffffff)
    if op == 5:
        return 'LDS.128 R%%d, [R%%d]' %% (r(16), r(24))
    if op == 6:
        return 'MOV R%%d, R%%d' %% (r(16), r(24))
    return {3: 'EXIT', 4: 'NOP'}[op]

if sys.argv[1] == '-xelf':
    shutil.copyfile(sys.argv[3], 'object.1.sm_90a.cubin')
elif sys.argv[1] == '-sass':
    data = open(sys.argv[2], 'rb').read()
    print('\n\tcode for sm_90a')
    for name, (off, size) in elf_sections(data).items():
        if not name.startswith('.text.'):
            continue
        print('\t\tFunction : %%s' %% name[len('.text.'):])
        print('\t.headerflags\t@"EF_CUDA_SM90"')
        for at in range(0, size, 16):
            enc = int.from_bytes(data[off + at:off + at + 16], 'little')
            print('        /*%%04x*/                   %%s ;   /* 0x%%016x */' %% (at, text(enc), enc & (1 << 64) - 1))
            print('                                                     /* 0x%%016x */' %% (enc >> 64))
        print('\t\t..........\n')
'''


def kernel_code(loop):
    """A function: NOP, the loop at 0x10 (branching back to it), EXIT; as bytes."""
    code = [nop()] + loop + [bra(0x10), exit_()]
    return b''.join(enc.to_bytes(16, 'little') for enc, _ in code)


KERNEL = '_Z18simt_13_tma_kernelILi1EEvv'
SMALL = '_Z18simt_13_tma_kernelILi2EEvv'
OTHER = '_Z9other_fooIiEvv'


class ObjectFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        # ffma_reorder.py reads and writes files through open() without closing them.
        caught = warnings.catch_warnings()
        caught.__enter__()
        self.addCleanup(caught.__exit__, None, None, None)
        warnings.simplefilter('ignore', ResourceWarning)
        script = os.path.join(self.dir, 'fake_cuobjdump.py')
        with open(script, 'w') as f:
            f.write(FAKE_CUOBJDUMP % {'here': HERE})
        self.cuobjdump = os.path.join(self.dir, 'cuobjdump')
        with open(self.cuobjdump, 'w') as f:
            f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, script))
        os.chmod(self.cuobjdump, os.stat(self.cuobjdump).st_mode | stat.S_IXUSR)

    def test_elf_sections(self):
        image = make_elf({'.text.f': b'\x01' * 32, '.nv.info': b'xyz'})
        sections = fr.elf_sections(image)
        self.assertEqual(set(sections), {'', '.text.f', '.nv.info', '.shstrtab'})
        off, size = sections['.text.f']
        self.assertEqual(image[off:off + size], b'\x01' * 32)
        off, size = sections['.nv.info']
        self.assertEqual(image[off:off + size], b'xyz')

    def test_elf_sections_of_a_truncated_image(self):
        with self.assertRaises(struct.error):
            fr.elf_sections(make_elf({'.text.f': b'\x01' * 32})[:0x30])

    def test_disassemble(self):
        path = os.path.join(self.dir, 'k.cubin')
        with open(path, 'wb') as f:
            f.write(make_elf({'.text.' + KERNEL: kernel_code(outer_product(DIAGONAL[:2]))}))
        code = fr.disassemble(self.cuobjdump, path)[KERNEL]
        self.assertEqual([(x.addr, x.text) for x in code],
                         [(0x00, 'NOP'), (0x10, 'FFMA R32, R2, R10, R32'), (0x20, 'FFMA R41, R3, R11, R41'),
                          (0x30, 'BRA 0x10'), (0x40, 'EXIT')])
        self.assertEqual(code[1].stall, 1)

    def run_main(self, sections):
        obj, out, tsv = (os.path.join(self.dir, n) for n in ('in.o', 'out.o', 'report.tsv'))
        with open(obj, 'wb') as f:
            f.write(make_elf(sections))
        argv = ['ffma_reorder.py', obj, '-o', out, '--kernel', 'simt_13_tma_kernel',
                '--cuobjdump', self.cuobjdump, '--tsv', tsv]
        with mock.patch.object(sys, 'argv', argv), redirect_stdout(io.StringIO()):
            fr.main()
        with open(tsv) as f:
            rows = [line.rstrip('\n').split('\t') for line in f]
        with open(obj, 'rb') as f, open(out, 'rb') as g:
            return f.read(), g.read(), rows

    def test_build_step(self):
        before, after, rows = self.run_main({'.text.' + KERNEL: kernel_code(outer_product(DIAGONAL)),
                                             '.text.' + SMALL: kernel_code(outer_product(DIAGONAL[:8])),
                                             '.text.' + OTHER: kernel_code(outer_product(DIAGONAL[:32]))})
        self.assertEqual(rows[0], ['kernel', 'cubin', 'loop_ffma', 'three_read_before',
                                   'three_read_after', 'status'])
        report = {r[0]: r for r in rows[1:]}
        self.assertEqual(set(report), {KERNEL, SMALL})      # OTHER is not one of the kernels
        self.assertEqual(report[KERNEL][2:4], ['64', '64'])
        self.assertLessEqual(int(report[KERNEL][4]), 8)
        self.assertEqual(report[KERNEL][5], 'reordered')
        self.assertEqual(report[SMALL][2:], ['8', '-', '-', 'kept: no loop with FFMAs'])

        self.assertEqual(len(before), len(after))
        old_sections, new_sections = fr.elf_sections(before), fr.elf_sections(after)
        self.assertEqual(old_sections, new_sections)
        for name, (off, size) in old_sections.items():
            if name != '.text.' + KERNEL:
                self.assertEqual(before[off:off + size], after[off:off + size], name)
        off, size = old_sections['.text.' + KERNEL]
        old = [int.from_bytes(before[off + a:off + a + 16], 'little') for a in range(0, size, 16)]
        new = [int.from_bytes(after[off + a:off + a + 16], 'little') for a in range(0, size, 16)]
        self.assertNotEqual(old, new)
        self.assertEqual([e & fr.CONTROL for e in old], [e & fr.CONTROL for e in new])
        self.assertEqual((old[0], old[-2:]), (new[0], new[-2:]))      # NOP, BRA, EXIT
        accumulators = lambda code: sorted((e >> 16 & 0xff, e >> 64 & 0xff) for e in code[1:-2])
        self.assertEqual(accumulators(old), accumulators(new))

    def test_code_not_found_once_is_kept(self):
        code = kernel_code(outer_product(DIAGONAL))
        before, after, rows = self.run_main({'.text.' + KERNEL: code, '.text.' + SMALL: code})
        self.assertEqual(before, after)
        self.assertEqual({r[5] for r in rows[1:]}, {'kept: its code is not found once in the object'})

    def test_disassembly_that_differs_stops_the_build(self):
        with mock.patch.dict(os.environ, {'FAKE_NO_REUSE': '1'}):
            with self.assertRaisesRegex(SystemExit, 'does not disassemble to the expected code'):
                self.run_main({'.text.' + KERNEL: kernel_code(outer_product(DIAGONAL))})


if __name__ == '__main__':
    unittest.main()
