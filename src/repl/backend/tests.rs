use super::*;

fn backend() -> Backend {
    let mut b =
        Backend::new(Arc::new(AtomicBool::new(false)), Limits::default()).expect("stdlib loads");
    let heaps = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
    let r = b.load_startup(Path::new(heaps), true);
    assert!(r.parts.is_empty(), "{:?}", r.parts);
    b
}

#[test]
fn unfinished_is_decided_by_the_parsers() {
    let mut b = backend();
    for text in [
        "red next-heaps((2 5)",
        "red 1 +",
        "next-heaps(",
        "moves (2",
        "op f : Nat -> Nat",
        "eq f(1) = 2",
        "fmod A is\n  sort S .",
        "view V from GAME-TREE to A is",
    ] {
        assert!(b.unfinished(text), "{text:?} should ask for more");
    }
    for text in [
        "red next-heaps((2 5))",
        "red 1 + + 2",
        "w(R, (2 5))",
        "moves (2 5) --first B",
        "op f : Nat -> Nat .",
        "fmod A is sort S . endfm",
        "help",
        "load examples/heaps.game",
        "",
        "--- a comment",
    ] {
        assert!(!b.unfinished(text), "{text:?} should be complete");
    }
    // An option with no value is an error, not a continuation; the same goes for
    // an unknown command word that reads as an unknown operator.
    assert!(!b.unfinished("solve --first"));
}

#[test]
fn a_failed_input_changes_nothing() {
    let mut b = backend();
    // The first declaration is fine, the second is not: neither is kept.
    let r = b.execute("op aa : -> Nat .\nop bb : -> Nta .");
    assert!(r.stderr().contains("unknown sort `Nta`"), "{}", r.stderr());
    let r = b.execute("aa");
    assert!(
        r.stderr().contains("unknown operator or variable `aa`"),
        "{}",
        r.stderr()
    );
    // The session is whole: the game still solves, the current module is the same.
    let r = b.execute("solve");
    assert!(r.stdout().contains("winner: R (Rebecca)"), "{}", r.stderr());
    assert_eq!(b.prompt(), "WINS{HeapsGame}> ");
    assert!(b.failed);
    // A game being played goes on after a failed declaration.
    assert!(b.execute("play").stdout().contains("your move (R)"));
    assert!(b.execute("op cc : -> Nta .").stderr().contains("Nta"));
    assert_eq!(b.prompt(), "play heaps> ");
    let r = b.execute("4");
    assert!(
        r.stdout().contains("you (R) play (2 5) -> (2 3)"),
        "{:?}",
        r.parts
    );
}

#[test]
fn declarations_survive_a_reload() {
    let mut b = backend();
    let r = b.execute("op triple : Nat -> Nat .\neq triple(n:Nat) = 3 * n .");
    assert!(
        r.stdout().contains("1 operator, 1 equation"),
        "{:?}",
        r.parts
    );
    let r = b.execute("reload");
    assert!(r.stdout().contains("reloaded"), "{:?}", r.parts);
    let r = b.execute("triple(14)");
    assert_eq!(r.stdout().lines().next(), Some("result NzNat: 42"));
}

#[test]
fn select_and_vocabulary() {
    let mut b = backend();
    let v = b.vocabulary();
    for w in ["next-heaps", "w", "w-aux", "and-then", "if"] {
        assert!(v.words.iter().any(|x| x == w), "{w} in {:?}", v.words);
    }
    assert!(
        v.sorts.iter().any(|s| s == "Set{TwoHeaps}"),
        "{:?}",
        v.sorts
    );
    assert!(v.modules.iter().any(|m| m == "heaps"), "{:?}", v.modules);
    assert!(!v.modules.iter().any(|m| m == "WINS{X}"), "{:?}", v.modules);
    let r = b.execute("select TWO-HEAPS");
    assert_eq!(r.stdout(), "current module: TWO-HEAPS\n");
    assert_eq!(b.prompt(), "TWO-HEAPS> ");
    assert!(!b.vocabulary().words.iter().any(|w| w == "next-heaps"));
    let r = b.execute("select heaps");
    assert!(r.stdout().contains("current game: heaps"), "{}", r.stdout());
    let r = b.execute("select NOPE");
    assert!(
        r.stderr().contains("no module or game `NOPE`"),
        "{}",
        r.stderr()
    );
    // A parameterised module (the standard library's WINS) is said to be one.
    let r = b.execute("select WINS");
    assert!(
        r.stderr()
            .contains("module `WINS{X :: GAME-TREE}` is parameterised"),
        "{}",
        r.stderr()
    );
}

#[test]
fn ops_and_sorts_listings() {
    let mut b = backend();
    let out = b.execute("show ops HEAPS-GAME").stdout();
    assert!(
        out.starts_with("operators of HEAPS-GAME:\n  --- from HEAPS-GAME\n"),
        "{out}"
    );
    assert!(
        out.contains("  op next-heaps : TwoHeaps -> Set{TwoHeaps} .\n"),
        "{out}"
    );
    assert!(
        out.contains("op (__) : Nat Nat -> TwoHeaps [ctor] ."),
        "{out}"
    );
    let out = b.execute("show ops").stdout();
    assert!(
        out.contains("parameter operators, mapped to terms by a view"),
        "{out}"
    );
    assert!(
        out.contains("op next-config : Players TwoHeaps -> Set{TwoHeaps} ."),
        "{out}"
    );
    let out = b.execute("show sorts").stdout();
    assert!(
        out.contains("  TwoHeaps < Set{TwoHeaps}   (also written Config, X$Config)\n"),
        "{out}"
    );
    assert!(out.contains("  Nat < Int\n"), "{out}");
}

#[test]
fn settings() {
    let mut b = backend();
    assert_eq!(
        b.execute("set max-steps 1_000").stdout(),
        "max-steps 1000\n"
    );
    assert!(b
        .execute("set")
        .stdout()
        .starts_with("max-steps 1000\nmax-nesting "));
    assert!(b
        .execute("set max-steps lots")
        .stderr()
        .contains("`lots` is not a number"));
    assert!(b
        .execute("set colour on")
        .stderr()
        .contains("cannot set `colour on`"));
    let r = b.execute("quit now");
    assert!(!r.quit);
    assert!(b.execute("quit").quit);
}

/// A file with a chance game only: `show modules` lists it, `select` names it, and
/// `moves`, a two-player command, says that it is a chance game and what works on it (it
/// said "no game is loaded"). `solve` and `value` work on it (tests/chance.rs).
#[test]
fn a_chance_game_is_known_for_what_it_is() {
    let mut b =
        Backend::new(Arc::new(AtomicBool::new(false)), Limits::default()).expect("stdlib loads");
    let pig = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pig.game");
    let r = b.load_startup(Path::new(pig), true);
    assert!(r.parts.is_empty(), "{:?}", r.parts);
    let out = b.execute("show modules").stdout();
    assert!(
        out.contains("chance games") && out.contains("pig "),
        "{out}"
    );
    let err = b.execute("moves").stderr();
    assert!(
        err.contains("`pig` is a chance game") && err.contains("`solve` and `value` solve it"),
        "{err}"
    );
    // A chance game's state has no player apart: `--first` is refused where it is.
    let err = b.execute("solve --first p2").stderr();
    assert!(
        err.contains("`--first` is for two-player games without chance")
            && err.contains("solve --first p2\n  │               ^^ not for a chance game"),
        "{err}"
    );
    let out = b.execute("select pig").stdout();
    assert!(out.contains("current game: pig (a chance game)"), "{out}");
    // `--game` knows the chance games: named, it is one; unknown, they are listed. (They
    // said "no game `pig` is loaded" and "no games are loaded".)
    let err = b.execute("moves --game pig").stderr();
    assert!(err.contains("`pig` is a chance game"), "{err}");
    let err = b.execute("solve --game pg").stderr();
    assert!(
        err.contains("did you mean `pig`?") && err.contains("loaded games: pig"),
        "{err}"
    );
}

/// A parameterised module of the user's is listed by `show modules` with its header (it
/// was left out, and `select` said it was not loaded); the standard library's are not.
#[test]
fn show_modules_lists_a_parameterised_module_by_its_header() {
    let mut b =
        Backend::new(Arc::new(AtomicBool::new(false)), Limits::default()).expect("stdlib loads");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("box.maude");
    std::fs::write(
        &file,
        "fmod BOX{X :: TRIV} is\n  sort Box{X} .\n  op box : X$Elt -> Box{X} [ctor] .\nendfm\n",
    )
    .unwrap();
    let r = b.load_startup(&file, true);
    assert!(r.parts.is_empty(), "{:?}", r.parts);
    let out = b.execute("show modules").stdout();
    assert!(
        out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>()
            == [
                "fmod",
                "BOX{X",
                "::",
                "TRIV}",
                &format!("{}:1", file.display())
            ]),
        "{out}"
    );
    assert!(!out.contains("WINS"), "{out}");
    let err = b.execute("select BOX").stderr();
    assert!(
        err.contains("module `BOX{X :: TRIV}` is parameterised"),
        "{err}"
    );
}
