"""Unit tests of resource_report.py on hand-written `cuobjdump -res-usage -sass` text.

Standard library only; no GPU, no cuobjdump. Run from the build with `ctest -L host`, or:
  python3 -m unittest discover -s tools/sass -p 'test_*.py' -v
"""

import collections
import os
import stat
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import resource_report as rr  # noqa: E402

NAIVE = "_Z20simt_01_naive_kernelN5sgemm6detail6ParamsE"
BLOCKTILE = "_Z27simt_05_blocktile_2d_kernelILb1ELb0EEvv"
TMA_ANON = "_ZN5sgemm6detail12_GLOBAL__N_118simt_13_tma_kernelILi1EEEvNS0_6ParamsE"
PACK = "_Z14tc_pack_kernelPfi"


def counted(*instructions):
    """The Counter count_instruction leaves after (opcode, operands) pairs."""
    counts = collections.Counter()
    for opcode, operands in instructions:
        rr.count_instruction(counts, opcode, operands)
    return counts


def watched(*instructions):
    """hgmma_a_clobbers after (opcode, operands) pairs through one WgmmaRegisterWatch."""
    counts, watch = collections.Counter(), rr.WgmmaRegisterWatch()
    for opcode, operands in instructions:
        watch.step(counts, opcode, operands)
    return counts["hgmma_a_clobbers"]


def straight(*opcodes, start=0):
    """(address, opcode, None) at 16-byte steps: code without branches."""
    return [(start + 16 * i, op, None) for i, op in enumerate(opcodes)]


class SlugOf(unittest.TestCase):
    def test_kernel_of_the_naming_rule(self):
        self.assertEqual(rr.slug_of(BLOCKTILE), "simt-05-blocktile-2d")
        self.assertEqual(rr.slug_of("_Z21tc_03_wgmma_rs_kernelILi0EEvv"), "tc-03-wgmma-rs")

    def test_length_run_into_an_anonymous_namespace(self):
        # `_GLOBAL__N_1` is followed by `18simt_13...`: the digit run reads 118, and only its
        # tail 18 is the identifier's length.
        self.assertEqual(rr.slug_of(TMA_ANON), "simt-13-tma")

    def test_names_outside_the_rule(self):
        self.assertEqual(rr.slug_of(PACK), "-")                      # no rung number
        self.assertEqual(rr.slug_of("_Z3fooPf"), "-")
        self.assertEqual(rr.slug_of("_Z5simt_05_x_kernelv"), "-")    # wrong length prefix
        self.assertEqual(rr.slug_of("simt_05_blocktile_2d_kernel"), "-")  # not mangled


class StripSignature(unittest.TestCase):
    def test_drops_parameters_and_void(self):
        self.assertEqual(
            rr.strip_signature("void simt_05_blocktile_2d_kernel<true, false>(sgemm::Params)"),
            "simt_05_blocktile_2d_kernel<true, false>")

    def test_nested_parentheses(self):
        self.assertEqual(rr.strip_signature("void f<(int)3>(float (*)(int), int)"), "f<(int)3>")

    def test_without_signature_unchanged(self):
        self.assertEqual(rr.strip_signature("plain_name"), "plain_name")
        self.assertEqual(rr.strip_signature("voidish()"), "voidish")


class Demangle(unittest.TestCase):
    def test_without_cxxfilt_names_stay_mangled(self):
        with mock.patch.object(rr.shutil, "which", return_value=None):
            self.assertEqual(rr.demangle([BLOCKTILE, PACK]), {BLOCKTILE: BLOCKTILE, PACK: PACK})

    def test_no_names(self):
        self.assertEqual(rr.demangle([]), {})

    @unittest.skipUnless(rr.shutil.which("c++filt"), "c++filt not installed")
    def test_with_cxxfilt_namespaces_and_signature_go(self):
        names = rr.demangle([BLOCKTILE, TMA_ANON])
        self.assertEqual(names[BLOCKTILE], "simt_05_blocktile_2d_kernel<true, false>")
        self.assertEqual(names[TMA_ANON], "simt_13_tma_kernel<1>")


class CountInstruction(unittest.TestCase):
    def test_memory_widths(self):
        c = counted(("LDS.128", "R4, [R2+0x10]"), ("LDS", "R4, [R2]"), ("LDS.U.64", "R4, [R2]"),
                    ("STS.128", "[R2], R4"), ("STS.64", "[R2], R4"), ("LDG.E.64", "R4, desc[UR4][R2.64]"))
        self.assertEqual((c["lds128"], c["lds32"], c["lds64"]), (1, 1, 1))
        self.assertEqual((c["sts128"], c["sts64"], c["sts32"]), (1, 1, 0))
        self.assertEqual((c["ldg64"], c["ldg32"]), (1, 0))

    def test_l2_prefetch_hint_is_not_a_width(self):
        c = counted(("LDG.E.LTC128B", "R4, desc[UR4][R2.64]"),
                    ("LDG.E.LTC128B.128", "R4, desc[UR4][R2.64]"))
        self.assertEqual((c["ldg32"], c["ldg128"]), (1, 1))

    def test_opcodes_counted_as_they_are(self):
        c = counted(("LDGSTS.E.BYPASS.128", "[R1], desc[UR4][R2.64]"), ("UTMALDG.2D", "[UR8], [UR4]"),
                    ("HMMA.1688.F32.TF32", "R4, R8, R12, R4"), ("HGMMA.64x128x8.F32.TF32", "R24, gdesc[UR4], R24"),
                    ("LDL", "R2, [R1]"), ("STL.64", "[R1], R2"), ("IMAD", "R1, R2, R3, R4"))
        self.assertEqual([c[k] for k in ("ldgsts", "utmaldg", "hmma", "hgmma", "ldl", "stl")],
                         [1, 1, 1, 1, 1, 1])
        self.assertEqual(c["ffma"], 0)
        self.assertEqual(c["ldgsts128"], 0)     # LDGSTS is not split by width

    def test_ffma_reuse_operands(self):
        c = counted(("FFMA", "R65, -R28, R40.reuse, R65"), ("FFMA.FTZ", "R1, R2.reuse, 0.5, RZ"))
        self.assertEqual(c["ffma"], 2)
        self.assertEqual(c["ffma_sources"], 4)  # -R28, R40, R65, R2: the immediate and RZ are not
        self.assertEqual(c["ffma_reused"], 2)

    def test_other_opcodes_count_nothing(self):
        self.assertEqual(counted(("IADD3", "R1, R2, 0x1, RZ"), ("BRA", "0x100")), collections.Counter())


class WgmmaWatch(unittest.TestCase):
    HGMMA = "HGMMA.64x128x8.F32.TF32"

    def test_write_to_an_in_flight_a_register(self):
        self.assertEqual(watched((self.HGMMA, "R24, R160, gdesc[UR4], R24, gsb0"),
                                 ("LDS.64", "R162, [R3]")), 1)

    def test_retired_by_depbar(self):
        self.assertEqual(watched((self.HGMMA, "R24, R160, gdesc[UR4], R24, gsb0"),
                                 ("WARPGROUP.DEPBAR.LE", "gsb0, 0x0"),
                                 ("LDS.64", "R162, [R3]")), 0)

    def test_depbar_keeps_the_newest_groups(self):
        program = [(self.HGMMA, "R24, R160, gdesc[UR4], R24, gsb0"),
                   (self.HGMMA, "R24, R170, gdesc[UR6], R24, gsb0"),
                   ("WARPGROUP.DEPBAR.LE", "gsb0, 0x1")]
        self.assertEqual(watched(*program, ("MOV", "R161, R2")), 0)   # the older group: retired
        self.assertEqual(watched(*program, ("MOV", "R173, R2")), 1)   # the newer one: in flight

    def test_open_group_and_widths(self):
        # Not yet committed counts too; LDS.128 at R156 covers R156-R159 only, .64 at R159 hits R160.
        self.assertEqual(watched((self.HGMMA, "R24, R160, gdesc[UR4], R24"),
                                 ("LDS.128", "R156, [R3]"), ("LDS.64", "R159, [R3]")), 1)

    def test_a_from_shared_memory_reads_no_registers(self):
        self.assertEqual(watched((self.HGMMA, "R24, gdesc[UR4], R24, gsb0"),
                                 ("LDS.64", "R24, [R3]"), ("STS", "[R3], R160")), 0)


class MainLoopRange(unittest.TestCase):
    def loop(self, lo, body, extra_after=("EXIT",)):
        """A loop of `body` opcodes starting at address lo, closed by BRA back to lo."""
        code = straight(*body, start=lo)
        end = lo + 16 * len(body)
        code.append((end, "BRA", lo))
        code += straight(*extra_after, start=end + 16)
        return code

    def test_single_loop(self):
        code = straight("MOV", "IMAD") + self.loop(0x20, ["LDS.128", "FFMA", "FFMA", "IADD3"])
        self.assertEqual(rr.main_loop_range(code), (0x20, 0x60))
        self.assertEqual(rr.main_loop(code), (5, 2))

    def test_no_loop(self):
        code = straight("FFMA", "FFMA") + [(0x20, "BRA", 0x40)] + straight("FFMA", "EXIT", start=0x30)
        self.assertIsNone(rr.main_loop_range(code))    # a forward branch is no loop
        self.assertIsNone(rr.main_loop(code))
        self.assertIsNone(rr.main_loop_range([]))

    def test_loop_without_ffma_is_not_main(self):
        self.assertIsNone(rr.main_loop_range(self.loop(0x0, ["LDS", "IADD3", "ISETP.NE.AND"])))

    def test_innermost_wins_over_an_outer_loop_with_more_ffma(self):
        #   0x00 FFMA x4 | 0x40 inner: FFMA FFMA BRA 0x40 | 0x70 FFMA | 0x80 BRA 0x00
        code = straight("FFMA", "FFMA", "FFMA", "FFMA")
        code += self.loop(0x40, ["FFMA", "FFMA"], extra_after=("FFMA",))
        code.append((0x80, "BRA", 0x0))
        self.assertEqual(rr.main_loop_range(code), (0x40, 0x60))

    def test_most_ffma_then_shorter(self):
        a = self.loop(0x00, ["FFMA", "FFMA", "IADD3"], extra_after=())       # 2 FFMA, 4 long
        b = self.loop(0x40, ["FFMA", "FFMA", "FFMA"], extra_after=())        # 3 FFMA
        self.assertEqual(rr.main_loop_range(a + b), (0x40, 0x70))
        c = self.loop(0x80, ["FFMA", "FFMA"], extra_after=())                # 2 FFMA, 3 long
        self.assertEqual(rr.main_loop_range(a + c), (0x80, 0xa0))

    def test_barrier_retry_at_the_loop_head_does_not_make_it_outer(self):
        # 0x00 SYNCS try-wait; 0x10 BRA 0x00 (retry); then FFMAs; 0x40 BRA 0x00.
        code = [(0x00, "SYNCS.PHASECHK.TRANS64.TRYWAIT", None), (0x10, "BRA", 0x00),
                (0x20, "FFMA", None), (0x30, "FFMA", None), (0x40, "BRA", 0x00)]
        self.assertEqual(rr.main_loop_range(code), (0x00, 0x40))
        # The same retry elsewhere in the loop is an inner loop, and it has no FFMA: no main loop.
        moved = [(0x00, "FFMA", None), (0x10, "SYNCS.PHASECHK.TRANS64.TRYWAIT", None),
                 (0x20, "BRA", 0x10), (0x30, "FFMA", None), (0x40, "BRA", 0x00)]
        self.assertIsNone(rr.main_loop_range(moved))


def sass_line(address, text):
    return (f"        /*{address:04x}*/                   {text} ;"
            "                                     /* 0x000fe20000000800 */\n"
            "                                                                   "
            "                          /* 0x000fe20000000800 */")


def dump(*members):
    """cuobjdump -res-usage -sass text: members of (name, [(mangled, resources, [sass])])."""
    out = []
    for member, functions in members:
        out += [f"member libsgemm.a:{member}:", "", "Fatbin elf code:", "================",
                "arch = sm_90a", "code version = [1,8]", "host = linux", "compile_size = 64bit", "",
                "Resource usage:", " Common:", "  GLOBAL:0"]
        for name, res, _ in functions:
            out += [f" Function {name}:", "  " + res + " CONSTANT[0]:900 TEXTURE:0 SURFACE:0 SAMPLER:0"]
        out += ["", "\tcode for sm_90a"]
        for name, _, sass in functions:
            if sass is None:
                continue
            out += [f"\t\tFunction : {name}", '\t.headerflags\t@"EF_CUDA_SM90"']
            out += [sass_line(16 * i, text) for i, text in enumerate(sass)]
            out.append("\t\t..........")
        out.append("")
    return "\n".join(out) + "\n"


BLOCKTILE_SASS = ["MOV R1, c[0x0][0x28]", "LDG.E.128 R4, desc[UR4][R2.64]", "STS.128 [R3], R4",
                  "LDS.128 R8, [R3]", "FFMA R20, R8.reuse, R12, R20", "FFMA R21, R8, R13, R21",
                  "@!P0 FFMA R22, -R9, R12, R22", "ISETP.NE.AND P0, PT, R5, RZ, PT",
                  "@P0 BRA 0x30", "STG.E [R2.64], R20", "EXIT"]


class Parse(unittest.TestCase):
    def setUp(self):
        patcher = mock.patch.object(rr.shutil, "which", return_value=None)  # symbols stay mangled
        patcher.start()
        self.addCleanup(patcher.stop)

    def rows(self):
        text = dump(
            ("05_blocktile_2d.cu.o", [(BLOCKTILE, "REG:122 STACK:16 SHARED:8192 LOCAL:0", BLOCKTILE_SASS),
                                      (PACK, "REG:32 STACK:0 SHARED:0 LOCAL:0", None)]),
            ("01_naive.cu.o", [(NAIVE, "REG:30 STACK:0 SHARED:0 LOCAL:4", ["FFMA R1, R2, R3, R1", "EXIT"]),
                               # defined in a header: in every member that uses it, counted once
                               (BLOCKTILE, "REG:99 STACK:0 SHARED:0 LOCAL:0", ["FFMA R1, R2, R3, R1"])]))
        return rr.parse(text)

    def test_one_row_per_function_in_member_order(self):
        # Archive members in their order (not by name); within a member, by slug.
        rows = self.rows()
        self.assertEqual([r["mangled"] for r in rows], [PACK, BLOCKTILE, NAIVE])
        self.assertEqual([r["slug"] for r in rows], ["-", "simt-05-blocktile-2d", "simt-01-naive"])
        self.assertTrue(all(r["arch"] == "sm_90a" for r in rows))

    def test_resources_and_mix(self):
        row = self.rows()[1]
        self.assertEqual((row["registers"], row["stack_bytes"], row["shared_bytes"], row["local_bytes"]),
                         (122, 16, 8192, 0))   # the first member's values, not the duplicate's
        self.assertEqual((row["ffma"], row["lds128"], row["sts128"], row["ldg128"]), (3, 1, 1, 1))
        self.assertEqual(row["ffma_reuse_pct"], "11.1")      # 1 of 9 register sources
        self.assertEqual((row["loop_instructions"], row["loop_ffma"]), (6, 3))  # 0x30-0x80
        self.assertEqual(row["symbol"], BLOCKTILE)

    def test_function_without_sass(self):
        row = self.rows()[0]
        self.assertEqual(row["registers"], 32)
        self.assertEqual((row["ffma"], row["ffma_reuse_pct"], row["loop_instructions"]), (0, "-", "-"))

    def test_no_loop(self):
        row = self.rows()[2]
        self.assertEqual((row["ffma"], row["local_bytes"], row["loop_ffma"]), (1, 4, "-"))

    def test_hgmma_clobber_column(self):
        text = dump(("x.o", [("_Z21tc_03_wgmma_rs_kernelILi0EEvv", "REG:168 STACK:0 SHARED:0 LOCAL:0",
                              ["HGMMA.64x128x8.F32.TF32 R24, R160, gdesc[UR4], R24, gsb0",
                               "LDS.64 R160, [R3]", "WARPGROUP.DEPBAR.LE gsb0, 0x0", "LDS.64 R160, [R3]",
                               "EXIT"])]))
        (row,) = rr.parse(text)
        self.assertEqual((row["slug"], row["hgmma"], row["hgmma_a_clobbers"]), ("tc-03-wgmma-rs", 1, 1))

    def test_empty_dump(self):
        self.assertEqual(rr.parse(""), [])


class Tsv(unittest.TestCase):
    def test_header_only(self):
        self.assertEqual(rr.to_tsv([]), "\t".join(rr.COLUMNS) + "\n")

    def test_rows_follow_the_columns(self):
        with mock.patch.object(rr.shutil, "which", return_value=None):
            rows = rr.parse(dump(("a.o", [(BLOCKTILE, "REG:122 STACK:0 SHARED:0 LOCAL:0", BLOCKTILE_SASS)])))
        lines = rr.to_tsv(rows).splitlines()
        self.assertEqual(len(lines), 2)
        fields = dict(zip(lines[0].split("\t"), lines[1].split("\t")))
        self.assertEqual(len(lines[1].split("\t")), len(rr.COLUMNS))
        self.assertEqual((fields["slug"], fields["registers"], fields["ffma"], fields["mangled"]),
                         ("simt-05-blocktile-2d", "122", "3", BLOCKTILE))

    def test_a_missing_column_is_an_error(self):
        with self.assertRaises(KeyError):
            rr.to_tsv([{"slug": "x"}])


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir))

    def test_write_if_changed(self):
        path = self.dir / "sub" / "report.tsv"
        rr.write_if_changed(path, "a\n")
        self.assertEqual(path.read_text(), "a\n")
        os.utime(path, (1_000_000, 1_000_000))
        rr.write_if_changed(path, "a\n")
        self.assertEqual(path.stat().st_mtime, 1_000_000)     # untouched
        rr.write_if_changed(path, "b\n")
        self.assertEqual(path.read_text(), "b\n")
        self.assertNotEqual(path.stat().st_mtime, 1_000_000)

    def test_main_without_cuobjdump_writes_the_header(self):
        tsv, inc = self.dir / "r.tsv", self.dir / "gen" / "r.inc"
        argv = ["resource_report.py", str(self.dir / "libsgemm.a"), "--tsv", str(tsv), "--inc", str(inc)]
        with mock.patch.object(sys, "argv", argv), mock.patch("sys.stdout"):
            rr.main()
        header = "\t".join(rr.COLUMNS) + "\n"
        self.assertEqual(tsv.read_text(), header)
        self.assertTrue(inc.read_text().endswith(f'R"tsv({header})tsv"\n'))

    def fake_cuobjdump(self, body):
        path = self.dir / "cuobjdump"
        path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def test_run_cuobjdump(self):
        ok = self.fake_cuobjdump('echo "$1 $2 $3"\n')
        self.assertEqual(rr.run_cuobjdump(ok, Path("lib.a")), "-res-usage -sass lib.a\n")
        empty = self.fake_cuobjdump('echo "cuobjdump info: does not contain device code" >&2; exit 1\n')
        self.assertEqual(rr.run_cuobjdump(empty, Path("lib.a")), "")
        failing = self.fake_cuobjdump('echo "cannot open" >&2; exit 1\n')
        with self.assertRaises(SystemExit):
            rr.run_cuobjdump(failing, Path("lib.a"))


if __name__ == "__main__":
    unittest.main()
