//! A module's equations apply where it is imported, not everywhere (as in Maude): two
//! modules that each give an operator of a shared base module equations of their own
//! (`including BASE`) do not see each other's, and the base sees neither. gamelang holds
//! every module's equations in one program; each command runs on the program as its
//! module (or its game's modules) sees it (`Session::program_for`). Before, the variant
//! of a game written second also got the first variant's moves, and `solve` named the
//! wrong winner.

mod support;
use std::process::Output;

/// `gamelang ARGS…`, with `input` on its standard input if given.
fn gamelang(args: &[&str], input: Option<&str>) -> Output {
    match input {
        Some(text) => support::cli::gamelang_with_input(args, text),
        None => support::cli::gamelang(args),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `result SORT: VALUE` lines' values.
fn results(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("result "))
        .map(|l| l.split_once(": ").expect("sort: value").1.to_string())
        .collect()
}

const SIBLINGS: &str = "fmod BASE is
  protecting INT .
  sort S .
  ops a b : -> S [ctor] .
  op g : S -> Int .
  eq g(a) = 1 .
endfm
fmod EXT1 is
  including BASE .
  eq g(b) = 2 .
endfm
fmod EXT2 is
  including BASE .
  eq g(b) = 3 .
endfm
fmod BOTH is
  including EXT1 .
  op h : S -> Int .
  eq h(X:S) = g(X) + 10 .
endfm
";

#[test]
fn reductions_see_the_equations_of_their_module_and_its_imports_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("siblings.maude");
    let body = format!(
        "{SIBLINGS}red in EXT1 : g(b) .\nred in EXT2 : g(b) .\nred in BASE : g(a) .\n\
         red in BOTH : h(b) .\nred in EXT2 : g(a) .\n"
    );
    std::fs::write(&file, &body).unwrap();
    let path = file.to_str().unwrap();
    let o = gamelang(&["reduce", path], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(results(&text(&o.stdout)), ["2", "3", "1", "12", "1"]);
    // A term given on the command line, in each module.
    for (module, want) in [("EXT1", "2"), ("EXT2", "3"), ("BOTH", "2")] {
        let o = gamelang(&["reduce", path, "--module", module, "g(b)"], None);
        assert!(o.status.success(), "{module}: {}", text(&o.stderr));
        assert_eq!(results(&text(&o.stdout)), [want], "{module}");
    }
    // BASE has no equation for g(b): neither sibling's applies there.
    let o = gamelang(&["reduce", path, "--module", "BASE", "g(b)"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("no equation of `g` applies to `g(b)`"),
        "{}",
        text(&o.stderr)
    );
    // The REPL, moving between the modules (and the engine between their programs).
    std::fs::write(&file, SIBLINGS).unwrap();
    let o = gamelang(
        &["repl", path],
        Some("select EXT1\nred g(b) .\nselect EXT2\nred g(b) .\nselect EXT1\nred g(b) .\n"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(results(&text(&o.stdout)), ["2", "3", "2"]);
}

/// Two subtraction games over one base module: `one` takes 1 token a move, `onetwo` 1 or
/// 2; the last to move wins.
const VARIANTS: &str = "fmod BASE is
  protecting PLAYERS .
  protecting INT .
  protecting SET{Nat} .
  ops halted won : Players Nat -> Bool .
  op next-config : Players Nat -> Set{Nat} .
  var p : Players . var n : Nat .
  eq halted(p, n) = n == 0 .
  eq won(p, n) = p == B .
  eq next-config(p, 1) = 0 .
endfm
fmod TAKE1 is
  including BASE .
  var p : Players . var n : Nat .
  ceq next-config(p, n) = n - 1 if n > 1 .
endfm
fmod TAKE12 is
  including BASE .
  var p : Players . var n : Nat .
  ceq next-config(p, n) = (n - 1), (n - 2) if n > 1 .
endfm
view T1 from GAME-TREE to TAKE1 is
  sort Config to Nat .
  sort SetConfig to Set{Nat} .
endv
view T12 from GAME-TREE to TAKE12 is
  sort Config to Nat .
  sort SetConfig to Set{Nat} .
endv
game one is
  instance WINS{T1} .
  start 3 .
endgame
game onetwo is
  instance WINS{T12} .
  start 3 .
endgame
";

/// Does the player to move win from `n` tokens, taking any of `takes` a move?
fn mover_wins(n: u64, takes: &[u64]) -> bool {
    let mut win = vec![false; n as usize + 1];
    for k in 1..=n as usize {
        win[k] = takes
            .iter()
            .any(|&t| t as usize <= k && !win[k - t as usize]);
    }
    win[n as usize]
}

#[test]
fn each_variant_of_a_game_is_solved_with_its_own_moves() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("variants.game");
    std::fs::write(&file, VARIANTS).unwrap();
    let path = file.to_str().unwrap();
    for (game, takes) in [("one", &[1][..]), ("onetwo", &[1, 2][..])] {
        for n in 1..=9u64 {
            let from = n.to_string();
            let o = gamelang(
                &["solve", path, "--game", game, "--from", &from, "--json"],
                None,
            );
            assert!(o.status.success(), "{game} {n}: {}", text(&o.stderr));
            let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let want = if mover_wins(n, takes) { "R" } else { "B" };
            assert_eq!(j["winner"], want, "{game} from {n}: {j}");
        }
        // A sweep of the same, on worker threads with programs of their own.
        let csv = dir.path().join(format!("{game}.csv"));
        let o = gamelang(
            &[
                "sweep",
                path,
                "--game",
                game,
                "--from",
                "n",
                "--range",
                "n=1..12",
                "--csv",
                csv.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success(), "{game}: {}", text(&o.stderr));
        let rows = std::fs::read_to_string(&csv).unwrap();
        let points = rows
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()));
        assert_eq!(points.clone().count(), 12, "{rows}");
        for line in points {
            let (n, winner) = line.split_once(',').unwrap();
            let n: u64 = n.parse().unwrap();
            let want = if mover_wins(n, takes) { "R" } else { "B" };
            assert_eq!(winner, want, "{game} sweep at {n}");
        }
    }
}
