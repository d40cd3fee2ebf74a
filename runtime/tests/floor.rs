//! How fast binary-add could be: the rewriting benchmark's `binary-add` (the sum
//! 1 + … + n of bit lists by increment and addition with carry) run three ways on the
//! same input, to show where a rewrite's cost is (docs/benchmarks.md, "What the term store
//! costs"):
//!
//! - by the engine, from the program's equations;
//! - by hand-written Rust recursion that builds every bit list in the engine's
//!   `TermStore` (hash-consed, as the engine's values are): the floor for an engine that
//!   interprets nothing but keeps this store;
//! - by the same recursion over an arena of 8-byte cells, nothing hash-consed: the floor
//!   for a store that builds a young term as Maude does, a node and no lookup.
//!
//! Each run's sum is checked against n(n+1)/2 and its step count against the engine's.
//! `cargo test --release -p gamelang-runtime --test floor -- --ignored --nocapture`
//! (`FLOOR_N` sets n, default 300,000, the benchmark's size); under callgrind, run one
//! test at a time (`--exact floor_engine`, `floor_store`, `floor_arena`).

mod common;
use common::*;
use gamelang_lang::program::OpId;
use gamelang_runtime::{TermId, TermStore};
use std::time::Instant;

fn size() -> u64 {
    std::env::var("FLOOR_N").map_or(300_000, |v| v.parse().expect("FLOOR_N is a number"))
}

/// The number a bit list (least significant bit outermost) stands for, read by `cell`:
/// the bit of a node and the rest, `None` at the end.
fn value(mut t: u32, cell: impl Fn(u32) -> Option<(bool, u32)>) -> u64 {
    let (mut v, mut k) = (0u64, 0);
    while let Some((bit, rest)) = cell(t) {
        v |= (bit as u64) << k;
        k += 1;
        t = rest;
    }
    v
}

fn report(how: &str, n: u64, sum: u64, steps: u64, secs: f64) {
    assert_eq!(sum, n * (n + 1) / 2, "{how}: the sum 1 + … + {n}");
    println!(
        "{how}: n = {n}, {steps} steps in {secs:.3} s, {:.1} ns a step",
        secs * 1e9 / steps as f64
    );
}

/// The engine's run, with its step count (the floors below take one step per call of
/// `inc` or `add`; the engine also counts `sumto`'s and `_-_`'s, and answers a few calls
/// from its call cache). As `gamelang reduce` runs it: collecting garbage during the
/// reduction, on a thread with a large stack (a test thread's 2 MiB would leave the direct
/// evaluator no room, and the machine would do the work).
#[test]
#[ignore]
fn floor_engine() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(engine_run)
        .expect("a thread")
        .join()
        .expect("the engine's run");
}

fn engine_run() {
    let n = size();
    let s = sumto_bits();
    let mut e = s.engine();
    e.collect_in_reduce = true;
    let t = term(&s, &mut e, &format!("[sumto {n} e e]"));
    let clock = Instant::now();
    let v = e.reduce(t).expect("sumto reduces");
    let secs = clock.elapsed().as_secs_f64();
    let (o, i) = (s.id("o"), s.id("i"));
    let sum = value(v.0, |t| match e.store().app(TermId(t)) {
        Some((op, [rest])) if op == o || op == i => Some((op == i, rest.0)),
        _ => None,
    });
    report("engine", n, sum, e.steps(), secs);
}

/// The bit lists' constructors and the steps taken, for the hand-written floor.
struct Store {
    terms: TermStore,
    e: TermId,
    o: OpId,
    i: OpId,
    steps: u64,
}

impl Store {
    /// The constructor of `t` (`true` for `i`) and its argument; `None` for `e`.
    fn cell(&self, t: TermId) -> Option<(bool, TermId)> {
        let (op, args) = self.terms.app(t)?;
        (!args.is_empty()).then(|| (op == self.i, args[0]))
    }

    fn build(&mut self, bit: bool, rest: TermId) -> TermId {
        let op = if bit { self.i } else { self.o };
        self.terms.mk_app(op, &[rest])
    }

    fn inc(&mut self, a: TermId) -> TermId {
        self.steps += 1;
        match self.cell(a) {
            None => self.build(true, self.e),
            Some((false, x)) => self.build(true, x),
            Some((true, x)) => {
                let r = self.inc(x);
                self.build(false, r)
            }
        }
    }

    fn add(&mut self, a: TermId, b: TermId) -> TermId {
        self.steps += 1;
        let (Some((x, ra)), Some((y, rb))) = (self.cell(a), self.cell(b)) else {
            return if a == self.e { b } else { a };
        };
        let r = self.add(ra, rb);
        if x && y {
            let r = self.inc(r);
            self.build(false, r)
        } else {
            self.build(x || y, r)
        }
    }
}

#[test]
#[ignore]
fn floor_store() {
    let n = size();
    let s = sumto_bits();
    let mut terms = TermStore::new(&s.sig);
    let e = terms.mk_const(s.id("e"));
    let mut st = Store {
        terms,
        e,
        o: s.id("o"),
        i: s.id("i"),
        steps: 0,
    };
    let clock = Instant::now();
    let (mut a, mut b) = (e, e);
    for _ in 0..n {
        a = st.inc(a);
        b = st.add(b, a);
    }
    let secs = clock.elapsed().as_secs_f64();
    let sum = value(b.0, |t| st.cell(TermId(t)).map(|(bit, r)| (bit, r.0)));
    report("hash-consed store", n, sum, st.steps, secs);
}

/// Bit lists as cells `(bit, rest)` in a vector, [`END`] for `e`; nothing shared.
struct Arena {
    cells: Vec<(bool, u32)>,
    steps: u64,
}

const END: u32 = u32::MAX;

impl Arena {
    fn build(&mut self, bit: bool, rest: u32) -> u32 {
        self.cells.push((bit, rest));
        self.cells.len() as u32 - 1
    }

    fn inc(&mut self, a: u32) -> u32 {
        self.steps += 1;
        if a == END {
            return self.build(true, END);
        }
        match self.cells[a as usize] {
            (false, x) => self.build(true, x),
            (true, x) => {
                let r = self.inc(x);
                self.build(false, r)
            }
        }
    }

    fn add(&mut self, a: u32, b: u32) -> u32 {
        self.steps += 1;
        if a == END || b == END {
            return if a == END { b } else { a };
        }
        let ((x, ra), (y, rb)) = (self.cells[a as usize], self.cells[b as usize]);
        let r = self.add(ra, rb);
        if x && y {
            let r = self.inc(r);
            self.build(false, r)
        } else {
            self.build(x || y, r)
        }
    }
}

#[test]
#[ignore]
fn floor_arena() {
    let n = size();
    let mut ar = Arena {
        cells: Vec::new(),
        steps: 0,
    };
    let clock = Instant::now();
    let (mut a, mut b) = (END, END);
    for _ in 0..n {
        a = ar.inc(a);
        b = ar.add(b, a);
    }
    let secs = clock.elapsed().as_secs_f64();
    let sum = value(b, |t| (t != END).then(|| ar.cells[t as usize]));
    report("arena", n, sum, ar.steps, secs);
}
