#!/usr/bin/env python3
"""Logic cells of a `warpforge synth` netlist by unit (docs/fpga.md, "Measured: `small`").

usage: python3 scripts/area_by_unit.py DIR/synth.json [DEPTH [ROWS]]

yosys's `synth_ecp5` flattens the design, so its cells carry no hierarchy; each cell is counted
in the unit of the net it drives (that net's shortest public name, cut to DEPTH levels, the
`$N` instance suffixes dropped, so both SMs and every lane add up under one row). Rows are
sorted by logic cells = LUT4 + 2 x CCU2C (a carry cell takes two LUT sites). An approximation:
a LUT whose output net is named after the register it feeds is counted there.
"""
import collections
import re
import sys

from netlist import load_top, net_names


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    mod = load_top(sys.argv[1])
    names = net_names(mod)

    def unit(name):
        parts = [re.sub(r"\$\d+$", "", p) for p in name.replace("dut.", "").split(".")]
        return ".".join(parts[:depth])

    count = collections.defaultdict(collections.Counter)
    for cell in mod["cells"].values():
        outs = [
            b
            for port, bits in cell["connections"].items()
            if cell["port_directions"][port] == "output"
            for b in bits
            if isinstance(b, int)
        ]
        count[unit(names[outs[0]][0]) if outs and outs[0] in names else "?"][cell["type"]] += 1

    def cells(c):
        return c["LUT4"] + 2 * c["CCU2C"]

    print(f"{'logic cells':>11} {'LUT4':>7} {'CCU2C':>6} {'FF':>7} {'DPR16X4':>7}  unit")
    for u, c in sorted(count.items(), key=lambda kv: -cells(kv[1]))[:rows]:
        print(f"{cells(c):>11,} {c['LUT4']:>7,} {c['CCU2C']:>6,} {c['TRELLIS_FF']:>7,} "
              f"{c['TRELLIS_DPR16X4']:>7,}  {u}")


if __name__ == "__main__":
    main()
