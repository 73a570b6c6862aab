#!/usr/bin/env python3
"""Build-time resource report of every kernel in libsgemm.a.

Runs `cuobjdump -res-usage -sass` on the library and writes one TSV row per __global__ function
and target architecture (each template instantiation separately):

  slug             registry slug, from the naming rule `<slug with '-' as '_'>_kernel`; '-' if none
  arch             SASS target, e.g. sm_90a
  symbol           demangled name without namespaces and parameter list (mangled if no c++filt)
  registers, shared_bytes, stack_bytes, local_bytes
                   cuobjdump's REG, SHARED (static), STACK, LOCAL. ptxas puts spills in the
                   stack frame, so a spill shows as stack_bytes > 0 with LDL/STL, not as LOCAL.
  ffma             FFMA instructions
  ffma_reuse_pct   percentage of FFMA source-register operands marked .reuse ('-' without FFMA):
                   how often an operand comes from the register reuse cache (seed 001)
  lds32 lds64 lds128, sts32 sts64 sts128, ldg32 ldg64 ldg128
                   shared loads/stores and global loads by width in bits (32: no width suffix)
  ldgsts           cp.async (LDGSTS), utmaldg: TMA loads (UTMALDG)
  hmma, hgmma      mma.sync and wgmma instructions
  hgmma_a_clobbers instructions that write a register holding the A operand of a wgmma
                   (HGMMA with A in registers) that no WARPGROUP.DEPBAR has retired yet: the
                   tensor cores read those registers until then, and ptxas does not keep them
                   apart. Read in program order, one pass per function, so a hazard carried
                   around a loop's back edge is not seen; a heuristic, not a proof
  ldl, stl         local-memory loads and stores (spills, local arrays)
  loop_instructions, loop_ffma
                   the main loop: of the innermost loops (a backward branch whose range holds no
                   other), the one with the most FFMA; its instructions and FFMAs per pass. '-'
                   without such a loop. An FFMA-bound loop issues one instruction per cycle per
                   scheduler at best, so every non-FFMA instruction in it costs FFMA time
                   (on an H200, 13 more instructions beside rung 13's 1024 FFMAs made it
                   1.3-1.5% slower)
  mangled          the exact symbol

Also writes the same text as a C++ raw string literal, for a program to embed:

  constexpr std::string_view kKernelResources =
  #include "kernel_resources.inc"
      ;

Without --cuobjdump both files hold the header only, so the build goes on and the consumers can
say why the report is empty. Python 3 standard library only; c++filt is used when present.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
from pathlib import Path

COLUMNS = [
    "slug", "arch", "symbol", "registers", "shared_bytes", "stack_bytes", "local_bytes",
    "ffma", "ffma_reuse_pct",
    "lds32", "lds64", "lds128", "sts32", "sts64", "sts128", "ldg32", "ldg64", "ldg128",
    "ldgsts", "utmaldg", "hmma", "hgmma", "hgmma_a_clobbers", "ldl", "stl",
    "loop_instructions", "loop_ffma", "mangled",
]

# Opcodes counted as they are; the memory opcodes whose width matters are split by it below.
COUNTED = {"FFMA": "ffma", "LDGSTS": "ldgsts", "UTMALDG": "utmaldg", "HMMA": "hmma",
           "HGMMA": "hgmma", "LDL": "ldl", "STL": "stl"}
BY_WIDTH = {"LDS": "lds", "STS": "sts", "LDG": "ldg"}

# `member lib.a:x.o:` heads each archive member; an ELF's resources follow `arch = sm_90a`,
# its SASS follows `code for sm_90a`.
MEMBER = re.compile(r"^member (.*):$")
ELF_ARCH = re.compile(r"^arch = (sm_\w+)$")
RES_FUNCTION = re.compile(r"^ Function (\S+):$")
RES_VALUES = re.compile(r"\b(REG|STACK|SHARED|LOCAL):(\d+)")
SASS_ARCH = re.compile(r"^\s*code for (sm_\w+)$")
SASS_FUNCTION = re.compile(r"^\s*Function : (\S+)$")
# `        /*0710*/   @!P0 FFMA R65, -R28, R40.reuse, R65 ;   /* 0x... */`
SASS_INSTRUCTION = re.compile(
    r"^\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
BRANCH_TARGET = re.compile(r"\b0x([0-9a-f]+)$")
REGISTER = re.compile(r"^[-|!]*R(\d+)\b")
# A kernel identifier of the naming rule, e.g. simt_05_blocktile_2d_kernel.
KERNEL_IDENTIFIER = re.compile(r"([a-z]+_[0-9]{2}(?:_[a-z0-9]+)+)_kernel")


def slug_of(mangled: str) -> str:
    """The registry slug of a kernel, or '-'.

    An Itanium-mangled name spells each identifier as <length><identifier>. The length may run
    into the digits of what precedes it (an anonymous namespace's hash), so every tail of a
    digit run is tried as the length of the identifier that follows.
    """
    for run in re.finditer(r"[0-9]+", mangled):
        for i in range(len(run.group())):
            identifier = mangled[run.end():run.end() + int(run.group()[i:])]
            if kernel := KERNEL_IDENTIFIER.fullmatch(identifier):
                return kernel.group(1).replace("_", "-")
    return "-"


def demangle(names: list[str]) -> dict[str, str]:
    """Readable names: `simt_05_blocktile_2d_kernel<true, false>` (mangled if no c++filt)."""
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt or not names:
        return {name: name for name in names}
    result = subprocess.run([cxxfilt], input="\n".join(names) + "\n", capture_output=True,
                            text=True, check=True)
    readable = {}
    for name, full in zip(names, result.stdout.splitlines()):
        full = full.replace("(anonymous namespace)::", "").replace("sgemm::detail::", "")
        readable[name] = strip_signature(full)
    return readable


def strip_signature(demangled: str) -> str:
    """`void f<A>(int, float*)` -> `f<A>`: drops the parameter list and a template's return type."""
    if demangled.endswith(")"):
        depth = 0
        for i in range(len(demangled) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(demangled[i], 0)
            if depth == 0:
                demangled = demangled[:i]
                break
    if demangled.startswith("void "):
        demangled = demangled[len("void "):]
    return demangled


def count_instruction(counts: collections.Counter, opcode: str, operands: str) -> None:
    base, *modifiers = opcode.split(".")
    if base in COUNTED:
        counts[COUNTED[base]] += 1
    if base in BY_WIDTH:
        # Only a bare 64/128 is a width; LTC128B is an L2 prefetch hint, not a width.
        width = next((m for m in modifiers if m in ("64", "128")), "32")
        counts[BY_WIDTH[base] + width] += 1
    if base == "FFMA":
        sources = [s.strip() for s in operands.split(",")[1:]]
        registers = [s for s in sources if REGISTER.match(s)]
        counts["ffma_sources"] += len(registers)
        counts["ffma_reused"] += sum(s.endswith(".reuse") for s in registers)


class WgmmaRegisterWatch:
    """Follows one function's wgmma groups in program order and counts writes to the A registers
    of groups still in flight.

    An HGMMA whose second operand is a register reads that register and the next three. The
    HGMMA marked `gsb0` closes a group (wgmma.commit_group); `WARPGROUP.DEPBAR.LE gsb0, N`
    (wgmma.wait_group N) retires every closed group but the newest N.
    """

    A_OPERAND = re.compile(r"^R(\d+)$")
    DEPBAR = re.compile(r"gsb0,\s*0x([0-9a-f]+)")

    def __init__(self) -> None:
        self.open: set[int] = set()            # A registers of the group being issued
        self.closed: list[set[int]] = []       # committed groups, oldest first

    def step(self, counts: collections.Counter, opcode: str, operands: str) -> None:
        base, *modifiers = opcode.split(".")
        fields = [f.strip() for f in operands.split(",")]
        if base == "HGMMA":
            if len(fields) > 1 and (m := self.A_OPERAND.match(fields[1])):
                self.open.update(range(int(m.group(1)), int(m.group(1)) + 4))
            if "gsb0" in fields:
                self.closed.append(self.open)
                self.open = set()
            return
        if opcode.startswith("WARPGROUP.DEPBAR"):
            if m := self.DEPBAR.search(operands):
                keep = int(m.group(1), 16)
                self.closed = self.closed[len(self.closed) - keep:] if keep else []
            return
        in_flight = self.open.union(*self.closed) if self.closed else self.open
        if not in_flight or not fields or not (m := REGISTER.match(fields[0])):
            return
        width = 4 if "128" in modifiers else 2 if ("64" in modifiers or "WIDE" in modifiers) else 1
        first = int(m.group(1))
        if any(r in in_flight for r in range(first, first + width)):
            counts["hgmma_a_clobbers"] += 1


def main_loop_range(code: list[tuple[int, str, int | None]]) -> tuple[int, int] | None:
    """(first, last) address of one function's main loop, from its (address, opcode, branch
    target or None) list: the innermost loop with the most FFMAs (the shorter on a tie); None
    when no innermost loop holds an FFMA. A loop without FFMAs that branches back to a loop's
    first instruction (a barrier's retry) does not make that loop an outer one.
    tools/sass/ffma_reorder.py uses it too."""
    def ffmas(lo, hi):
        return sum(op.split(".")[0] == "FFMA" for a, op, _ in code if lo <= a <= hi)
    loops = [(target, address) for address, _, target in code
             if target is not None and target <= address]
    innermost = [(lo, hi) for lo, hi in loops
                 if not any(lo <= l2 and h2 <= hi and (l2, h2) != (lo, hi)
                            and not (l2 == lo and ffmas(l2, h2) == 0) for l2, h2 in loops)]
    best, best_key = None, None
    for lo, hi in innermost:
        key = (ffmas(lo, hi), -sum(lo <= a <= hi for a, _, _ in code))
        if key[0] and (best_key is None or key > best_key):
            best, best_key = (lo, hi), key
    return best


def main_loop(code: list[tuple[int, str, int | None]]) -> tuple[int, int] | None:
    """(instructions, FFMAs) per pass of one function's main loop; None without one."""
    loop = main_loop_range(code)
    if loop is None:
        return None
    body = [op for a, op, _ in code if loop[0] <= a <= loop[1]]
    return len(body), sum(op.split(".")[0] == "FFMA" for op in body)


def parse(dump: str) -> list[dict]:
    """Rows from `cuobjdump -res-usage -sass` output, in archive order, one per (arch, symbol)."""
    resources: dict[tuple[str, str], dict[str, int]] = {}
    counts: dict[tuple[str, str], collections.Counter] = {}
    code: dict[tuple[str, str], list[tuple[int, str, int | None]]] = {}
    member_of: dict[tuple[str, str], int] = {}  # the archive member a function first came from
    member = 0
    elf_arch = sass_arch = ""
    pending = None  # the resource Function line whose values come on the next line
    current = None  # the function whose SASS is being read
    watch = WgmmaRegisterWatch()
    for line in dump.splitlines():
        if m := MEMBER.match(line):
            member += 1
        elif m := ELF_ARCH.match(line):
            elf_arch = m.group(1)
        elif m := RES_FUNCTION.match(line):
            pending = (elf_arch, m.group(1))
        elif pending and (values := RES_VALUES.findall(line)):
            resources.setdefault(pending, {k: int(v) for k, v in values})
            member_of.setdefault(pending, member)
            pending = None
        elif m := SASS_ARCH.match(line):
            sass_arch, current = m.group(1), None
        elif m := SASS_FUNCTION.match(line):
            # A kernel defined in a header is in every member that instantiates it: count once.
            current = (sass_arch, m.group(1))
            if current in counts:
                current = None
            else:
                counts[current] = collections.Counter()
                code[current] = []
                member_of.setdefault(current, member)
                watch = WgmmaRegisterWatch()
        elif current and (m := SASS_INSTRUCTION.match(line)):
            address, opcode, operands = int(m.group(1), 16), m.group(2), m.group(3)
            count_instruction(counts[current], opcode, operands)
            watch.step(counts[current], opcode, operands)
            target = BRANCH_TARGET.search(operands.strip()) if opcode.startswith("BRA") else None
            code[current].append((address, opcode, int(target.group(1), 16) if target else None))

    keys = list(member_of)
    names = demangle(sorted({name for _, name in keys}))
    rows = []
    for arch, name in keys:
        res = resources.get((arch, name), {})
        c = counts.get((arch, name), collections.Counter())
        reuse = f"{100 * c['ffma_reused'] / c['ffma_sources']:.1f}" if c["ffma_sources"] else "-"
        row = {"slug": slug_of(name), "arch": arch, "symbol": names[name],
               "registers": res.get("REG", 0), "shared_bytes": res.get("SHARED", 0),
               "stack_bytes": res.get("STACK", 0), "local_bytes": res.get("LOCAL", 0),
               "ffma_reuse_pct": reuse, "mangled": name}
        loop = main_loop(code.get((arch, name), []))
        row["loop_instructions"], row["loop_ffma"] = loop if loop else ("-", "-")
        for column in COLUMNS:
            row.setdefault(column, c[column])
        rows.append(row)
    # Archive members come in the library's source order (ladder order); within a member,
    # instantiations of one kernel stay together.
    arch_rank = {arch: i for i, arch in enumerate(dict.fromkeys(arch for arch, _ in keys))}
    rows.sort(key=lambda r: (member_of[(r["arch"], r["mangled"])], r["slug"], r["symbol"],
                             arch_rank[r["arch"]]))
    return rows


def run_cuobjdump(cuobjdump: str, library: Path) -> str:
    result = subprocess.run([cuobjdump, "-res-usage", "-sass", str(library)],
                            capture_output=True, text=True)
    if result.returncode != 0 and "does not contain device code" not in result.stderr:
        sys.exit(f"resource_report: {cuobjdump} failed on {library}:\n{result.stderr}")
    return result.stdout


def to_tsv(rows: list[dict]) -> str:
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(str(row[c]) for c in COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def write_if_changed(path: Path, text: str) -> None:
    """Leaves an unchanged file untouched, so that what includes it is not rebuilt."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", type=Path, help="libsgemm.a (or any object with device code)")
    parser.add_argument("--cuobjdump", help="cuobjdump executable; without it, header only")
    parser.add_argument("--tsv", type=Path, required=True, help="the TSV to write")
    parser.add_argument("--inc", type=Path, help="the C++ raw string literal to write")
    args = parser.parse_args()

    rows = parse(run_cuobjdump(args.cuobjdump, args.library)) if args.cuobjdump else []
    tsv = to_tsv(rows)
    write_if_changed(args.tsv, tsv)
    if args.inc:
        write_if_changed(args.inc, "// Generated by scripts/resource_report.py; do not edit.\n"
                                   f'R"tsv({tsv})tsv"\n')
    kernels = sum(row["slug"] != "-" for row in rows)
    print(f"resource_report: {len(rows)} functions ({kernels} of registered kernels) -> {args.tsv}"
          if args.cuobjdump else f"resource_report: no cuobjdump, header only -> {args.tsv}")


if __name__ == "__main__":
    main()
