//! The QCIR-G14 form of an encoding (the format the seed's implementation writes): the
//! prefix as `exists(..)` / `forall(..)` lines, `output(g)`, then one line per gate,
//! `g = and(..)` or `g = or(..)`, a negated input written `-g`. An XOR of the circuit is
//! written as `or(and(a, -b), and(-a, b))` (three gates), since not every QCIR tool reads
//! `xor`. Variables keep their numbers; gates are numbered after them, inputs before the
//! gates that use them. A constant output is the gate `and()` (true) or its negation.

use crate::circuit::{Circuit, Lit, Node};
use crate::qdimacs::Quant;
use std::fmt::Write as _;

/// Write the QBF `prefix` / `circuit` with output `output` (quantified variables
/// 1..=`num_vars`).
pub fn write(
    prefix: &[(Quant, Vec<u32>)],
    circuit: &Circuit,
    output: Lit,
    num_vars: u32,
) -> String {
    let mut s = String::from("#QCIR-G14\n");
    for (q, vars) in prefix {
        if vars.is_empty() {
            continue;
        }
        let names: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
        let q = match q {
            Quant::Exists => "exists",
            Quant::Forall => "forall",
        };
        let _ = writeln!(s, "{q}({})", names.join(", "));
    }
    let reach = circuit.reachable(&[output]);
    let mut id = vec![0u64; circuit.len()];
    let mut next = num_vars as u64 + 1;
    let mut gates = String::new();
    for (i, &r) in reach.iter().enumerate() {
        if !r {
            continue;
        }
        match circuit.node(i) {
            Node::True => {
                id[i] = next;
                next += 1;
                let _ = writeln!(gates, "{} = and()", id[i]);
            }
            Node::Var(v) => id[i] = *v as u64,
            Node::And(inputs) => {
                id[i] = next;
                next += 1;
                let ins: Vec<String> = inputs.iter().map(|&l| name(&id, l)).collect();
                let _ = writeln!(gates, "{} = and({})", id[i], ins.join(", "));
            }
            Node::Xor(a, b) => {
                let (a, b) = (name(&id, *a), name(&id, *b));
                let (h1, h2) = (next, next + 1);
                let _ = writeln!(gates, "{h1} = and({a}, {})", negate(&b));
                let _ = writeln!(gates, "{h2} = and({}, {b})", negate(&a));
                id[i] = next + 2;
                next += 3;
                let _ = writeln!(gates, "{} = or({h1}, {h2})", id[i]);
            }
        }
    }
    let _ = writeln!(s, "output({})", name(&id, output));
    s.push_str(&gates);
    s
}

fn name(id: &[u64], l: Lit) -> String {
    if l.is_neg() {
        format!("-{}", id[l.node()])
    } else {
        id[l.node()].to_string()
    }
}

fn negate(l: &str) -> String {
    match l.strip_prefix('-') {
        Some(p) => p.to_string(),
        None => format!("-{l}"),
    }
}
