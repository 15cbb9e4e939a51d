"""Checks that functions fold to constants, from `--emit asm` output (AT&T syntax, x86-64).

A function folds when its body is only `mov`s of immediates (into the return slot `N(%rdi)`
or the return register) or of a register, then `ret`: no call, no branch, no load, no table.
The bytes those stores write are then laid out, and the expected DLPack value must appear in
them. A function LLVM merged with another of identical code (`name = other` in the listing)
is checked through the other's body, and the report says so. Writes a report of every function
(verdict and body) and exits 1 if one does not fold.

Usage: python3 check_fold.py REPORT [!]ASM_FILE:FUNCTION:HEX_BYTES ...
(HEX_BYTES: the value as it sits in memory, e.g. float32 = code 2, bits 32, lanes 1 = 02200100;
a leading `!` marks a control that must NOT fold, which shows the check can fail)
"""

import re
import sys

REGISTERS = {"%al": (0, 1), "%ax": (0, 2), "%eax": (0, 4), "%rax": (0, 8)}
STORE = re.compile(r"^mov([bwlq]|absq)?$")
WIDTH = {"b": 1, "w": 2, "l": 4, "q": 8, "absq": 8}


def alias(asm, name):
    """The function `name` is an alias of (`name = other`: LLVM merged two functions whose
    code is identical, such as a derived mapping and the hand-written one), or None."""
    m = re.search(rf"^{re.escape(name)} = (\S+)$", asm, re.MULTILINE)
    return m.group(1) if m else None


def body(asm, name):
    lines, on = [], False
    for line in asm.splitlines():
        if line.startswith(name + ":"):
            on = True
            continue
        if on:
            if ".cfi_endproc" in line:
                break
            s = line.strip()
            if not s or s.startswith((".", "#")) or re.match(r"^\.?L\w*:", s):
                continue
            lines.append(s)
    return lines


def check(lines, want):
    """(verdict, bytes written): folded iff only immediate/register movs and ret, and `want`
    appears in the bytes stored to the return slot or the return register."""
    if not lines:
        return "MISSING", None
    slot, reg = {}, {}
    for ins in lines:
        parts = ins.replace(",", " ").split()
        op = parts[0]
        if op.startswith("ret"):
            continue
        m = STORE.match(op)
        if not m or len(parts) != 3:
            return f"NOT FOLDED (computes: {ins})", None
        src, dst = parts[1], parts[2]
        if src.startswith("%"):
            if src == "%rdi" and dst == "%rax":  # returning the slot pointer
                continue
            return f"NOT FOLDED (moves a register: {ins})", None
        if not src.startswith("$"):
            return f"NOT FOLDED (loads: {ins})", None
        value = int(src[1:], 0)
        width = WIDTH.get(m.group(1) or "l", 4)
        mem = re.fullmatch(r"(-?\d*)\(%rdi\)", dst)
        if mem:
            base, target = int(mem.group(1) or 0), slot
        elif dst in REGISTERS:
            base, width = REGISTERS[dst][0], REGISTERS[dst][1]
            target = reg
        else:
            return f"NOT FOLDED (stores elsewhere: {ins})", None
        for i, b in enumerate((value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")):
            target[base + i] = b
    for image in (slot, reg):
        for start in image:
            if all(image.get(start + i) == b for i, b in enumerate(want)):
                lo, hi = min(image), max(image)
                shown = "".join(f"{image[i]:02x}" if i in image else ".." for i in range(lo, hi + 1))
                return "folded", shown
    return f"NOT FOLDED (the value {want.hex()} is not among the bytes stored)", None


def main():
    report, specs = sys.argv[1], sys.argv[2:]
    failed = False
    out = []
    cache = {}
    for spec in specs:
        control = spec.startswith("!")
        path, name, hexbytes = spec.lstrip("!").rsplit(":", 2)
        if path not in cache:
            with open(path) as f:
                cache[path] = f.read()
        target = alias(cache[path], name)
        lines = body(cache[path], target or name)
        verdict, laid = check(lines, bytes.fromhex(hexbytes))
        shown = f" (writes {laid}, holding {hexbytes})" if laid is not None else ""
        if target:
            shown += f"; the same code as {target}, merged by LLVM"
        if control:
            ok = verdict.startswith("NOT FOLDED")
            verdict = f"control, {verdict}: {'as expected' if ok else 'UNEXPECTED, the check is broken'}"
        else:
            ok = verdict == "folded"
        failed |= not ok
        print(f"{name}: {verdict}{shown}")
        out.append(f"\n{name}: {verdict}{shown}\n" + "".join(f"\t{l}\n" for l in lines))
    with open(report, "a") as f:
        f.writelines(out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
