"""Shared by scripts/area_by_unit.py and scripts/logic_depth.py: a `warpforge synth` netlist
(yosys JSON) and the name of every net bit."""
import json


def load_top(path):
    """The netlist's largest module (the flattened design)."""
    design = json.load(open(path))
    return max(design["modules"].values(), key=lambda m: len(m.get("cells", {})))


def net_names(mod):
    """bit -> (name, public, index in that net): the shortest public name of each bit."""
    names = {}
    for name, net in mod["netnames"].items():
        public = net.get("hide_name", 1) == 0
        for i, bit in enumerate(net["bits"]):
            if isinstance(bit, int):
                old = names.get(bit)
                if old is None or (public and (not old[1] or len(name) < len(old[0]))):
                    names[bit] = (name, public, i)
    return names
