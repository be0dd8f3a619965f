//! Passes over rust-hdl's Verilog text: fixes for what its generator emits, kept apart from the
//! units so that each unit file holds only hardware.

/// Split every `always @(*)` block of rust-hdl's output into one block per group of statements
/// that assign common variables (original order kept inside and across groups).
///
/// rust-hdl emits a module's whole combinational logic as one `always @(*)` block, so Verilator
/// sees every output of the block depending on every input. When a parent feeds a child and reads
/// another of its outputs, that false dependency closes a combinational loop (`UNOPTFLAT`) even
/// though no signal path exists. Reads in rust-hdl's logic follow the writes they depend on
/// (its `LogicLoops` check refuses a local read before written), so splitting at statement
/// granularity keeps the meaning and leaves Verilator the real signal graph.
pub fn split_comb_blocks(verilog: &str) -> String {
    let lines: Vec<&str> = verilog.lines().collect();
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "    always @(*) begin" {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        // Body until the block's own `    end`.
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim_end() != "    end" {
            j += 1;
        }
        let body = &lines[i + 1..j];
        // Statements: start at indent 8 with anything but `end`.
        let mut stmts: Vec<Vec<&str>> = vec![];
        for line in body {
            let indent = line.len() - line.trim_start().len();
            let starts = indent == 8 && !line.trim_start().starts_with("end");
            if starts || stmts.is_empty() {
                stmts.push(vec![line]);
            } else {
                stmts.last_mut().expect("statement").push(line);
            }
        }
        // Union statements that assign a common variable.
        let assigned: Vec<Vec<String>> = stmts.iter().map(|s| assigned_vars(s)).collect();
        let mut parent: Vec<usize> = (0..stmts.len()).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            let mut y = x;
            while p[y] != r {
                let n = p[y];
                p[y] = r;
                y = n;
            }
            r
        }
        // The group's root is its earliest statement.
        fn union(p: &mut [usize], x: usize, y: usize) {
            let (a, b) = (find(p, x), find(p, y));
            p[a.max(b)] = a.min(b);
        }
        let mut owner: std::collections::HashMap<&str, usize> = Default::default();
        for (k, vars) in assigned.iter().enumerate() {
            for v in vars {
                if let Some(&o) = owner.get(v.as_str()) {
                    union(&mut parent, o, k);
                } else {
                    owner.insert(v.as_str(), k);
                }
            }
        }
        // A statement that reads a variable assigned again later in the block sees an
        // intermediate value: it stays in that variable's group, in order.
        let mut last_assign: std::collections::HashMap<&str, usize> = Default::default();
        for (k, vars) in assigned.iter().enumerate() {
            for v in vars {
                last_assign.insert(v.as_str(), k);
            }
        }
        for (k, stmt) in stmts.iter().enumerate() {
            for line in stmt {
                for ident in identifiers(line) {
                    if let Some(&last) = last_assign.get(ident) {
                        if last > k {
                            union(&mut parent, last, k);
                        }
                    }
                }
            }
        }
        let mut groups: Vec<(usize, Vec<usize>)> = vec![];
        let mut group_of: std::collections::HashMap<usize, usize> = Default::default();
        for k in 0..stmts.len() {
            let r = find(&mut parent, k);
            let g = *group_of.entry(r).or_insert_with(|| {
                groups.push((r, vec![]));
                groups.len() - 1
            });
            groups[g].1.push(k);
        }
        for (_, members) in &groups {
            out.push_str("    always @(*) begin\n");
            for &k in members {
                for line in &stmts[k] {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            out.push_str("    end\n");
        }
        i = j + 1;
    }
    out
}

/// The identifiers of a line of Verilog (names may contain `$`).
fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|t| {
            t.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// Variables assigned (`name =` or `name[..] =`, not `==`) anywhere in a statement.
fn assigned_vars(stmt: &[&str]) -> Vec<String> {
    let mut v = vec![];
    for line in stmt {
        let t = line.trim_start();
        let name_len = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(t.len());
        if name_len == 0 {
            continue;
        }
        let rest = t[name_len..].trim_start();
        let rest = if rest.starts_with('[') {
            match rest.find(']') {
                Some(e) => rest[e + 1..].trim_start(),
                None => continue,
            }
        } else {
            rest
        };
        if rest.starts_with('=') && !rest.starts_with("==") {
            let name = &t[..name_len];
            if !matches!(name, "if" | "else" | "end" | "begin") {
                v.push(name.to_string());
            }
        }
    }
    v
}

/// Merge modules whose text is identical except for their own name, keeping the first of each
/// kind and pointing every instantiation of the others at it.
///
/// rust-hdl emits one module per instance (`top$sm$0$alu$lane$3$res_q$0`), so a design with many
/// identical lanes, banks and warps repeats the same text thousands of times: the small preset
/// has 2,484 modules of which 70 differ. Tools that work module by module (yosys synthesizes each
/// module once, Verilator parses each) then do the same work thousands of times. Instance names,
/// and so every hierarchical signal path in a VCD, stay as they were.
///
/// Modules are compared children first, after their children's instantiations were renamed to
/// the kept modules, so that identical parents of identical children merge too.
pub fn dedup_modules(verilog: &str) -> String {
    struct Module<'a> {
        name: &'a str,
        lines: Vec<&'a str>,
        /// Lines that instantiate another module of this text: (line index, type name).
        instances: Vec<(usize, &'a str)>,
    }
    // Split into modules; text outside modules (there is none from rust-hdl) is kept in place
    // as a module without a name.
    let mut modules: Vec<Module> = vec![];
    let mut current: Option<Module> = None;
    let mut loose: Vec<&str> = vec![];
    for line in verilog.lines() {
        if current.is_none() {
            if let Some(rest) = line.strip_prefix("module ") {
                let name = rest.split('(').next().unwrap_or(rest).trim();
                if !loose.is_empty() {
                    modules.push(Module {
                        name: "",
                        lines: std::mem::take(&mut loose),
                        instances: vec![],
                    });
                }
                current = Some(Module {
                    name,
                    lines: vec![line],
                    instances: vec![],
                });
            } else {
                loose.push(line);
            }
            continue;
        }
        let m = current.as_mut().expect("inside a module");
        m.lines.push(line);
        if line.starts_with("endmodule") {
            modules.push(current.take().expect("inside a module"));
        }
    }
    if let Some(m) = current.take() {
        modules.push(m);
    }
    if !loose.is_empty() {
        modules.push(Module {
            name: "",
            lines: loose,
            instances: vec![],
        });
    }
    let index: std::collections::HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.name.is_empty())
        .map(|(i, m)| (m.name, i))
        .collect();
    // An instantiation is `    TYPE NAME(` with TYPE a module of this text.
    for m in &mut modules {
        for (k, line) in m.lines.iter().enumerate().skip(1) {
            let Some(rest) = line.strip_prefix("    ") else {
                continue;
            };
            let mut words = rest.split(' ');
            if let (Some(ty), Some(inst), None) = (words.next(), words.next(), words.next()) {
                if inst.ends_with('(') && index.contains_key(ty) {
                    m.instances.push((k, ty));
                }
            }
        }
    }
    // Children before parents (depth-first post-order from each module in text order).
    let mut order: Vec<usize> = Vec::with_capacity(modules.len());
    let mut entered = vec![false; modules.len()];
    for root in 0..modules.len() {
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (m, ref mut next)) = stack.last_mut() {
            if *next == 0 && entered[m] {
                stack.pop();
                continue;
            }
            entered[m] = true;
            if let Some(&(_, ty)) = modules[m].instances.get(*next) {
                *next += 1;
                let c = index[ty];
                if !entered[c] {
                    stack.push((c, 0));
                }
            } else {
                order.push(m);
                stack.pop();
            }
        }
    }
    // Rewrite instantiations to the kept modules, then key each module by its text with its
    // own name blanked.
    let mut kept_name: Vec<String> = modules.iter().map(|m| m.name.to_string()).collect();
    let mut text: Vec<Option<String>> = vec![None; modules.len()];
    let mut first_of: std::collections::HashMap<String, usize> = Default::default();
    for &m in &order {
        let module = &modules[m];
        let mut body = String::new();
        let mut instances = module.instances.iter().peekable();
        for (k, line) in module.lines.iter().enumerate() {
            match instances.peek() {
                Some(&&(at, ty)) if at == k => {
                    instances.next();
                    body.push_str("    ");
                    body.push_str(&kept_name[index[ty]]);
                    body.push_str(&line[4 + ty.len()..]);
                }
                _ => body.push_str(line),
            }
            body.push('\n');
        }
        if module.name.is_empty() {
            text[m] = Some(body);
            continue;
        }
        let key = body
            .replacen(&format!("module {}(", module.name), "module (", 1)
            .replace(&format!("endmodule // {}\n", module.name), "endmodule //\n");
        match first_of.get(&key) {
            Some(&kept) => kept_name[m] = kept_name[kept].clone(),
            None => {
                first_of.insert(key, m);
                text[m] = Some(body);
            }
        }
    }
    text.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEAF: &str = "    // leaf\n    assign q = d;\n";

    fn module(name: &str, body: &str) -> String {
        format!("module {name}(d,q);\n{body}endmodule // {name}\n")
    }

    #[test]
    fn identical_leaves_and_their_identical_parents_merge() {
        let text = [
            module(
                "top",
                "    top$a a(\n    );\n    top$b b(\n    );\n    top$c c(\n    );\n",
            ),
            module("top$a", "    top$a$r r(\n    );\n"),
            module("top$a$r", LEAF),
            module("top$b", "    top$b$r r(\n    );\n"),
            module("top$b$r", LEAF),
            module("top$c", "    top$c$r r(\n    );\n"),
            module("top$c$r", "    // leaf\n    assign q = ~d;\n"),
        ]
        .concat();
        let out = dedup_modules(&text);
        let names: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("module "))
            .map(|l| l.split('(').next().unwrap())
            .collect();
        assert_eq!(names, ["top", "top$a", "top$a$r", "top$c", "top$c$r"]);
        assert!(out.contains("    top$a a(\n    );\n    top$a b(\n    );\n    top$c c(\n"));
        // Merging is idempotent.
        assert_eq!(dedup_modules(&out), out);
    }

    #[test]
    fn a_module_differing_only_in_a_constant_is_kept() {
        let text = [
            module("top", "    top$x x(\n    );\n    top$y y(\n    );\n"),
            module("top$x", "    localparam k = 32'h0;\n"),
            module("top$y", "    localparam k = 32'h1;\n"),
        ]
        .concat();
        assert_eq!(dedup_modules(&text), text);
    }
}
