//! The QCIR and QDIMACS writers, read back by parsers written here: the structure (header
//! counts, every variable quantified once, alternating blocks, gates defined before use)
//! on every corpus problem at small depths, and the meaning — the QCIR and the QDIMACS
//! forms of random small formulas and of tiny game encodings have the same truth value as
//! the circuit, by expanding the quantifiers.

mod common;

use common::{action, goals, load, model, occupy, Rng};
use gamelang_qbf::circuit::{Circuit, Lit};
use gamelang_qbf::qdimacs::{to_cnf, CnfOptions, Quant};
use gamelang_qbf::{encode, qcir};
use std::collections::{HashMap, HashSet};

// ---------------------------------------------------------------------------------------
// Parsers
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
struct Qdimacs {
    vars: u32,
    prefix: Vec<(bool, Vec<u32>)>, // (forall, vars)
    clauses: Vec<Vec<i64>>,
}

fn parse_qdimacs(text: &str) -> Qdimacs {
    let mut lines = text.lines().filter(|l| !l.starts_with('c'));
    let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
    assert_eq!(&header[..2], &["p", "cnf"], "header: {header:?}");
    let vars: u32 = header[2].parse().expect("V");
    let count: usize = header[3].parse().expect("C");
    let mut prefix = Vec::new();
    let mut clauses = Vec::new();
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(w.last(), Some(&"0"), "every line ends with 0: {l}");
        match w[0] {
            "e" | "a" => {
                assert!(clauses.is_empty(), "the prefix comes before the clauses");
                let vs = w[1..w.len() - 1]
                    .iter()
                    .map(|v| v.parse().expect("a variable"))
                    .collect();
                prefix.push((w[0] == "a", vs));
            }
            _ => clauses.push(
                w[..w.len() - 1]
                    .iter()
                    .map(|v| v.parse::<i64>().expect("a literal"))
                    .collect(),
            ),
        }
    }
    assert_eq!(clauses.len(), count, "the header's clause count");
    Qdimacs {
        vars,
        prefix,
        clauses,
    }
}

/// Structure: every variable 1..=V quantified exactly once, blocks alternate and are not
/// empty, the innermost is existential, clause literals are quantified variables, no
/// clause has a variable twice.
fn check_qdimacs(q: &Qdimacs, what: &str) {
    let mut seen = HashSet::new();
    for (_, vs) in &q.prefix {
        assert!(!vs.is_empty(), "{what}: an empty block");
        for &v in vs {
            assert!(
                (1..=q.vars).contains(&v),
                "{what}: variable {v} out of range"
            );
            assert!(seen.insert(v), "{what}: variable {v} quantified twice");
        }
    }
    assert_eq!(
        seen.len() as u32,
        q.vars,
        "{what}: every variable is quantified"
    );
    for w in q.prefix.windows(2) {
        assert_ne!(
            w[0].0, w[1].0,
            "{what}: adjacent blocks with the same quantifier"
        );
    }
    if let Some((forall, _)) = q.prefix.last() {
        assert!(!forall, "{what}: the innermost block is existential");
    }
    for c in &q.clauses {
        let vs: HashSet<u64> = c.iter().map(|l| l.unsigned_abs()).collect();
        assert_eq!(
            vs.len(),
            c.len(),
            "{what}: a clause repeats a variable: {c:?}"
        );
        for v in vs {
            assert!(seen.contains(&(v as u32)), "{what}: unquantified {v}");
        }
    }
}

#[derive(Debug)]
enum Gate {
    And(Vec<i64>),
    Or(Vec<i64>),
    Xor(i64, i64),
}

#[derive(Debug)]
struct Qcir {
    prefix: Vec<(bool, Vec<u64>)>,
    output: i64,
    /// In file order.
    gates: Vec<(u64, Gate)>,
}

fn parse_qcir(text: &str) -> Qcir {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("#QCIR-G14"));
    let mut prefix = Vec::new();
    let mut output = None;
    let mut gates = Vec::new();
    let args = |s: &str| -> Vec<i64> {
        let inner = s
            .split_once('(')
            .and_then(|(_, r)| r.strip_suffix(')'))
            .expect("(...)");
        inner
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| a.parse().expect("a literal"))
            .collect()
    };
    for l in lines {
        if l.starts_with("exists(") || l.starts_with("forall(") {
            assert!(output.is_none(), "the prefix comes before the output");
            let vs = args(l).into_iter().map(|v| v as u64).collect();
            prefix.push((l.starts_with("forall"), vs));
        } else if l.starts_with("output(") {
            let a = args(l);
            assert_eq!(a.len(), 1);
            output = Some(a[0]);
        } else {
            let (id, def) = l.split_once(" = ").expect("g = gate(...)");
            let id: u64 = id.parse().expect("a gate id");
            let a = args(def);
            let g = if def.starts_with("and(") {
                Gate::And(a)
            } else if def.starts_with("or(") {
                Gate::Or(a)
            } else if def.starts_with("xor(") {
                assert_eq!(a.len(), 2);
                Gate::Xor(a[0], a[1])
            } else {
                panic!("unknown gate {def}")
            };
            gates.push((id, g));
        }
    }
    Qcir {
        prefix,
        output: output.expect("an output line"),
        gates,
    }
}

/// Structure: variables quantified once, alternation, gate ids fresh and defined before
/// use, every input a quantified variable or an earlier gate.
fn check_qcir(q: &Qcir, what: &str) {
    let mut vars = HashSet::new();
    for (_, vs) in &q.prefix {
        assert!(!vs.is_empty(), "{what}: an empty block");
        for &v in vs {
            assert!(vars.insert(v), "{what}: {v} quantified twice");
        }
    }
    for w in q.prefix.windows(2) {
        assert_ne!(w[0].0, w[1].0, "{what}: blocks do not alternate");
    }
    let mut defined = HashSet::new();
    for (id, g) in &q.gates {
        assert!(!vars.contains(id), "{what}: gate {id} is also a variable");
        let ins: Vec<i64> = match g {
            Gate::And(a) | Gate::Or(a) => a.clone(),
            Gate::Xor(a, b) => vec![*a, *b],
        };
        for i in ins {
            let v = i.unsigned_abs();
            assert!(
                vars.contains(&v) || defined.contains(&v),
                "{what}: gate {id} uses {v} before it is defined"
            );
        }
        assert!(defined.insert(*id), "{what}: gate {id} defined twice");
    }
    let o = q.output.unsigned_abs();
    assert!(
        defined.contains(&o) || vars.contains(&o),
        "{what}: output {o}"
    );
}

// ---------------------------------------------------------------------------------------
// Evaluation by expanding the quantifiers
// ---------------------------------------------------------------------------------------

fn eval_qcir(q: &Qcir) -> bool {
    let order: Vec<(bool, u64)> = q
        .prefix
        .iter()
        .flat_map(|(f, vs)| vs.iter().map(move |&v| (*f, v)))
        .collect();
    let mut val: HashMap<u64, bool> = HashMap::new();
    fn matrix(q: &Qcir, val: &mut HashMap<u64, bool>) -> bool {
        let lit = |val: &HashMap<u64, bool>, l: i64| {
            val.get(&l.unsigned_abs()).copied().unwrap_or(false) != (l < 0)
        };
        for (id, g) in &q.gates {
            let v = match g {
                Gate::And(a) => a.iter().all(|&l| lit(val, l)),
                Gate::Or(a) => a.iter().any(|&l| lit(val, l)),
                Gate::Xor(a, b) => lit(val, *a) != lit(val, *b),
            };
            val.insert(*id, v);
        }
        lit(val, q.output)
    }
    fn go(q: &Qcir, order: &[(bool, u64)], i: usize, val: &mut HashMap<u64, bool>) -> bool {
        let Some(&(forall, v)) = order.get(i) else {
            return matrix(q, val);
        };
        let mut results = [false, true].into_iter().map(|b| {
            val.insert(v, b);
            go(q, order, i + 1, val)
        });
        if forall {
            results.all(|r| r)
        } else {
            results.any(|r| r)
        }
    }
    go(q, &order, 0, &mut val)
}

/// Some clause false / all clauses true under a partial assignment (0 = unassigned).
fn status(clauses: &[Vec<i64>], val: &[i8]) -> Option<bool> {
    let mut all = true;
    for c in clauses {
        let mut sat = false;
        let mut open = false;
        for &l in c {
            match val[l.unsigned_abs() as usize] {
                0 => open = true,
                v => sat |= (v > 0) == (l > 0),
            }
        }
        if !sat && !open {
            return Some(false);
        }
        all &= sat;
    }
    all.then_some(true)
}

fn eval_qdimacs(q: &Qdimacs) -> bool {
    let order: Vec<(bool, u32)> = q
        .prefix
        .iter()
        .flat_map(|(f, vs)| vs.iter().map(move |&v| (*f, v)))
        .collect();
    fn go(q: &Qdimacs, order: &[(bool, u32)], i: usize, val: &mut Vec<i8>) -> bool {
        if let Some(s) = status(&q.clauses, val) {
            return s;
        }
        let Some(&(forall, v)) = order.get(i) else {
            unreachable!("a full assignment decides every clause");
        };
        let mut r = forall;
        for b in [-1i8, 1] {
            val[v as usize] = b;
            let x = go(q, order, i + 1, val);
            if x != forall {
                r = x;
                break;
            }
        }
        val[v as usize] = 0;
        r
    }
    let mut val = vec![0i8; q.vars as usize + 1];
    go(q, &order, 0, &mut val)
}

/// The truth of the QBF given by its circuit directly.
fn eval_circuit(prefix: &[(Quant, Vec<u32>)], c: &Circuit, out: Lit) -> bool {
    let order: Vec<(bool, u32)> = prefix
        .iter()
        .flat_map(|(q, vs)| vs.iter().map(move |&v| (*q == Quant::Forall, v)))
        .collect();
    fn go(
        c: &Circuit,
        out: Lit,
        order: &[(bool, u32)],
        i: usize,
        val: &mut HashMap<u32, bool>,
    ) -> bool {
        let Some(&(forall, v)) = order.get(i) else {
            return c.eval(out, &|x| val.get(&x).copied().unwrap_or(false));
        };
        let mut results = [false, true].into_iter().map(|b| {
            val.insert(v, b);
            go(c, out, order, i + 1, val)
        });
        if forall {
            results.all(|r| r)
        } else {
            results.any(|r| r)
        }
    }
    go(c, out, &order, 0, &mut HashMap::new())
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

/// A random circuit over variables 1..=n.
fn random_circuit(r: &mut Rng, n: u32) -> (Circuit, Lit) {
    let mut c = Circuit::new();
    let mut pool: Vec<Lit> = (1..=n).map(|v| c.var(v)).collect();
    pool.push(Lit::TRUE);
    for _ in 0..4 + r.below(12) {
        let pick = |r: &mut Rng, pool: &[Lit]| {
            let l = pool[r.below(pool.len() as u64) as usize];
            if r.chance(40) {
                !l
            } else {
                l
            }
        };
        let g = match r.below(5) {
            0 | 1 => {
                let k = 1 + r.below(4);
                let ins: Vec<Lit> = (0..k).map(|_| pick(r, &pool)).collect();
                c.and(&ins)
            }
            2 => {
                let ins: Vec<Lit> = (0..1 + r.below(3)).map(|_| pick(r, &pool)).collect();
                c.or(&ins)
            }
            3 => {
                let (a, b) = (pick(r, &pool), pick(r, &pool));
                c.xor(a, b)
            }
            _ => {
                let (a, b, d) = (pick(r, &pool), pick(r, &pool), pick(r, &pool));
                c.ite(a, b, d)
            }
        };
        pool.push(g);
    }
    let out = *pool.last().expect("a gate");
    (c, if r.chance(30) { !out } else { out })
}

fn random_prefix(r: &mut Rng, n: u32) -> Vec<(Quant, Vec<u32>)> {
    let mut vars: Vec<u32> = (1..=n).collect();
    // Shuffle.
    for i in (1..vars.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        vars.swap(i, j);
    }
    let mut prefix: Vec<(Quant, Vec<u32>)> = Vec::new();
    for v in vars {
        let q = if r.chance(50) {
            Quant::Exists
        } else {
            Quant::Forall
        };
        match prefix.last_mut() {
            Some((lq, vs)) if *lq == q => vs.push(v),
            _ => prefix.push((q, vec![v])),
        }
    }
    prefix
}

#[test]
fn random_formulas_keep_their_meaning() {
    let mut r = Rng(12345);
    let mut truths = [0, 0];
    for i in 0..400 {
        let n = 1 + r.below(6) as u32;
        let (c, out) = random_circuit(&mut r, n);
        let prefix = random_prefix(&mut r, n);
        let expected = eval_circuit(&prefix, &c, out);
        truths[expected as usize] += 1;
        let qc = parse_qcir(&qcir::write(&prefix, &c, out, n));
        check_qcir(&qc, "random");
        assert_eq!(eval_qcir(&qc), expected, "formula {i}: QCIR");
        // Every option set of the Tseitin transformation.
        for opts in [
            CnfOptions::default(),
            CnfOptions {
                inline: false,
                ..CnfOptions::default()
            },
            CnfOptions {
                inline_small_or: 8,
                max_product: 64,
                max_clause_len: 3,
                early_gates: true,
                ..CnfOptions::default()
            },
        ] {
            let cnf = to_cnf(&c, out, &prefix, n, opts);
            let q = parse_qdimacs(&cnf.write());
            check_qdimacs(&q, "random");
            assert_eq!(
                eval_qdimacs(&q),
                expected,
                "formula {i}: QDIMACS with {opts:?}"
            );
        }
    }
    assert!(truths[0] > 50 && truths[1] > 50, "{truths:?}");
}

#[test]
fn constant_formulas() {
    for out in [Lit::TRUE, Lit::FALSE] {
        let c = Circuit::new();
        let prefix = vec![(Quant::Exists, vec![1, 2])];
        let qc = parse_qcir(&qcir::write(&prefix, &c, out, 2));
        check_qcir(&qc, "constant");
        assert_eq!(eval_qcir(&qc), out == Lit::TRUE);
        let q = parse_qdimacs(&to_cnf(&c, out, &prefix, 2, CnfOptions::default()).write());
        check_qdimacs(&q, "constant");
        assert_eq!(eval_qdimacs(&q), out == Lit::TRUE);
    }
}

/// Tiny game encodings, small enough to expand every quantifier of the QCIR form.
#[test]
fn tiny_encodings_keep_their_meaning() {
    let mut one = model(1, 1, vec![occupy("black")], vec![occupy("white")]);
    one.black_goals = goals(&["black(?x,?y)"]);
    let mut two = model(2, 1, vec![occupy("black")], vec![occupy("white")]);
    two.black_goals = goals(&["black(?x,?y) black(?x+1,?y)"]);
    two.white_goals = goals(&["white(1,1)"]);
    let mut dom = model(
        1,
        2,
        vec![action(
            "v",
            "open(?x,?y) open(?x,?y+1)",
            "black(?x,?y) black(?x,?y+1)",
        )],
        vec![action(
            "h",
            "open(?x,?y) open(?x+1,?y)",
            "white(?x,?y) white(?x+1,?y)",
        )],
    );
    dom.black_first = false;
    let mut checked = 0;
    for (name, m) in [("1x1", one), ("2x1", two), ("1x2 domineering", dom)] {
        for d in 0..=3 {
            let enc = encode(&m, d).expect("encodes");
            let (c, out) = enc.circuit();
            if enc.num_quantified() > 20 {
                continue;
            }
            checked += 1;
            let expected = eval_circuit(enc.prefix(), c, out);
            let mut brute = common::Brute::new(&m);
            assert_eq!(
                expected,
                brute.answer(d),
                "{name} at depth {d}: the circuit"
            );
            let qc = parse_qcir(&enc.qcir());
            check_qcir(&qc, name);
            assert_eq!(eval_qcir(&qc), expected, "{name} at depth {d}: QCIR");
            let q = parse_qdimacs(&enc.qdimacs());
            check_qdimacs(&q, name);
            assert_eq!(eval_qdimacs(&q), expected, "{name} at depth {d}: QDIMACS");
        }
    }
    assert!(checked >= 8, "only {checked} encodings small enough");
}

/// The structure of both forms for every corpus problem at depths 1..=3, and the stats
/// agree with the QDIMACS header and prefix.
#[test]
fn corpus_structure() {
    let corpus = common::corpus();
    let mut n = 0;
    let mut folders: Vec<_> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .expect("a folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name().and_then(|f| f.to_str()) != Some("domain.ig")
                    && matches!(p.extension().and_then(|e| e.to_str()), Some("ig" | "pg"))
            })
            .collect();
        files.sort();
        for f in files {
            let name = format!(
                "{}/{}",
                folder.file_name().and_then(|s| s.to_str()).unwrap_or("?"),
                f.file_name().and_then(|s| s.to_str()).unwrap_or("?")
            );
            let m = load(&name);
            for d in 1..=3 {
                let enc = encode(&m, d).unwrap_or_else(|e| panic!("{name}: {e}"));
                let what = format!("{name} at depth {d}");
                let q = parse_qdimacs(&enc.qdimacs());
                check_qdimacs(&q, &what);
                let s = enc.stats();
                assert_eq!(s.vars, q.vars, "{what}");
                assert_eq!(s.clauses, q.clauses.len(), "{what}");
                assert_eq!(s.blocks, q.prefix.len(), "{what}");
                let qc = parse_qcir(&enc.qcir());
                check_qcir(&qc, &what);
                // The constant output of a decided formula is written as a gate without
                // inputs; Stats counts the AND and XOR gates of the circuit.
                let real = qc
                    .gates
                    .iter()
                    .filter(|(_, g)| !matches!(g, Gate::And(a) | Gate::Or(a) if a.is_empty()))
                    .count();
                assert_eq!(s.gates, real, "{what}");
                n += 1;
            }
        }
    }
    assert_eq!(n, 102 * 3);
}
