//! What part of the state a question's answer can depend on, and which parts it only copies.
//!
//! Exploring asks every state `final(s)`, `turn(s)`, `choices(s)`, `events(c, s)` and a
//! `move(e, c, s)` per event. Many games write some of them without looking at the state
//! (`choices(s) = throw .`, `events(x, s) = die .`), or at only part of it
//! (`turn(sl(a, b, c, d, p)) = p .`, Pig's `final(pig(a, b, k, p)) = false .`). Such an
//! answer is the same for every state that agrees on that part, so it is reduced once per
//! value of the part (and of the question's other arguments) and looked up after that.
//! A `move` rebuilds the state, but usually copies most of it unchanged
//! (`move(e, x, sl(a, b, c, d, p1)) = sl(advance(a, e), b, c, d, next(p1))` reads `a` and
//! copies `b, c, d`): its answer for one state, with the copied arguments replaced by
//! another state's, is that state's answer when both agree on the part read.
//!
//! The parts are read off the equations, before any reduction. At the state's position,
//! each equation of the question's operator has
//!
//! * a plain variable met nowhere else in the equation (not again on the left, not on the
//!   right, not in the condition): the equation does not look at the state at all, beyond
//!   the variable's sort check (done per state: [`StateFree::key`]); or
//! * a free constructor applied to sub-patterns. A sub-pattern that is a variable met once
//!   on the left and not in the condition, of a sort that admits every argument the
//!   constructor can have there (no sort check can fail), is *unseen* if the right side
//!   does not have it either, and *copied* if the right side has it only as a direct
//!   argument of a free constructor at the top of what the right side gives (through the
//!   branches of `if_then_else_fi`, whose conditions must not have it). Any other
//!   sub-pattern (a constant, a nested pattern, a variable used elsewhere) is *read*.
//!
//! Any other equation (a variable the right side uses, an integer, a defined operator at
//! the state's position) reads the whole state, and the question is not analysed.
//!
//! Which equations can apply to a state is narrowed first by the literals of the left
//! sides (`p1` in `sl(a, b, c, d, p1)`, `roll` in `move(e, roll, s)`): an equation whose
//! literal is not the argument there cannot match. Per combination of which literal each
//! tested argument is (a *plan*), the arguments read are those any remaining equation
//! reads; an argument none of them reads is copied only if every remaining equation gives
//! answers of known shapes (free constructors or integers at the top) and each shape copies
//! it to the same places: an answer then shows by its top operator where the arguments
//! it copied are. Matching never looks at the state beyond its constructor and its read
//! arguments, the conditions and the right side see only those, and the copied arguments
//! land unchanged in the answer: which equation applies and what it gives are the same for
//! all states that agree on the read part, up to the copied arguments. Two cases are left
//! to the caller: an answer whose top is the question's operator itself (no equation
//! applied: the state is among its arguments) is not shared, and errors are never
//! remembered.

use gamelang_lang::program::{Builtin, OpId, Pat, Program, SortId};
use gamelang_runtime::term::{TermId, TermStore};
use gamelang_runtime::Engine;

/// At most this many read arguments of a state's constructor: more and the answers are
/// not shared for such states (the key has room for four).
pub const MAX_READ: usize = 4;

/// At most this many arguments (the question's and the constructor's) are tested against
/// literals to narrow the equations; the tests of further ones are not used (the
/// equations stay candidates, which is safe).
const MAX_TESTED: usize = 7;

/// At most this many plans (one per constructor and combination of literals met): tests
/// past this are not used.
const MAX_PLANS: usize = 1 << 12;

/// In `StateFree::plans`: not made yet.
const NO_PLAN: u32 = u32::MAX;

/// Words of a [`StateFree::key`]: the question and the plan, two other arguments, the
/// constructor and [`MAX_READ`] read arguments.
pub type Key = [u32; 4 + MAX_READ];

/// A literal a left side compares an argument with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lit {
    Int(i64),
    /// A constant that is a free constructor.
    Const(OpId),
}

/// An argument tested against a literal: the question's `k`-th, or the state
/// constructor's `j`-th.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Arg(usize),
    Sub(usize),
}

/// A shape of answer: its top operator (`None`: an integer) and, per argument of the
/// answer, the argument of the state's constructor copied there.
#[derive(Clone, Debug, PartialEq)]
struct Leaf {
    top: Option<OpId>,
    copies: Vec<Option<usize>>,
}

/// One equation of the question, as far as the state goes.
#[derive(Clone, Debug)]
struct EqInfo {
    /// The constructor at the state's position; `None`: an unseen variable.
    ctor: Option<OpId>,
    /// The literals of the left side at tested places (indices into `StateFree::places`).
    tests: Vec<(usize, Lit)>,
    /// Per argument of the constructor: read.
    read: Vec<bool>,
    /// The shapes of what the right side gives; `None` when unknown (a defined operator
    /// or a variable at the top).
    leaves: Option<Vec<Leaf>>,
}

/// A shape of answer (its top operator, `None` for an integer) with the `(answer's
/// argument, state's argument)` pairs it copies.
type Shape = (Option<OpId>, Vec<(usize, usize)>);

/// What to do with the states of one constructor that pass one combination of tests.
#[derive(Clone, Debug)]
struct Plan {
    /// The constructor's arguments read (at most [`MAX_READ`]).
    read: Vec<usize>,
    /// The shapes answers can have, each with `(answer's argument, state's argument)`
    /// copied; empty when nothing is copied (any answer can be shared then).
    shapes: Vec<Shape>,
}

/// A question `op(?0, …, ?n-1)` whose answer depends on part of argument `state` only (see
/// the module documentation).
#[derive(Clone, Debug)]
pub struct StateFree {
    pub op: OpId,
    /// The position of the state among the arguments.
    pub state: usize,
    /// The sorts of the plain variables at the state's position, one per distinct sort: a
    /// state of a sort at most each of them matches every such equation's variable.
    sorts: Vec<SortId>,
    /// The constructors met at the state's position.
    ctors: Vec<OpId>,
    /// The equations, analysed.
    eqs: Vec<EqInfo>,
    /// The places some equation tests against a literal, with the literals met there.
    places: Vec<(Place, Vec<Lit>)>,
    /// Plans made so far (`NO_PLAN`: not yet), by the constructor's index in `ctors` and,
    /// per place, the index of the literal the argument there is (or the number of
    /// literals: none of them), in mixed radix (at most [`MAX_PLANS`] numbers).
    plans: Vec<u32>,
    plan_list: Vec<Option<Plan>>,
    /// Scratch for rebuilding an answer.
    buf: Vec<TermId>,
}

/// Where a shared answer is: the key of its table entry and the plan that made it.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub key: Key,
    plan: u32,
}

impl StateFree {
    /// The key of the question `q` asked of `args`, the state being `args[self.state]`: two
    /// questions with the same key have the same answer, up to the arguments copied
    /// ([`StateFree::rebuild`]). `None` when the state is not of a shape the analysis
    /// covers (then the question must be reduced).
    pub fn key(&mut self, store: &TermStore, q: usize, args: &[TermId]) -> Option<Found> {
        let s = args[self.state];
        let mut key = [u32::MAX; 4 + MAX_READ];
        let mut others = args.iter().enumerate().filter(|&(i, _)| i != self.state);
        for slot in &mut key[1..3] {
            if let Some((_, a)) = others.next() {
                *slot = a.0;
            }
        }
        if others.next().is_some() {
            return None;
        }
        let sort = store.sort_of(s);
        if !self.sorts.iter().all(|&v| store.leq(sort, v)) {
            return None;
        }
        if self.ctors.is_empty() {
            // No equation looks at the state.
            key[0] = q as u32;
            return Some(Found { key, plan: 0 });
        }
        let op = store.op(s)?;
        let ci = self.ctors.iter().position(|&c| c == op)?;
        let sub = store.args(s);
        let mut pk = [0u32; 1 + MAX_TESTED];
        pk[0] = ci as u32;
        let mut code = ci;
        for (slot, (place, lits)) in pk[1..].iter_mut().zip(&self.places) {
            // (A place among another constructor's arguments, past this one's: no
            // equation of this constructor tests it.)
            let t = match *place {
                Place::Arg(k) => Some(args[k]),
                Place::Sub(j) => sub.get(j).copied(),
            };
            let at = t
                .and_then(|t| lits.iter().position(|&l| is_lit(store, t, l)))
                .unwrap_or(lits.len());
            *slot = at as u32;
            code = code * (lits.len() + 1) + at;
        }
        let plan = match self.plans[code] {
            NO_PLAN => {
                let made = self.make_plan(op, &pk);
                let p = self.plan_list.len() as u32;
                self.plan_list.push(made);
                self.plans[code] = p;
                p
            }
            p => p,
        };
        let read = &self.plan_list[plan as usize].as_ref()?.read;
        key[0] = q as u32 | (plan + 1) << 3;
        key[3] = op.0;
        for (slot, &i) in key[4..].iter_mut().zip(read) {
            *slot = sub[i].0;
        }
        Some(Found { key, plan })
    }

    /// May `answer`, computed for the state of `found`, be shared? Where the plan copies
    /// arguments, only an answer of one of its shapes (one the equations give) can.
    pub fn shareable(&self, store: &TermStore, found: &Found, answer: TermId) -> bool {
        match self.plan_of(found) {
            Some(plan) if !plan.shapes.is_empty() => {
                top_of(store, answer).is_some_and(|top| plan.shapes.iter().any(|(t, _)| *t == top))
            }
            _ => true,
        }
    }

    /// The answer for `state`, from `answer`, shared under `found`'s key: the same with the
    /// arguments the plan copies taken from `state`.
    ///
    /// The result is built marked normal (as the engine would have left it): questions
    /// asked of it later are reduced without building them ([`Engine::mk_app_normal`]).
    pub fn rebuild(
        &mut self,
        engine: &mut Engine,
        found: &Found,
        answer: TermId,
        state: TermId,
    ) -> TermId {
        let store = engine.store();
        if self.ctors.is_empty() {
            return answer;
        }
        let Some(Some(plan)) = self.plan_list.get(found.plan as usize) else {
            return answer;
        };
        let Some(top) = top_of(store, answer) else {
            return answer;
        };
        let Some((Some(op), copies)) = plan.shapes.iter().find(|(t, _)| *t == top) else {
            return answer;
        };
        if copies.is_empty() {
            return answer;
        }
        let buf = &mut self.buf;
        buf.clear();
        buf.extend_from_slice(store.args(answer));
        let sub = store.args(state);
        for &(i, j) in copies {
            buf[i] = sub[j];
        }
        engine.mk_app_normal(*op, buf)
    }

    fn plan_of(&self, found: &Found) -> Option<&Plan> {
        if self.ctors.is_empty() {
            return None;
        }
        self.plan_list.get(found.plan as usize)?.as_ref()
    }

    /// The plan for the states of constructor `op` whose tested arguments are the literals
    /// of `pk` (see `StateFree::plans`): `None` when they read too many arguments.
    fn make_plan(&self, op: OpId, pk: &[u32; 1 + MAX_TESTED]) -> Option<Plan> {
        let arity = self
            .eqs
            .iter()
            .find(|e| e.ctor == Some(op))
            .map_or(0, |e| e.read.len());
        // The equations that can match: of this constructor (or of any state), with every
        // literal tested where the state has it.
        let candidates: Vec<&EqInfo> = self
            .eqs
            .iter()
            .filter(|e| e.ctor.is_none_or(|c| c == op))
            .filter(|e| {
                e.tests.iter().all(|&(pi, lit)| {
                    let lits = &self.places[pi].1;
                    let at = pk[1 + pi] as usize;
                    lits.get(at) == Some(&lit)
                })
            })
            .collect();
        let mut read = vec![false; arity];
        for e in candidates.iter().filter(|e| e.ctor.is_some()) {
            read.iter_mut().zip(&e.read).for_each(|(a, b)| *a |= b);
        }
        // The copies of the arguments nobody reads, per shape; all shapes must be known and
        // agree per top operator.
        let mut shapes: Vec<(Option<OpId>, Vec<Option<usize>>)> = Vec::new();
        let mut copying = true;
        'eqs: for e in &candidates {
            let Some(leaves) = &e.leaves else {
                copying = false;
                break;
            };
            for leaf in leaves {
                let copies: Vec<Option<usize>> = leaf
                    .copies
                    .iter()
                    .map(|c| c.filter(|&j| !read[j]))
                    .collect();
                match shapes.iter().find(|(t, _)| *t == leaf.top) {
                    Some((_, c)) if *c != copies => {
                        copying = false;
                        break 'eqs;
                    }
                    Some(_) => {}
                    None => shapes.push((leaf.top, copies)),
                }
            }
        }
        let copied: Vec<usize> = candidates
            .iter()
            .filter_map(|e| e.leaves.as_ref())
            .flatten()
            .flat_map(|l| l.copies.iter().flatten().copied())
            .filter(|&j| !read[j])
            .collect();
        if !copying {
            // Whatever some equation copies is read instead.
            copied.iter().for_each(|&j| read[j] = true);
            shapes.clear();
        } else if copied.is_empty() {
            shapes.clear();
        }
        let read: Vec<usize> = (0..arity).filter(|&j| read[j]).collect();
        if read.len() > MAX_READ {
            return None;
        }
        let shapes = shapes
            .into_iter()
            .map(|(top, copies)| {
                let pairs = copies
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| c.map(|j| (i, j)))
                    .collect();
                (top, pairs)
            })
            .collect();
        Some(Plan { read, shapes })
    }

    /// Does the answer depend on no part of the state at all?
    pub fn ignores_state(&self) -> bool {
        self.ctors.is_empty()
    }

    /// The analysis of the template `pat` (a question of the game) with the state at
    /// argument `state`: `Some` when its answer depends on part of the state only. Only
    /// templates that apply an operator to its variables in order (`events(?0, ?1)`) are
    /// analysed; the operator must be defined by equations, free (matching does not
    /// reorder its arguments) and not built in.
    pub fn analyse(program: &Program, pat: &Pat, state: usize) -> Option<StateFree> {
        let Pat::App(op, args) = pat else {
            return None;
        };
        let in_order = args
            .iter()
            .enumerate()
            .all(|(i, a)| *a == Pat::Var(i as u32));
        if !in_order || state >= args.len() || !free(program, *op) {
            return None;
        }
        let eqs = program.eqs_by_op.get(op).filter(|e| !e.is_empty())?;
        let mut sorts = Vec::new();
        let mut ctors = Vec::new();
        let mut places: Vec<(Place, Vec<Lit>)> = Vec::new();
        let mut infos = Vec::new();
        for &ei in eqs {
            let eq = &program.equations[ei];
            let Pat::App(_, largs) = &eq.lhs else {
                return None;
            };
            let on_left = |v: u32| -> usize { largs.iter().map(|a| occurrences(a, v)).sum() };
            let in_cond = |v: u32| eq.cond.as_ref().is_some_and(|c| occurrences(c, v) > 0);
            // The literals of the left side: at the question's other arguments and among
            // the constructor's.
            let mut tests = Vec::new();
            let mut test = |place: Place, p: &Pat| {
                if let Some(lit) = literal(program, p) {
                    let pi = match places.iter().position(|(q, _)| *q == place) {
                        Some(pi) => pi,
                        None if places.len() < MAX_TESTED => {
                            places.push((place, Vec::new()));
                            places.len() - 1
                        }
                        None => return,
                    };
                    if !places[pi].1.contains(&lit) {
                        places[pi].1.push(lit);
                    }
                    tests.push((pi, lit));
                }
            };
            for (k, a) in largs.iter().enumerate().filter(|&(k, _)| k != state) {
                test(Place::Arg(k), a);
            }
            let info = match largs.get(state)? {
                Pat::Var(v)
                    if on_left(*v) == 1 && !in_cond(*v) && occurrences(&eq.rhs, *v) == 0 =>
                {
                    let sort = eq.vars.get(*v as usize)?.sort;
                    if !sorts.contains(&sort) {
                        sorts.push(sort);
                    }
                    EqInfo {
                        ctor: None,
                        tests,
                        read: Vec::new(),
                        leaves: leaves(program, &eq.rhs, &[], &[], &mut Vec::new()),
                    }
                }
                Pat::App(c, sub) if is_constructor(program, *c) => {
                    for (j, p) in sub.iter().enumerate() {
                        test(Place::Sub(j), p);
                    }
                    let declared = &program.sig.op(*c).args;
                    // Per argument, the variable there if it may be unseen or copied.
                    let vars: Vec<Option<u32>> = sub
                        .iter()
                        .enumerate()
                        .map(|(j, p)| match p {
                            Pat::Var(w) if on_left(*w) == 1 && !in_cond(*w) => {
                                let sort = eq.vars[*w as usize].sort;
                                declared
                                    .get(j)
                                    .is_some_and(|&d| program.sig.leq(d, sort))
                                    .then_some(*w)
                            }
                            _ => None,
                        })
                        .collect();
                    let mut read: Vec<bool> = vars.iter().map(Option::is_none).collect();
                    let mut used = Vec::new();
                    let shapes = leaves(program, &eq.rhs, &vars, declared, &mut used);
                    for (j, v) in vars.iter().enumerate() {
                        // Used where it is not a copy, or anywhere when the shapes of the
                        // answer are not known (a copy in one branch of several).
                        let unknown = shapes.is_none();
                        if v.is_some_and(|w| {
                            used.contains(&w) || (unknown && occurrences(&eq.rhs, w) > 0)
                        }) {
                            read[j] = true;
                        }
                    }
                    if !ctors.contains(c) {
                        ctors.push(*c);
                    }
                    EqInfo {
                        ctor: Some(*c),
                        tests,
                        read,
                        leaves: shapes,
                    }
                }
                _ => return None,
            };
            infos.push(info);
        }
        // As many places as the plans' numbering has room for (a test not used leaves its
        // equation a candidate, which is safe).
        let mut count = ctors.len().max(1);
        let kept = places
            .iter()
            .take_while(|(_, lits)| {
                count = count.saturating_mul(lits.len() + 1);
                count <= MAX_PLANS
            })
            .count();
        places.truncate(kept);
        for info in &mut infos {
            info.tests.retain(|&(pi, _)| pi < kept);
        }
        let count = places
            .iter()
            .fold(ctors.len().max(1), |n, (_, lits)| n * (lits.len() + 1));
        let sf = StateFree {
            op: *op,
            state,
            sorts,
            ctors,
            eqs: infos,
            places,
            plans: vec![NO_PLAN; count],
            plan_list: Vec::new(),
            buf: Vec::new(),
        };
        // A constructor whose equations read more arguments than a key holds whatever the
        // literals, for every constructor: nothing to share.
        let hopeless = sf.ctors.iter().all(|&c| {
            let mut read = Vec::new();
            for e in sf.eqs.iter().filter(|e| e.ctor == Some(c)) {
                read.resize(e.read.len(), false);
                read.iter_mut().zip(&e.read).for_each(|(a, b)| *a |= b);
            }
            // The least any plan reads: what every equation of the constructor reads.
            let least = (0..read.len())
                .filter(|&j| {
                    sf.eqs
                        .iter()
                        .filter(|e| e.ctor == Some(c))
                        .all(|e| e.read[j])
                })
                .count();
            least > MAX_READ
        });
        if !sf.ctors.is_empty() && hopeless {
            return None;
        }
        Some(sf)
    }
}

/// The shapes of what `rhs` gives, where `vars[j]` is the variable of the state
/// constructor's argument `j` that may be copied (declared of sort `from[j]`): a free
/// constructor at the top (its arguments that are such variables, where the constructor
/// takes a sort at least `from[j]`, are copies), an integer, or `if_then_else_fi` of
/// such. Every other occurrence of those variables is added to `used` (they are read);
/// `None` when some branch gives something else (its shape cannot be told).
fn leaves(
    program: &Program,
    rhs: &Pat,
    vars: &[Option<u32>],
    from: &[SortId],
    used: &mut Vec<u32>,
) -> Option<Vec<Leaf>> {
    let use_all = |p: &Pat, used: &mut Vec<u32>| {
        for w in vars.iter().flatten() {
            if occurrences(p, *w) > 0 && !used.contains(w) {
                used.push(*w);
            }
        }
    };
    match rhs {
        Pat::Int(_) => Some(vec![Leaf {
            top: None,
            copies: Vec::new(),
        }]),
        Pat::App(op, args)
            if program.sig.op(*op).attrs.builtin == Some(Builtin::IfThenElse)
                && args.len() == 3 =>
        {
            use_all(&args[0], used);
            let a = leaves(program, &args[1], vars, from, used);
            let b = leaves(program, &args[2], vars, from, used);
            let mut a = a?;
            a.extend(b?);
            Some(a)
        }
        Pat::App(op, args) if is_constructor(program, *op) => {
            let declared = &program.sig.op(*op).args;
            let copies = args
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let j = match a {
                        Pat::Var(w) => vars.iter().position(|v| *v == Some(*w)),
                        _ => None,
                    };
                    // The argument must fit where it lands (the engine does not check).
                    let fits = |j: usize| {
                        declared
                            .get(i)
                            .zip(from.get(j))
                            .is_some_and(|(&d, &f)| program.sig.leq(f, d))
                    };
                    match j.filter(|&j| fits(j)) {
                        Some(j) => Some(j),
                        None => {
                            use_all(a, used);
                            None
                        }
                    }
                })
                .collect();
            Some(vec![Leaf {
                top: Some(*op),
                copies,
            }])
        }
        _ => {
            use_all(rhs, used);
            None
        }
    }
}

/// The top of a term, as a shape's: `Some(Some(op))` for an application of `op`,
/// `Some(None)` for an integer, `None` for anything else (a map: no shape).
fn top_of(store: &TermStore, t: TermId) -> Option<Option<OpId>> {
    match store.op(t) {
        Some(op) => Some(Some(op)),
        None => store.int(t).map(|_| None),
    }
}

/// Is `t` the literal `l`?
fn is_lit(store: &TermStore, t: TermId, l: Lit) -> bool {
    match l {
        Lit::Int(i) => store.int(t) == Some(i),
        Lit::Const(c) => store.op(t) == Some(c) && store.args(t).is_empty(),
    }
}

/// The literal `p` is, if it is one: an integer, or a constant that is a free constructor
/// (matched by that constant only).
fn literal(program: &Program, p: &Pat) -> Option<Lit> {
    match p {
        Pat::Int(i) => Some(Lit::Int(*i)),
        Pat::App(c, args) if args.is_empty() && is_constructor(program, *c) => Some(Lit::Const(*c)),
        _ => None,
    }
}

/// Is `op` free (no equational attribute: matching takes its arguments in order) and not
/// built in?
fn free(program: &Program, op: OpId) -> bool {
    let a = &program.sig.op(op).attrs;
    a.builtin.is_none() && !a.assoc && !a.comm && !a.idem && a.identity.is_none()
}

/// A constructor a state can be built of: free, not built in, and no equation rewrites it
/// (so a state headed by it is headed by it in normal form, and matching it against the
/// equation's pattern only compares operators and arguments).
fn is_constructor(program: &Program, op: OpId) -> bool {
    free(program, op) && !program.is_defined(op) && !program.sig.op(op).attrs.memo
}

/// How many times variable `v` occurs in `p`.
fn occurrences(p: &Pat, v: u32) -> usize {
    match p {
        Pat::Var(w) => usize::from(*w == v),
        Pat::Int(_) => 0,
        Pat::App(_, args) => args.iter().map(|a| occurrences(a, v)).sum(),
    }
}
