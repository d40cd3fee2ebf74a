//! A gate-based Boolean circuit: AND and XOR gates over literals (a node or its negation),
//! with structural hashing (building the same gate twice gives the same node) and
//! constant folding (`x ∧ false = false`, `x ∧ ¬x = false`, `x ⊕ x = false`, …). OR, IMPLIES,
//! IFF and ITE are built from these. Nodes are numbered in creation order, so the inputs of
//! a gate always come before it: the node order is a topological order.
//!
//! The encoding (`encode.rs`) builds its matrix here; the QCIR and QDIMACS writers read the
//! gates back; [`Circuit::eval`] evaluates a literal under an assignment (the tests use it).

use std::collections::HashMap;

/// A node (bits 1..) and a sign (bit 0: negated). Node 0 is the constant true, so
/// [`Lit::TRUE`] is 0 and [`Lit::FALSE`] is 1.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Lit(u32);

impl Lit {
    pub const TRUE: Lit = Lit(0);
    pub const FALSE: Lit = Lit(1);

    /// The index of the node.
    pub fn node(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// Is this the negation of its node?
    pub fn is_neg(self) -> bool {
        self.0 & 1 == 1
    }

    /// The node's positive literal.
    pub fn positive(self) -> Lit {
        Lit(self.0 & !1)
    }

    pub fn is_const(self) -> bool {
        self.node() == 0
    }

    fn of(node: usize, neg: bool) -> Lit {
        Lit(((node as u32) << 1) | neg as u32)
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// What a node is.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// The constant true (node 0 only).
    True,
    /// A quantified variable, numbered from 1 as in the QCIR and QDIMACS output.
    Var(u32),
    /// The conjunction of at least two literals, sorted, without duplicates.
    And(Box<[Lit]>),
    /// The exclusive or of two positive literals (negations are pulled out), a < b.
    Xor(Lit, Lit),
}

/// A circuit under construction.
#[derive(Clone, Debug)]
pub struct Circuit {
    nodes: Vec<Node>,
    table: HashMap<Node, u32>,
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit::new()
    }
}

impl Circuit {
    pub fn new() -> Circuit {
        Circuit {
            nodes: vec![Node::True],
            table: HashMap::new(),
        }
    }

    fn intern(&mut self, node: Node) -> Lit {
        if let Some(&i) = self.table.get(&node) {
            return Lit::of(i as usize, false);
        }
        let i = self.nodes.len();
        self.nodes.push(node.clone());
        self.table.insert(node, i as u32);
        Lit::of(i, false)
    }

    /// The literal of quantified variable `v` (≥ 1).
    pub fn var(&mut self, v: u32) -> Lit {
        self.intern(Node::Var(v))
    }

    /// The conjunction of `inputs` (true when empty).
    pub fn and(&mut self, inputs: &[Lit]) -> Lit {
        let mut v: Vec<Lit> = Vec::with_capacity(inputs.len());
        for &l in inputs {
            if l == Lit::FALSE {
                return Lit::FALSE;
            }
            if l != Lit::TRUE {
                v.push(l);
            }
        }
        v.sort_unstable();
        v.dedup();
        // After sorting, x and ¬x are neighbours.
        if v.windows(2).any(|w| w[0] == !w[1]) {
            return Lit::FALSE;
        }
        match v.len() {
            0 => Lit::TRUE,
            1 => v[0],
            _ => self.intern(Node::And(v.into_boxed_slice())),
        }
    }

    /// The disjunction of `inputs` (false when empty).
    pub fn or(&mut self, inputs: &[Lit]) -> Lit {
        let neg: Vec<Lit> = inputs.iter().map(|&l| !l).collect();
        !self.and(&neg)
    }

    pub fn and2(&mut self, a: Lit, b: Lit) -> Lit {
        self.and(&[a, b])
    }

    pub fn or2(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(&[a, b])
    }

    /// a ⇒ b.
    pub fn implies(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(&[!a, b])
    }

    /// a ⊕ b.
    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        if a == Lit::FALSE {
            return b;
        }
        if a == Lit::TRUE {
            return !b;
        }
        if b == Lit::FALSE {
            return a;
        }
        if b == Lit::TRUE {
            return !a;
        }
        if a == b {
            return Lit::FALSE;
        }
        if a == !b {
            return Lit::TRUE;
        }
        let neg = a.is_neg() != b.is_neg();
        let (mut p, mut q) = (a.positive(), b.positive());
        if q < p {
            std::mem::swap(&mut p, &mut q);
        }
        let g = self.intern(Node::Xor(p, q));
        if neg {
            !g
        } else {
            g
        }
    }

    /// a ⇔ b.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(a, b)
    }

    /// If c then t else e.
    pub fn ite(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        if t == e || c == Lit::TRUE {
            return t;
        }
        if c == Lit::FALSE {
            return e;
        }
        if t == !e {
            return self.iff(c, t);
        }
        let a = self.and2(c, t);
        let b = self.and2(!c, e);
        self.or2(a, b)
    }

    /// The node of index `i`.
    pub fn node(&self, i: usize) -> &Node {
        &self.nodes[i]
    }

    /// Number of nodes (constant and variables included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Nodes plus the inputs of every node: what the circuit, its CNF and its text take
    /// grow with this (an AND of n inputs is n + 1 clauses).
    pub fn size(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| {
                1 + match n {
                    Node::True | Node::Var(_) => 0,
                    Node::And(v) => v.len(),
                    Node::Xor(..) => 2,
                }
            })
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The inputs of node `i` (none for the constant and variables).
    pub fn inputs(&self, i: usize) -> Vec<Lit> {
        match &self.nodes[i] {
            Node::True | Node::Var(_) => Vec::new(),
            Node::And(v) => v.to_vec(),
            Node::Xor(a, b) => vec![*a, *b],
        }
    }

    /// Which nodes `roots` depend on (indexed by node).
    pub fn reachable(&self, roots: &[Lit]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = roots.iter().map(|l| l.node()).collect();
        while let Some(i) = stack.pop() {
            if seen[i] {
                continue;
            }
            seen[i] = true;
            match &self.nodes[i] {
                Node::True | Node::Var(_) => {}
                Node::And(v) => stack.extend(v.iter().map(|l| l.node())),
                Node::Xor(a, b) => {
                    stack.push(a.node());
                    stack.push(b.node());
                }
            }
        }
        seen
    }

    /// The number of gates `root` depends on, as the QCIR form writes them (an AND is one
    /// gate, an XOR three: two ANDs and an OR).
    pub fn gate_count(&self, root: Lit) -> usize {
        self.reachable(&[root])
            .iter()
            .enumerate()
            .filter(|&(_, &r)| r)
            .map(|(i, _)| match self.nodes[i] {
                Node::And(_) => 1,
                Node::Xor(..) => 3,
                Node::True | Node::Var(_) => 0,
            })
            .sum()
    }

    /// The value of `root` when variable `v` has value `value(v)`.
    pub fn eval(&self, root: Lit, value: &dyn Fn(u32) -> bool) -> bool {
        let n = root.node();
        let mut vals = vec![false; n + 1];
        let get = |vals: &[bool], l: Lit| vals[l.node()] != l.is_neg();
        for i in 0..=n {
            vals[i] = match &self.nodes[i] {
                Node::True => true,
                Node::Var(v) => value(*v),
                Node::And(v) => v.iter().all(|&l| get(&vals, l)),
                Node::Xor(a, b) => get(&vals, *a) != get(&vals, *b),
            };
        }
        get(&vals, root)
    }
}
