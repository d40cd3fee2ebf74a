//! The QDIMACS form of an encoding: the circuit turned into clauses by the Tseitin
//! transformation (one fresh existential variable per gate, in the innermost block, as the
//! seed's section 2 says), with the usual refinements that keep the clause set small:
//!
//! * **polarity** (Plaisted-Greenbaum): a gate that only ever has to be true gets only the
//!   clauses "variable ⇒ gate", one that only has to be false only "¬variable ⇒ ¬gate";
//! * the output's conjunction is **asserted directly** (its conjuncts become clauses, not a
//!   variable), and inside a clause a disjunction used nowhere else is **inlined**, a
//!   conjunction used nowhere else is **distributed** (`a ∨ (b ∧ c)` gives the clauses
//!   `a ∨ b`, `a ∨ c`) and so is an XOR (`a ∨ (b ⊕ c)` gives `a ∨ b ∨ c`, `a ∨ ¬b ∨ ¬c`) —
//!   as long as distributing does not multiply clauses;
//! * quantified variables that no clause mentions are left out of the prefix, and empty
//!   blocks disappear (adjacent blocks of the same quantifier merge); should the innermost
//!   block left be universal, its variables are dropped from the clauses (universal
//!   reduction), so that the innermost block is existential.
//!
//! Variables are renumbered compactly: the quantified variables that occur, in prefix
//! order, then the gate variables ([`Cnf::original`] maps them back).

use crate::circuit::{Circuit, Lit, Node};
use std::fmt::Write as _;

/// A quantifier.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Quant {
    Exists,
    Forall,
}

/// A prenex CNF: the prefix (outermost block first) and the clauses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cnf {
    /// The `V` of the header: the largest variable number.
    pub num_vars: u32,
    pub prefix: Vec<(Quant, Vec<u32>)>,
    pub clauses: Vec<Vec<i64>>,
    /// For each variable of the CNF (index = its number), the encoding's quantified
    /// variable it is, or 0 for a gate variable (index 0 unused).
    pub original: Vec<u32>,
}

impl Cnf {
    /// The QDIMACS text.
    pub fn write(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "p cnf {} {}", self.num_vars, self.clauses.len());
        for (q, vars) in &self.prefix {
            s.push(match q {
                Quant::Exists => 'e',
                Quant::Forall => 'a',
            });
            for v in vars {
                let _ = write!(s, " {v}");
            }
            s.push_str(" 0\n");
        }
        for c in &self.clauses {
            for l in c {
                let _ = write!(s, "{l} ");
            }
            s.push_str("0\n");
        }
        s
    }
}

/// How far clauses may be rewritten (the defaults are what [`crate::Encoding::qdimacs`]
/// uses; the options exist to measure what each refinement buys).
#[derive(Clone, Copy, Debug)]
pub struct CnfOptions {
    /// Inline and distribute gates used once (otherwise every gate gets a variable).
    pub inline: bool,
    /// Inline a disjunction used several times if it has at most this many inputs.
    pub inline_small_or: usize,
    /// Distribute at most this many clauses' worth of conjunctions into one clause
    /// (the product of the sizes of the conjunctions distributed together).
    pub max_product: usize,
    /// Longest clause that distributing may produce (0 = no limit).
    pub max_clause_len: usize,
    /// Quantify each gate variable in the first existential block after the variables
    /// the gate depends on, instead of in the innermost block.
    pub early_gates: bool,
}

impl Default for CnfOptions {
    fn default() -> Self {
        CnfOptions {
            inline: true,
            inline_small_or: 0,
            max_product: 4,
            max_clause_len: 0,
            early_gates: false,
        }
    }
}

struct Tseitin<'c> {
    c: &'c Circuit,
    opts: CnfOptions,
    fanout: Vec<u32>,
    var_of: Vec<u32>,
    /// Definitions emitted: [positive, negative] per node.
    done: Vec<[bool; 2]>,
    next_var: u32,
    work: Vec<(usize, bool)>,
    clauses: Vec<Vec<i64>>,
}

impl Tseitin<'_> {
    /// The CNF literal of a gate literal that must get a variable, requesting the
    /// definition of the polarity in which it is used.
    fn gate_var(&mut self, l: Lit) -> i64 {
        let n = l.node();
        if self.var_of[n] == 0 {
            self.var_of[n] = self.next_var;
            self.next_var += 1;
        }
        let pol = usize::from(l.is_neg());
        if !self.done[n][pol] {
            self.done[n][pol] = true;
            self.work.push((n, !l.is_neg()));
        }
        let v = self.var_of[n] as i64;
        if l.is_neg() {
            -v
        } else {
            v
        }
    }

    /// Add the clause `raw ∨ pending`, rewriting the pending circuit literals.
    fn clause(&mut self, mut raw: Vec<i64>, mut pending: Vec<Lit>) {
        // Distributable literals: (literal, the clauses it splits into).
        let mut split: Vec<(Lit, Vec<Vec<Lit>>)> = Vec::new();
        while let Some(l) = pending.pop() {
            if l == Lit::TRUE {
                return;
            }
            if l == Lit::FALSE {
                continue;
            }
            let n = l.node();
            match self.c.node(n) {
                Node::True => unreachable!("constants handled above"),
                Node::Var(v) => raw.push(if l.is_neg() { -(*v as i64) } else { *v as i64 }),
                Node::And(inputs) => {
                    let once = self.fanout[n] <= 1;
                    if l.is_neg() {
                        // ¬(a ∧ b) = ¬a ∨ ¬b: inline.
                        if self.opts.inline && (once || inputs.len() <= self.opts.inline_small_or) {
                            pending.extend(inputs.iter().map(|&i| !i));
                        } else {
                            let v = self.gate_var(l);
                            raw.push(v);
                        }
                    } else {
                        let unit = raw.is_empty() && pending.is_empty() && split.is_empty();
                        if self.opts.inline && (once || unit) {
                            split.push((l, inputs.iter().map(|&i| vec![i]).collect()));
                        } else {
                            let v = self.gate_var(l);
                            raw.push(v);
                        }
                    }
                }
                Node::Xor(a, b) => {
                    if self.opts.inline && self.fanout[n] <= 1 {
                        let (a, b) = (*a, *b);
                        let parts = if l.is_neg() {
                            vec![vec![!a, b], vec![a, !b]]
                        } else {
                            vec![vec![a, b], vec![!a, !b]]
                        };
                        split.push((l, parts));
                    } else {
                        let v = self.gate_var(l);
                        raw.push(v);
                    }
                }
            }
        }
        // Keep the product of the splits small: the largest ones get variables instead
        // (a single split never multiplies anything).
        split.sort_by_key(|(_, p)| p.len());
        while split.len() > 1
            && split.iter().map(|(_, p)| p.len()).product::<usize>() > self.opts.max_product
        {
            if let Some((l, _)) = split.pop() {
                let v = self.gate_var(l);
                raw.push(v);
            }
        }
        if self.opts.max_clause_len > 0 && raw.len() >= self.opts.max_clause_len {
            for (l, _) in std::mem::take(&mut split) {
                let v = self.gate_var(l);
                raw.push(v);
            }
        }
        if let Some((_, parts)) = split.pop() {
            let rest: Vec<Lit> = split.iter().map(|(l, _)| *l).collect();
            for part in parts {
                let mut p = rest.clone();
                p.extend(part);
                self.clause(raw.clone(), p);
            }
            return;
        }
        raw.sort_unstable_by_key(|l| (l.abs(), *l));
        raw.dedup();
        if raw.windows(2).any(|w| w[0] == -w[1]) {
            return; // a tautology
        }
        self.clauses.push(raw);
    }

    /// The definition of gate `n` in one polarity.
    fn define(&mut self, n: usize, positive: bool) {
        let v = self.var_of[n] as i64;
        match self.c.node(n) {
            Node::And(inputs) => {
                let inputs = inputs.to_vec();
                if positive {
                    // g ⇒ every input.
                    for i in inputs {
                        self.clause(vec![-v], vec![i]);
                    }
                } else {
                    // ¬g ⇒ some input is false.
                    self.clause(vec![v], inputs.iter().map(|&i| !i).collect());
                }
            }
            Node::Xor(a, b) => {
                let (a, b) = (*a, *b);
                if positive {
                    self.clause(vec![-v], vec![a, b]);
                    self.clause(vec![-v], vec![!a, !b]);
                } else {
                    self.clause(vec![v], vec![!a, b]);
                    self.clause(vec![v], vec![a, !b]);
                }
            }
            Node::True | Node::Var(_) => {}
        }
    }
}

/// The Tseitin transformation of `output` under `prefix` (quantified variables numbered
/// 1..=`num_qvars`).
pub fn to_cnf(
    circuit: &Circuit,
    output: Lit,
    prefix: &[(Quant, Vec<u32>)],
    num_qvars: u32,
    opts: CnfOptions,
) -> Cnf {
    let n = circuit.len();
    let reach = circuit.reachable(&[output]);
    let mut fanout = vec![0u32; n];
    fanout[output.node()] += 1;
    for (i, &r) in reach.iter().enumerate() {
        if r {
            for l in circuit.inputs(i) {
                fanout[l.node()] += 1;
            }
        }
    }
    let mut t = Tseitin {
        c: circuit,
        opts,
        fanout,
        var_of: vec![0; n],
        done: vec![[false; 2]; n],
        next_var: num_qvars + 1,
        work: Vec::new(),
        clauses: Vec::new(),
    };
    t.clause(Vec::new(), vec![output]);
    while let Some((node, positive)) = t.work.pop() {
        t.define(node, positive);
    }
    let mut clauses = t.clauses;
    let used = |clauses: &[Vec<i64>]| {
        let mut used = vec![false; t.next_var as usize];
        for c in clauses {
            for l in c {
                used[l.unsigned_abs() as usize] = true;
            }
        }
        used
    };
    // Where each gate variable goes: innermost, or (`early_gates`) in the first
    // existential block after every variable the gate depends on.
    let mut level = vec![0usize; n];
    let block_of: std::collections::HashMap<u32, usize> = prefix
        .iter()
        .enumerate()
        .flat_map(|(i, (_, vs))| vs.iter().map(move |&v| (v, i)))
        .collect();
    for i in 0..n {
        level[i] = match circuit.node(i) {
            Node::True => 0,
            Node::Var(v) => block_of.get(v).copied().unwrap_or(0),
            Node::And(_) | Node::Xor(..) => circuit
                .inputs(i)
                .iter()
                .map(|l| level[l.node()])
                .max()
                .unwrap_or(0),
        };
    }
    let mut gates_at: Vec<Vec<u32>> = vec![Vec::new(); prefix.len() + 1];
    for (node, &g) in t.var_of.iter().enumerate() {
        if g == 0 {
            continue;
        }
        let target = if opts.early_gates {
            (level[node]..prefix.len())
                .find(|&j| prefix[j].0 == Quant::Exists)
                .unwrap_or(prefix.len())
        } else {
            prefix.len()
        };
        gates_at[target].push(g);
    }
    // The innermost block that occurs may be universal (no gate variable after it).
    // QDIMACS wants an existential one last, so apply universal reduction: a universal
    // variable of the innermost block can be dropped from every clause.
    let mut used_now = used(&clauses);
    loop {
        let innermost = (0..=prefix.len()).rev().find(|&j| {
            gates_at[j].iter().any(|&g| used_now[g as usize])
                || prefix
                    .get(j)
                    .is_some_and(|(_, vs)| vs.iter().any(|&v| used_now[v as usize]))
        });
        match innermost.and_then(|j| prefix.get(j)) {
            // (Gate variables only go to existential blocks.)
            Some((Quant::Forall, vs)) => {
                let drop: std::collections::HashSet<i64> = vs.iter().map(|&v| v as i64).collect();
                for c in clauses.iter_mut() {
                    c.retain(|l| !drop.contains(&l.abs()));
                }
                used_now = used(&clauses);
            }
            _ => break,
        }
    }
    let used = used_now;
    for g in gates_at.iter_mut() {
        g.retain(|&v| used[v as usize]);
        g.sort_unstable();
    }
    // Number the variables that occur in prefix order.
    let mut map = vec![0u32; t.next_var as usize];
    let mut inverse = vec![0u32];
    let mut blocks: Vec<(Quant, Vec<u32>)> = Vec::new();
    let push = |q: Quant, vars: Vec<u32>, blocks: &mut Vec<(Quant, Vec<u32>)>| {
        if vars.is_empty() {
            return;
        }
        match blocks.last_mut() {
            Some((lq, lv)) if *lq == q => lv.extend(vars),
            _ => blocks.push((q, vars)),
        }
    };
    for (j, (q, vars)) in prefix.iter().enumerate() {
        let mut vs = Vec::new();
        for &v in vars {
            let v = v as usize;
            if v < used.len() && used[v] && map[v] == 0 && v <= num_qvars as usize {
                map[v] = inverse.len() as u32;
                inverse.push(v as u32);
                vs.push(map[v]);
            }
        }
        for &g in &gates_at[j] {
            map[g as usize] = inverse.len() as u32;
            inverse.push(0);
            vs.push(map[g as usize]);
        }
        push(*q, vs, &mut blocks);
    }
    let mut gates = Vec::new();
    for &g in &gates_at[prefix.len()] {
        map[g as usize] = inverse.len() as u32;
        inverse.push(0);
        gates.push(map[g as usize]);
    }
    push(Quant::Exists, gates, &mut blocks);
    let clauses = clauses
        .into_iter()
        .map(|c| {
            c.into_iter()
                .map(|l| {
                    let v = map[l.unsigned_abs() as usize] as i64;
                    if l < 0 {
                        -v
                    } else {
                        v
                    }
                })
                .collect()
        })
        .collect();
    Cnf {
        num_vars: inverse.len() as u32 - 1,
        prefix: blocks,
        clauses,
        original: inverse,
    }
}
