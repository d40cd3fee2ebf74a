//! Elaboration: modules, theories, views and instantiation; terms parsed against the
//! signature; and the located errors for what is wrong.

use gamelang_lang::diag::{render_all, Diag};
use gamelang_lang::elab::mixfix::show_pat;
use gamelang_lang::elab::Session;
use gamelang_lang::program::Pat;

fn session() -> Session {
    Session::new().unwrap_or_else(|e| panic!("stdlib failed:\n{e}"))
}

fn load(src: &str) -> Session {
    let mut s = session();
    if let Err(e) = s.load_source("test.game", src) {
        panic!("unexpected errors:\n{}", render_all(&e, &s.sources, false));
    }
    s
}

/// Load `src`, expecting errors; returns the first one and its rendering.
fn load_err(src: &str) -> (Diag, String, Session) {
    let mut s = session();
    match s.load_source("test.game", src) {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            let text = render_all(&e, &s.sources, false);
            (e[0].clone(), text, s)
        }
    }
}

fn span_text(s: &Session, d: &Diag) -> String {
    s.sources
        .snippet(d.span().expect("a primary span"))
        .to_string()
}

fn term(s: &mut Session, module: &str, text: &str) -> String {
    let m = s.module_by_name(module).expect("module");
    let pat = s
        .parse_term(m, "term", text, None)
        .unwrap_or_else(|d| panic!("{}", d.render(&s.sources, false)));
    show_pat(&s.program.sig, &pat)
}

#[test]
fn precedence_and_associativity_follow_maude() {
    let mut s = load("fmod T is protecting INT . endfm");
    assert_eq!(term(&mut s, "T", "1 + 2 * 3"), "(1 + (2 * 3))");
    assert_eq!(term(&mut s, "T", "1 - 2 - 3"), "((1 - 2) - 3)");
    assert_eq!(term(&mut s, "T", "(1 - 2) * 3"), "((1 - 2) * 3)");
    assert_eq!(
        term(&mut s, "T", "1 < 2 and 3 <= 4 or false"),
        "(((1 < 2) and (3 <= 4)) or false)"
    );
    assert_eq!(term(&mut s, "T", "not 1 == 2"), "(not (1 == 2))");
    assert_eq!(
        term(&mut s, "T", "if 1 < 2 then 3 else - 4 fi"),
        "(if (1 < 2) then 3 else (- 4) fi)"
    );
    assert_eq!(term(&mut s, "T", "-4"), "-4");
}

#[test]
fn user_mixfix_operators_and_sets() {
    let src = "
fmod P is
  protecting INT .
  sort Pair .
  op (__) : Nat Nat -> Pair [ctor] .
  protecting SET{Pair} .
  op f : Pair -> Set{Pair} .
  vars a b : Nat .
  eq f((a b)) = (a b), (b a), (a (b + 1)) .
endfm";
    let mut s = load(src);
    assert_eq!(term(&mut s, "P", "(2 5)"), "(( 2 5 ))");
    // Associative operators are flattened when parsed.
    assert_eq!(
        term(&mut s, "P", "(1 2), (3 4), (5 6)"),
        "_,_((( 1 2 )), (( 3 4 )), (( 5 6 )))"
    );
    assert_eq!(term(&mut s, "P", "f (1 2)"), "(f ( (( 1 2 )) ))");
    let eq = s
        .program
        .equations
        .iter()
        .find(|e| e.module == "P")
        .expect("equation");
    assert!(matches!(&eq.rhs, Pat::App(_, args) if args.len() == 3));
}

#[test]
fn views_explicit_and_implicit() {
    // The game's names already match GAME-TREE except for the sorts: a view maps those.
    let src = "
fmod TAKE is
  protecting PLAYERS .
  protecting SET{Nat} .
  op halted : Players Nat -> Bool .
  op won : Players Nat -> Bool .
  op next-config : Players Nat -> Set{Nat} .
  var p : Players . var n : Nat .
  eq halted(p, n) = n == 0 .
  eq won(p, n) = p == B and n == 0 .
  eq next-config(p, 1) = 0 .
  eq next-config(p, n) = (n - 1), (n - 2) [owise] .
endfm
view Take from GAME-TREE to TAKE is
  sort Config to Nat .
  sort SetConfig to Set{Nat} .
endv
game take is instance WINS{Take} . start 10 . first R . endgame
";
    let s = load(src);
    let g = &s.games[0];
    assert_eq!(s.modules[g.module].name, "WINS{Take}");
    assert_eq!(s.program.sig.sort(g.config_sort).name, "Nat");
    // next-config maps to TAKE's own operator, by name.
    let Pat::App(op, _) = &g.next_config else {
        panic!()
    };
    assert_eq!(s.program.sig.op(*op).module, "TAKE");

    // A module whose names all match needs no view at all.
    let src = "
fmod G is
  protecting PLAYERS .
  sorts Config SetConfig .
  subsort Config < SetConfig .
  op empty : -> SetConfig [ctor] .
  op _,_ : SetConfig SetConfig -> SetConfig [ctor assoc comm id: empty] .
  op c0 : -> Config [ctor] .
  op halted : Players Config -> Bool .
  op won : Players Config -> Bool .
  op next-config : Players Config -> SetConfig .
  var p : Players .
  eq halted(p, c0) = true .
  eq won(p, c0) = p == B .
  eq next-config(p, c0) = empty .
endfm
game g is instance WINS{G} . start c0 . endgame
";
    let s = load(src);
    assert_eq!(s.modules[s.games[0].module].name, "WINS{G}");
}

#[test]
fn same_instantiation_is_shared() {
    let src = "
fmod A is protecting SET{Nat} . op a : -> Set{Nat} . eq a = 1, 2 . endfm
fmod B2 is protecting SET{Nat} . protecting A . op b : -> Set{Nat} . eq b = a, 3 . endfm";
    let s = load(src);
    let count = s.modules.iter().filter(|m| m.name == "SET{Nat}").count();
    assert_eq!(count, 1, "SET{{Nat}} must be elaborated once");
}

#[test]
fn unknown_sort_is_located_with_a_suggestion() {
    let (d, text, s) = load_err("fmod T is protecting INT . op f : Nta -> Nat . endfm");
    assert_eq!(d.message, "unknown sort `Nta`");
    assert_eq!(span_text(&s, &d), "Nta");
    assert!(text.contains("did you mean `Nat`?"), "{text}");
    assert!(text.contains("test.game:1:"), "{text}");
}

#[test]
fn unknown_operator_in_equation() {
    let (d, text, s) = load_err(
        "fmod T is protecting INT . op f : Nat -> Nat . var n : Nat . eq f(n) = g(n) + 1 . endfm",
    );
    assert_eq!(d.message, "unknown operator or variable `g`");
    assert_eq!(span_text(&s, &d), "g");
    let _ = text;
}

#[test]
fn argument_of_wrong_sort() {
    let (d, _, s) =
        load_err("fmod T is protecting INT . op f : Nat -> Nat . eq f(0) = f(true) . endfm");
    assert!(
        d.message
            .starts_with("argument 1 of `f` has the wrong sort"),
        "{}",
        d.message
    );
    assert_eq!(span_text(&s, &d), "true");
}

#[test]
fn equation_sides_of_unrelated_sorts() {
    let (d, _, s) =
        load_err("fmod T is protecting INT . op f : Nat -> Nat . eq f(0) = true . endfm");
    assert!(d.message.contains("unrelated sorts"), "{}", d.message);
    assert_eq!(span_text(&s, &d), "true");
}

#[test]
fn unbound_variable_on_the_right() {
    let (d, _, _) = load_err(
        "fmod T is protecting INT . op f : Nat -> Nat . vars n m : Nat . eq f(n) = m . endfm",
    );
    assert_eq!(
        d.message,
        "variable `m` does not occur in the left-hand side"
    );
}

#[test]
fn ambiguous_terms_list_their_readings() {
    let src = "fmod T is protecting INT . op _#_ : Nat Nat -> Nat [prec 40 assoc] . op _@_ : Nat Nat -> Nat [prec 40 assoc] . op f : -> Nat . eq f = 1 @ 2 # 3 . endfm";
    let (d, text, _) = load_err(src);
    assert!(d.message.starts_with("ambiguous term"), "{}", d.message);
    assert!(text.contains("reading:"), "{text}");
}

#[test]
fn unknown_module_and_view_errors() {
    let (d, text, _) = load_err("fmod T is protecting INTT . endfm");
    assert_eq!(d.message, "unknown module `INTT`");
    assert!(text.contains("did you mean `INT`?"), "{text}");

    // A view that leaves a theory operator without a counterpart.
    let src = "
fmod G is protecting PLAYERS . protecting SET{Nat} .
  op halted : Players Nat -> Bool .
endfm
view V from GAME-TREE to G is sort Config to Nat . sort SetConfig to Set{Nat} . endv";
    let (d, text, _) = load_err(src);
    assert!(
        d.message.contains("does not map the theory operator `won`"),
        "{}",
        d.message
    );
    assert!(text.contains("won : Players Nat -> Bool"), "{text}");
}

/// A view that does not elaborate is met twice (on its own, and by the instance that
/// uses it): one error, not the same error twice.
#[test]
fn a_broken_view_used_by_a_game_is_one_error() {
    let src = "
fmod A is sort S . endfm
view V from GAME-TREE to NOPE is sort Config to S . endv
game g is instance WINS{V} . start c . first R . endgame";
    let mut s = session();
    let errors = s
        .load_source("test.game", src)
        .expect_err("NOPE is unknown");
    assert_eq!(
        errors.len(),
        1,
        "{}",
        render_all(&errors, &s.sources, false)
    );
    assert_eq!(errors[0].message, "unknown module `NOPE`");
    assert_eq!(span_text(&s, &errors[0]), "NOPE");
}

/// An equation of a parameterised module that does not parse is met at the module's own
/// check and again in each instance (with other hints: other operators are in scope):
/// reported once, as the module's check words it.
#[test]
fn an_error_in_a_parameterised_module_is_reported_once_for_all_its_instances() {
    let src = "
fmod BOX{X :: TRIV} is
  sort Box{X} .
  op box : X$Elt -> Box{X} [ctor] .
  op f : Box{X} -> Box{X} .
  var A : X$Elt .
  eq f(box(A)) = box(A A) .
endfm
fmod T is protecting INT . protecting BOX{Nat} . protecting BOX{Int} . endfm";
    let mut s = session();
    let errors = s
        .load_source("test.game", src)
        .expect_err("A A does not parse");
    assert_eq!(
        errors.len(),
        1,
        "{}",
        render_all(&errors, &s.sources, false)
    );
    assert!(errors[0].message.starts_with("no parse for `box ( A A )`"));
}

/// An `assoc` operator whose result is not of its arguments' kind is refused where it is
/// declared (as Maude refuses it), not at its first use.
#[test]
fn an_assoc_operator_must_stay_in_its_kind() {
    let (d, _, s) = load_err("fmod T is protecting INT . op f : Int Int -> Bool [assoc] . endfm");
    assert_eq!(
        d.message,
        "an `assoc` operator's arguments and result must be of one kind, and `f : Int Int -> Bool` mixes kinds"
    );
    assert_eq!(span_text(&s, &d), "f");
    load("fmod U is protecting INT . sort E . subsort Int < E . op g : Int E -> E [assoc] . endfm");
}

#[test]
fn parameterised_modules_are_checked_at_definition() {
    let (d, _, s) = load_err(
        "fmod M{X :: TRIV} is op f : X$Elt -> X$Elt . var e : X$Elt . eq f(e) = g(e) . endfm",
    );
    assert_eq!(d.message, "unknown operator or variable `g`");
    assert_eq!(span_text(&s, &d), "g");
}

#[test]
fn command_line_terms_are_parsed_in_the_game_module() {
    let mut s = session();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/heaps.game");
    s.load_file(std::path::Path::new(path))
        .unwrap_or_else(|e| panic!("{}", render_all(&e, &s.sources, false)));
    let g = s.games[0].clone();
    assert!(s
        .parse_term(g.module, "--from", "(5 2)", Some(g.config_sort))
        .is_ok());
    let d = s
        .parse_term(g.module, "--from", "(5 true)", Some(g.config_sort))
        .unwrap_err();
    assert!(d.message.contains("wrong sort"), "{}", d.message);
    let d = s
        .parse_term(g.module, "--from", "(5 2", Some(g.config_sort))
        .unwrap_err();
    assert_eq!(d.message, "unbalanced parenthesis");
}

#[test]
fn a_missing_dot_is_named_as_such() {
    let (d, _, s) = load_err("fmod T is protecting INT . op f : Nat -> Nat . var n : Nat .\n  eq f(0) = 1\n  eq f(n) = 2 .\nendfm");
    // At the end of the equation without its ` .` (the `1`), the next `eq` marked.
    assert_eq!(
        d.message,
        "missing ` .` at the end of the declaration before `eq`"
    );
    assert_eq!(span_text(&s, &d), "1");
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("help: add ` .` after `1`")),
        "{:?}",
        d.notes
    );
}

#[test]
fn right_hand_sides_are_read_at_the_left_hand_side_kind() {
    // `empty` is both a Set{Nat} and a Set{Board}; the left-hand side decides.
    let s = load(
        "fmod T is protecting SET{Nat} . sort Board . op b : Nat -> Board [ctor] . protecting SET{Board} .
           op f : Set{Nat} -> Set{Nat} . var X : Set{Nat} . eq f(X) = empty . endfm",
    );
    let eq = s
        .program
        .equations
        .iter()
        .find(|e| e.module == "T")
        .unwrap();
    let Pat::App(op, _) = &eq.rhs else { panic!() };
    assert_eq!(
        s.program.sig.sort(s.program.sig.op(*op).result).name,
        "Set{Nat}"
    );
}

#[test]
fn the_examples_load() {
    for f in ["heaps", "tictactoe", "nim", "wythoff"] {
        let mut s = session();
        let path = format!("{}/../examples/{f}.game", env!("CARGO_MANIFEST_DIR"));
        if let Err(e) = s.load_file(std::path::Path::new(&path)) {
            panic!("{f}:\n{}", render_all(&e, &s.sources, false));
        }
        assert_eq!(s.games.len(), 1, "{f}");
    }
}

/// The reading of `text` in module `module`, or the error's message.
fn try_term(s: &mut Session, module: &str, text: &str) -> Result<Pat, String> {
    let m = s.module_by_name(module).expect("module");
    s.parse_term(m, "term", text, None)
        .map_err(|d| d.render(&s.sources, false).chars().take(400).collect())
}

/// Run `f` on a thread with a large stack, as the `gamelang` binary runs its commands (a
/// left-nested chain of 3,000 terms is 3,000 levels deep for whatever walks it).
fn big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn long_chains_parse_in_linear_time_with_no_token_cap() {
    big_stack(long_chains);
}

fn long_chains() {
    let mut s = load(
        "fmod T is protecting INT . protecting SET{Nat} .\n\
         op _|>_ : Nat Nat -> Nat [prec 40 assoc] .\n\
         op _<|_ : Nat Nat -> Nat [prec 40 assoc] .\n\
         op f : Nat Nat -> Nat .\n\
         endfm",
    );
    // 3,000 terms: 5,999 tokens, past the old cap of 4,000 (and cubic before that).
    let sum = vec!["1"; 3000].join(" + ");
    match try_term(&mut s, "T", &sum).unwrap() {
        // Left-associative: the outermost application's first argument is the rest.
        Pat::App(_, args) => {
            assert_eq!(args.len(), 2);
            assert_eq!(args[1], Pat::Int(1));
        }
        other => panic!("{other:?}"),
    }
    // Mixed precedences keep their grouping.
    let mixed = (0..1000)
        .map(|k| format!("{k} * 2 * f(1, 2)"))
        .collect::<Vec<_>>()
        .join(" + ");
    let pat = try_term(&mut s, "T", &mixed).unwrap();
    let shown = show_pat(&s.program.sig, &pat);
    assert!(shown.starts_with("(((((((("), "{}", &shown[..60]);
    assert!(
        shown.ends_with("+ ((999 * 2) * (f ( 1 , 2 ))))"),
        "{}",
        &shown[shown.len() - 60..]
    );
    // A short chain goes through the chart parser: the same grouping.
    let short = (0..3)
        .map(|k| format!("{k} * 2 * f(1, 2)"))
        .collect::<Vec<_>>()
        .join(" + ");
    let short = try_term(&mut s, "T", &short).unwrap();
    assert_eq!(
        show_pat(&s.program.sig, &short),
        "((((0 * 2) * (f ( 1 , 2 ))) + ((1 * 2) * (f ( 1 , 2 )))) + ((2 * 2) * (f ( 1 , 2 ))))"
    );
    // An associative constructor (a set), flattened.
    let set = (0..2000)
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match try_term(&mut s, "T", &set).unwrap() {
        Pat::App(_, args) => assert_eq!(args.len(), 2000),
        other => panic!("{other:?}"),
    }
}

/// Items in brackets (`{x y} ; {x} ; …`, a bag of bags) are items of a chain like
/// parenthesised groups: the chain parser reads them, where the chart parser, cubic, took 3
/// s for 80 bags and 137 s for 300, and refuses a term past 4,000 tokens. 1,500 boxes
/// (over 7,000 tokens), some holding a parenthesised group or a nested box, read as one
/// flattened `_;_` of the boxes written, each as the chart parser reads it alone; and one
/// bracket around a long inside is its form applied to the inside's chain.
#[test]
fn bracketed_items_in_a_long_chain_are_read_by_the_chain_parser() {
    big_stack(bracketed_chains);
}

fn bracketed_chains() {
    let mut s = load(
        "fmod B is\n  protecting INT .\n  sorts Elt Bag Box Boxes .\n  subsort Elt < Bag .\n  subsort Box < Boxes .\n  \
         subsort Box < Elt .\n  ops x y : -> Elt .\n  op none : -> Bag .\n  \
         op __ : Bag Bag -> Bag [assoc comm id: none] .\n  op {_} : Bag -> Box .\n  \
         op w : Box Nat -> Box .\n  op _;_ : Boxes Boxes -> Boxes [assoc comm] .\n  endfm",
    );
    let shapes = ["{x y}", "{x}", "{(x y) x}", "{x {y x}}", "w({y}, 3)"];
    let boxes: Vec<&str> = (0..1500).map(|k| shapes[k * 7 % shapes.len()]).collect();
    let alone: Vec<String> = shapes
        .iter()
        .map(|b| {
            let pat = try_term(&mut s, "B", b).unwrap();
            show_pat(&s.program.sig, &pat)
        })
        .collect();
    match try_term(&mut s, "B", &boxes.join(" ; ")).unwrap() {
        Pat::App(_, args) => {
            assert_eq!(args.len(), boxes.len());
            for (k, a) in args.iter().enumerate() {
                assert_eq!(
                    show_pat(&s.program.sig, a),
                    alone[k * 7 % shapes.len()],
                    "box {k}"
                );
            }
        }
        other => panic!("{other:?}"),
    }
    // An infix token that is also inside another form (`;` of `<_;_>`): the chain is
    // still read as one (the chart parser took 21 s for 200 boxes), with the form's own
    // uses each a bracketed item.
    let mut t = load(
        "fmod P is\n  sorts Sym Word Box Boxes .\n  subsort Sym < Word .\n  subsort Box < Boxes .\n  \
         ops x y : -> Sym .\n  op __ : Word Word -> Word [assoc] .\n  op {_} : Word -> Box .\n  \
         op _;_ : Boxes Boxes -> Boxes [assoc] .\n  op <_;_> : Word Word -> Box .\n  endfm",
    );
    let shapes = ["{x y}", "< x ; y >", "< x y ; x >", "{x}"];
    for with_angles in [false, true] {
        let boxes: Vec<&str> = (0..1500)
            .map(|k| shapes[if with_angles { k % 4 } else { 3 * (k % 2) }])
            .collect();
        let alone: Vec<String> = boxes
            .iter()
            .take(4)
            .map(|b| {
                let pat = try_term(&mut t, "P", b).unwrap();
                show_pat(&t.program.sig, &pat)
            })
            .collect();
        match try_term(&mut t, "P", &boxes.join(" ; ")).unwrap() {
            Pat::App(_, args) => {
                assert_eq!(args.len(), boxes.len());
                for (k, a) in args.iter().enumerate() {
                    assert_eq!(show_pat(&t.program.sig, a), alone[k % 4], "box {k}");
                }
            }
            other => panic!("{other:?}"),
        }
    }
    // Side by side in one bracket: a bag of 1,200 boxes (over 5,000 tokens), the same way.
    let bag = boxes[..1200].join(" ");
    match try_term(&mut s, "B", &format!("{{{bag}}}")).unwrap() {
        Pat::App(_, args) => match &args[..] {
            [Pat::App(_, inner)] => assert_eq!(inner.len(), 1200),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// Chains of an operator whose token is also a prefix operator (`_-_` and `-_`) or that
/// declares its gathering (`_-_` is `gather (E e)`): 3,000 operands (5,999 tokens, past
/// the chart parser's cap; at 259 it used to drop the well-formed reading and call the
/// term ambiguous), grouped as the gathering says, checked against the groupings of a
/// fold written here.
#[test]
fn chains_of_an_operator_that_is_also_prefix_or_gathered() {
    big_stack(gathered_chains);
}

fn gathered_chains() {
    let mut s = load(
        "fmod T is protecting INT . sort E . subsort Int < E .\n\
         op _>>>_ : E E -> E [gather (e E)] .\n\
         op ~~_ : E -> E .\n\
         op _~~_ : E E -> E .\n\
         endfm",
    );
    let nums: Vec<String> = (0..3000).map(|k| (k * 7 % 100).to_string()).collect();
    // Left-grouped: `((a - b) - c) - …`, so the fold from the left.
    let left = nums
        .iter()
        .skip(1)
        .fold(nums[0].to_string(), |acc, n| format!("({acc} - {n})"));
    // Right-grouped: `a >>> (b >>> (c >>> …))`.
    let right = nums
        .iter()
        .rev()
        .skip(1)
        .fold(nums[nums.len() - 1].clone(), |acc, n| {
            format!("({n} >>> {acc})")
        });
    let tilde = nums
        .iter()
        .skip(1)
        .fold(nums[0].to_string(), |acc, n| format!("({acc} ~~ {n})"));
    for (op, want) in [(" - ", left), (" >>> ", right), (" ~~ ", tilde)] {
        let chain = nums.join(op);
        let pat = try_term(&mut s, "T", &chain).unwrap_or_else(|d| panic!("{op}: {d}"));
        let shown = show_pat(&s.program.sig, &pat);
        assert_eq!(shown.len(), want.len(), "{op}");
        assert!(
            shown == want,
            "{op}: {} … vs {} …",
            &shown[..80],
            &want[..80]
        );
    }
}

#[test]
fn deep_parentheses_are_an_error_not_a_crash() {
    big_stack(deep_parentheses);
}

fn deep_parentheses() {
    let mut s = load("fmod T is protecting INT . endfm");
    let deep = format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000));
    let e = try_term(&mut s, "T", &deep).unwrap_err();
    assert!(
        e.contains("parentheses nested more than 10000 deep"),
        "{}",
        &e[..200]
    );
    let ok = format!("{}1{}", "(".repeat(500), ")".repeat(500));
    assert_eq!(try_term(&mut s, "T", &ok), Ok(Pat::Int(1)));
}

#[test]
fn a_string_literal_with_a_colon_is_a_string_not_a_variable() {
    // `"a: b"` was read as an on-the-fly variable `"a` of sort ` b"`. On-the-fly
    // variables (`X:Nat`) are still read as such.
    let mut s = load(
        "fmod T is\n  protecting INT .\n  op s : -> String .\n  eq s = \"walls left: 3\" .\n  \
         op f : Nat -> Nat .\n  eq f(X:Nat) = X:Nat + 1 .\nendfm\n",
    );
    assert_eq!(term(&mut s, "T", "\"a: b\""), "\"a: b\"");
}

/// A module with a list whose cons `_;_` takes an element of another kind (Maude's usual
/// way of writing lists), a left-nestable operator `_~_`, Maude's `_<:_` over a subsort
/// (`Int < IntList`), and an operator ending in a hole after a keyword (`let_in_`).
fn lists_module() -> Session {
    load(
        "fmod L is\n  protecting INT .\n  sorts Rows IntList .\n  subsort Int < IntList .\n\
         \x20 op nil : -> Rows [ctor] .\n  op _;_ : Int Rows -> Rows [ctor] .\n\
         \x20 op len : Rows -> Int .\n  op _~_ : Int Int -> Int .\n\
         \x20 op _<:_ : Int IntList -> IntList [ctor] .\n  op let_in_ : Int Int -> Int .\n\
         endfm",
    )
}

#[test]
fn an_operator_groups_to_the_right_where_only_that_reading_is_well_sorted() {
    let mut s = lists_module();
    // `(1 ; 2) ; …` is not well-kinded (`2` is no list): Maude reads it to the right, and
    // so does gamelang now (it read every open operator to the left, and refused).
    assert_eq!(
        term(&mut s, "L", "1 ; 2 ; 3 ; nil"),
        "(1 ; (2 ; (3 ; nil)))"
    );
    assert_eq!(
        term(&mut s, "L", "len(1 ; 2 ; nil)"),
        "(len ( (1 ; (2 ; nil)) ))"
    );
    // Where both groupings are well sorted, still to the left.
    assert_eq!(term(&mut s, "L", "1 ~ 2 ~ 3"), "((1 ~ 2) ~ 3)");
    assert_eq!(term(&mut s, "L", "1 - 2 - 3 - 4"), "(((1 - 2) - 3) - 4)");
    assert_eq!(term(&mut s, "L", "1 ~ (2 ~ 3)"), "(1 ~ (2 ~ 3))");
    // Seven operands (13 tokens: the chart parser), 132 bracketings: the left one.
    assert_eq!(
        term(&mut s, "L", "1 ~ 2 ~ 3 ~ 4 ~ 5 ~ 6 ~ 7"),
        "((((((1 ~ 2) ~ 3) ~ 4) ~ 5) ~ 6) ~ 7)"
    );
    // Where the left grouping is only kind-correct (`1 <: 2` is an IntList, not an Int),
    // the well-sorted right one (Maude's default gathering for `_<:_`, `(e E)`).
    assert_eq!(term(&mut s, "L", "1 <: 2 <: 3"), "(1 <: (2 <: 3))");
    // An operator ending in a hole after a keyword nests in its last argument.
    assert_eq!(
        term(&mut s, "L", "let 1 in let 2 in 3"),
        "(let 1 in (let 2 in 3))"
    );
    // Mixed with a tighter operator: the elements' sums stay elements.
    assert_eq!(
        term(&mut s, "L", "1 + 2 ; 3 * 4 ; nil"),
        "((1 + 2) ; ((3 * 4) ; nil))"
    );
    // The left grouping written out is still wrong, with the argument pointed at.
    let e = try_term(&mut s, "L", "(1 ; 2) ; nil").unwrap_err();
    assert!(
        e.contains("argument 2 of `_;_` has the wrong sort: expected `Rows`, found `NzNat`"),
        "{e}"
    );
}

#[test]
fn a_long_list_nests_to_the_right_in_the_chain_parser_too() {
    big_stack(long_lists);
}

fn long_lists() {
    let mut s = lists_module();
    // From 16 tokens on, chains are read by `chain.rs`, which combines from the left and,
    // when that is not well sorted, from the right: the chart parser's reading.
    for n in [7, 8, 20, 3000] {
        let items: Vec<String> = (0..n).map(|k| k.to_string()).collect();
        let text = items.join(" ; ") + " ; nil";
        let pat = try_term(&mut s, "L", &text).unwrap_or_else(|e| panic!("{n}: {e}"));
        // The same as the list written with every parenthesis.
        let nested = items
            .iter()
            .rev()
            .fold("nil".to_string(), |rest, x| format!("({x} ; {rest})"));
        assert_eq!(pat, try_term(&mut s, "L", &nested).unwrap(), "{n}");
        // Walk the spine: n conses, the elements in order.
        let mut at = &pat;
        for k in 0..n {
            match at {
                Pat::App(_, args) if args.len() == 2 => {
                    assert_eq!(args[0], Pat::Int(k as i64), "{n}");
                    at = &args[1];
                }
                other => panic!("{n}, element {k}: {other:?}"),
            }
        }
        assert!(matches!(at, Pat::App(_, args) if args.is_empty()), "{n}");
    }
    // A prefix application around a chain past the 4,000-token limit of other terms.
    let items: Vec<String> = (0..3000).map(|k| k.to_string()).collect();
    let text = format!("len({} ; nil)", items.join(" ; "));
    assert!(try_term(&mut s, "L", &text).is_ok());
    // A long left-nestable chain is still read to the left.
    let chain = vec!["1"; 40].join(" ~ ");
    match try_term(&mut s, "L", &chain).unwrap() {
        Pat::App(_, args) => assert_eq!(args[1], Pat::Int(1)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_peano_module_without_int_reads_its_own_zero_and_successor() {
    // Maude's manual style: a module of its own `Nat` with `0` and `s_`, importing no
    // INT. The numeral `0` is the module's constant there (it was the built-in integer,
    // of the prelude's `Nat`: "expected `Nat`, found `Nat`"), and a unary open operator
    // has Maude's default precedence 15, so `s s 0 + s 0` is `(s s 0) + (s 0)`.
    let mut s = load(
        "fmod PEANO is\n  sort Nat .\n  op 0 : -> Nat [ctor] .\n  op s_ : Nat -> Nat [ctor] .\n\
         \x20 op _+_ : Nat Nat -> Nat .\n  vars N M : Nat .\n  eq N + 0 = N .\n\
         \x20 eq N + s M = s (N + M) .\nendfm\n\
         fmod BOTH is\n  protecting INT .\n  sort Peano .\n  op 0 : -> Peano [ctor] .\n\
         \x20 op s_ : Peano -> Peano [ctor] .\nendfm",
    );
    assert_eq!(term(&mut s, "PEANO", "s s 0 + s 0"), "((s (s 0)) + (s 0))");
    match try_term(&mut s, "PEANO", "0").unwrap() {
        Pat::App(_, args) => assert!(args.is_empty()),
        other => panic!("the module's constant, not {other:?}"),
    }
    // With INT imported too, both readings exist and the context chooses.
    assert_eq!(term(&mut s, "BOTH", "s s 0"), "(s (s 0))");
    assert!(matches!(
        try_term(&mut s, "BOTH", "s 0"),
        Ok(Pat::App(_, _))
    ));
    assert_eq!(
        try_term(&mut s, "BOTH", "0 + 1")
            .map(|p| matches!(p, Pat::App(_, ref a) if a[0] == Pat::Int(0))),
        Ok(true)
    );
    let e = try_term(&mut s, "BOTH", "0").unwrap_err();
    assert!(e.contains("ambiguous term: 2 readings"), "{e}");
}

#[test]
fn a_program_may_declare_again_a_view_the_prelude_has() {
    // Older Maude programs declare `view Int from TRIV to INT` themselves; Maude's prelude
    // now has it, and so does gamelang's: the same view again is the prelude's.
    let mut s = load(
        "fmod MYLIST{X :: TRIV} is\n  protecting INT .\n  sort List{X} .\n  subsort X$Elt < List{X} .\n\
         \x20 op nil : -> List{X} [ctor] .\n  op __ : List{X} List{X} -> List{X} [ctor assoc id: nil] .\n\
         endfm\n\
         view Int from TRIV to INT is\n  sort   Elt to Int .\nendv\n\
         view Nat from TRIV to NAT is\n  sort Elt to Nat .\nendv\n\
         fmod TEST is\n  protecting MYLIST{Int} .\nendfm\n\
         fmod TEST2 is\n  protecting MYLIST{Nat} .\nendfm\n",
    );
    assert_eq!(term(&mut s, "TEST", "1 2 3"), "__(1, 2, 3)");
    assert_eq!(term(&mut s, "TEST2", "1 2 3"), "__(1, 2, 3)");
    // A different view of that name is an error, which says where the first one is.
    let (d, text, s) = load_err("view Int from TRIV to BOOL is\n  sort Elt to Bool .\nendv\n");
    assert_eq!(d.message, "view `Int` is declared twice");
    assert_eq!(span_text(&s, &d), "Int");
    assert!(
        text.contains("the standard library declares the view `Int`"),
        "{text}"
    );
}
