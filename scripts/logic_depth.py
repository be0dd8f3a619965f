#!/usr/bin/env python3
"""Every long register-to-register path of a `warpforge synth` netlist, ranked (docs/fpga.md).

usage: python3 scripts/logic_depth.py DIR/synth.json [--rows N] [--min-ns T] [--end REGEX]
                                     [--by-unit]

nextpnr reports one critical path per clock, and one place and route of `tiny` takes about
25 minutes, so cutting paths one place and route at a time is slow. This estimates, before
placement, the delay of the longest path into every register, RAM write port and block-RAM
input of the mapped netlist (yosys's `synth_ecp5` output) and lists the worst endpoints, one row
per register bus (the bits of one signal are one row), with the units the path crosses.

The delay model is rough and meant for ranking: each cell's own delay (ECP5 speed 6 figures of
nextpnr's timing model, rounded), a block RAM's clock-to-output (5.8 ns without its output
register), plus ROUTE_NS for every net between two cells, except the carry chain's dedicated
CIN/COUT wires. On `tiny` at 42082a5 this model's worst path is nextpnr's placed critical
path (17.1 ns estimated, 15.8 ns placed).
"""
import argparse
import collections
import re
import sys

from netlist import load_top, net_names

ROUTE_NS = 0.9
# (input ports, output ports, delay ns) of the combinational arcs; a cell type not listed is a
# register or I/O: its outputs start paths, its inputs end them.
COMB = {
    "LUT4": 0.25,
    "PFUMX": 0.2,
    "L6MUX21": 0.2,
    "CCU2C": 0.35,  # A/B → S or COUT; CIN → COUT is CARRY_NS
    "TRELLIS_DPR16X4": 0.6,  # RAD → DO (the asynchronous read); write ports end paths
    "MULT18X18D": 3.9,  # A/B → P with no pipeline registers (yosys 0.23 packs none)
}
CARRY_NS = 0.05
# Clock-to-output of the sequential cells whose outputs start paths late: a DP16KD without its
# output register (nextpnr's figure on `tiny`, 42082a5: 5.83 ns). Flip-flops start at 0.
CLK_TO_OUT = {"DP16KD": 5.8}
SEQ_INPUT_ONLY = {"TRELLIS_DPR16X4": {"DI", "WAD", "WRE"}}


def strip(name):
    return re.sub(r"\$\d+", "", name.replace("dut.", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("netlist", help="DIR/synth.json of a `warpforge synth` run")
    ap.add_argument("--rows", type=int, default=40, help="endpoints listed (default 40)")
    ap.add_argument("--min-ns", type=float, default=0.0, help="list only paths this long")
    ap.add_argument("--end", help="list only endpoints whose name matches this regex")
    ap.add_argument("--nets", action="store_true",
                    help="print every net of each listed path, with its arrival time")
    ap.add_argument("--by-unit", action="store_true",
                    help="count the listed endpoints by (end unit, start unit) instead")
    args = ap.parse_args()
    rows, min_ns = args.rows, args.min_ns
    mod = load_top(args.netlist)
    names = net_names(mod)

    def label(bit):
        n = names.get(bit)
        return f"{strip(n[0])}[{n[2]}]" if n else f"${bit}"

    def bus(bit):
        n = names.get(bit)
        return strip(n[0]) if n else f"${bit}"

    # Combinational arcs: driver bit -> list of (cell, out bits); cell inputs.
    driver = {}  # bit -> cell name (combinational cells only)
    start = {}  # bit -> clock-to-output of the sequential cell driving it
    cells = mod["cells"]
    for cname, cell in cells.items():
        for port, bits in cell["connections"].items():
            if cell["port_directions"][port] == "output":
                for b in bits:
                    if not isinstance(b, int):
                        continue
                    if cell["type"] in COMB:
                        driver[b] = cname
                    elif cell["type"] in CLK_TO_OUT:
                        start[b] = CLK_TO_OUT[cell["type"]]

    arrival = {}  # bit -> (ns, levels, predecessor bit)
    visiting = set()

    def arrive(bit):
        """Arrival time at the output `bit` (0 at a register or port)."""
        if bit in arrival:
            return arrival[bit]
        cname = driver.get(bit)
        if cname is None:
            arrival[bit] = (start.get(bit, 0.0), 0, None)
            return arrival[bit]
        if bit in visiting:
            raise SystemExit(f"combinational loop through {label(bit)}")
        visiting.add(bit)
        cell = cells[cname]
        kind = cell["type"]
        best = (0.0, 0, None)
        for port, bits in cell["connections"].items():
            if cell["port_directions"][port] != "input":
                continue
            if kind in SEQ_INPUT_ONLY and port.rstrip("0123456789") in SEQ_INPUT_ONLY[kind]:
                continue
            if kind == "TRELLIS_DPR16X4" and port == "WCK":
                continue
            for b in bits:
                if not isinstance(b, int):
                    continue
                t, lv, _ = arrive(b)
                if kind == "CCU2C" and port == "CIN":
                    t += CARRY_NS
                else:
                    t += COMB[kind] + ROUTE_NS
                    lv += 1
                if t > best[0]:
                    best = (t, lv, b)
        visiting.discard(bit)
        arrival[bit] = best
        return best

    sys.setrecursionlimit(1_000_000)
    ends = {}  # bus name -> (ns, levels, end bit, cell type)
    for cname, cell in cells.items():
        kind = cell["type"]
        for port, bits in cell["connections"].items():
            if cell["port_directions"][port] != "input":
                continue
            if kind in COMB and not (
                kind in SEQ_INPUT_ONLY
                and port.rstrip("0123456789") in SEQ_INPUT_ONLY[kind]
            ):
                continue
            if port in ("CLK", "WCK", "CLKA", "CLKB"):
                continue
            for b in bits:
                if not isinstance(b, int):
                    continue
                t, lv, _ = arrive(b)
                t += ROUTE_NS
                key = endpoint_name(cname, cell, names)
                if key not in ends or t > ends[key][0]:
                    ends[key] = (t, lv, b, kind)

    def path(bit):
        out = []
        while bit is not None:
            out.append(bit)
            bit = arrival.get(bit, (0, 0, None))[2]
        return out[::-1]

    def units(p):
        seen = []
        for b in p:
            u = ".".join(bus(b).split(".")[:3])
            if not seen or seen[-1] != u:
                seen.append(u)
        return seen

    ranked = sorted(ends.items(), key=lambda kv: -kv[1][0])
    hist = collections.Counter(int(v[0]) for v in ends.values())
    print("endpoints by estimated ns (floor): " + ", ".join(
        f"{k}:{hist[k]}" for k in sorted(hist, reverse=True) if k >= 5))
    if args.end:
        ranked = [r for r in ranked if re.search(args.end, r[0])]
    listed = [r for r in ranked[:rows] if r[1][0] >= min_ns]
    if args.by_unit:
        pairs = collections.Counter()
        for key, (t, lv, b, kind) in listed:
            pairs[(top_unit(key), top_unit(bus(path(b)[0])))] += 1
        for (end, start), n in pairs.most_common():
            print(f"{n:5}  {end} <- {start}")
        return
    for key, (t, lv, b, kind) in listed:
        p = path(b)
        print(f"{t:5.1f} ns {lv:2} lv  {key}  ({kind})")
        print("           from " + label(p[0]) + " via " + " > ".join(units(p)[1:]))
        if args.nets:
            for b in p:
                print(f"           {arrival.get(b, (0,))[0]:5.1f}  {label(b)}")


def top_unit(name):
    """The SM-level unit of a net name (`sm.oc.rr$q` → `sm.oc`)."""
    return ".".join(name.split(".")[:2]).split("$")[0]


def endpoint_name(cname, cell, names):
    """A register's name: its output net's (the bits of one bus share one row); a block RAM's
    or multiplier's, its cell name without the tile and bit indices."""
    if cell["type"] in ("DP16KD", "MULT18X18D"):
        return re.sub(r"(\.\d+)+(_\w+)?$", "", strip(cname))
    for port, bits in cell["connections"].items():
        if cell["port_directions"][port] == "output":
            for b in bits:
                if isinstance(b, int) and b in names:
                    return strip(names[b][0])
    return strip(cname)


if __name__ == "__main__":
    main()
