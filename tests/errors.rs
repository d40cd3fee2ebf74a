//! Errors as the command line reports them (`src/failure.rs`): an error without a place in
//! a source file is `error[CODE]: message` with a `= help:` line, as codespan-reporting
//! writes the located ones; under `--json` every error, located or not, is one line of
//! JSON on standard error (`{"error": {code, message, help, notes, labels}}`), standard
//! output stays empty, and the exit status is the same as without `--json`.

mod support;
use std::path::Path;
use std::process::Output;
use support::cli::gamelang;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON error a failed `--json` run printed: standard error is lines of JSON (warnings
/// and exactly one error), standard output is empty.
fn json_error(o: &Output) -> serde_json::Value {
    let err = stderr(o);
    assert!(!o.status.success(), "{err}");
    assert!(
        o.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}\n{err}")))
        .collect();
    let errors: Vec<&serde_json::Value> = lines.iter().filter_map(|j| j.get("error")).collect();
    assert_eq!(errors.len(), 1, "one error:\n{err}");
    assert!(
        lines
            .iter()
            .all(|j| j.get("error").is_some() || j.get("warning").is_some()),
        "{err}"
    );
    errors[0].clone()
}

/// The first line and the help line of a text error.
fn text_error(o: &Output) -> (String, String) {
    let err = stderr(o);
    let mut lines = err.lines();
    let first = lines.next().unwrap_or_default().to_string();
    let help = err
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("= help: "))
        .unwrap_or_default()
        .to_string();
    (first, help)
}

#[test]
fn a_usage_error_has_its_code_and_help_as_text_and_as_json() {
    let (d, p) = support::cli::corpus_files("httt", "3x3_5_el.ig");
    let args = ["bddl", "solve", &d, &p, "--depth", "seven"];
    let o = gamelang(&args);
    assert_eq!(o.status.code(), Some(2));
    let (first, help) = text_error(&o);
    assert_eq!(
        first,
        "error[gamelang::usage]: --depth takes a number of plies or `auto`, not `seven`"
    );
    assert!(help.contains("--depth auto"), "{help}");

    let mut with_json = args.to_vec();
    with_json.push("--json");
    let o = gamelang(&with_json);
    assert_eq!(o.status.code(), Some(2), "the same exit status");
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::usage");
    assert_eq!(
        e["message"],
        "--depth takes a number of plies or `auto`, not `seven`"
    );
    assert_eq!(e["help"].as_str(), Some(help.as_str()));
    assert_eq!(e["labels"], serde_json::json!([]));
}

#[test]
fn arguments_clap_refuses_are_json_under_json() {
    let o = gamelang(&["solve", "examples/heaps.game", "--json", "--frist", "B"]);
    assert_eq!(o.status.code(), Some(2));
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::usage");
    assert!(e["message"].as_str().unwrap().contains("--frist"), "{e}");
    // Without --json, clap's own message and usage line.
    let o = gamelang(&["solve", "examples/heaps.game", "--frist", "B"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage:"), "{}", stderr(&o));
}

#[test]
fn a_file_that_cannot_be_read_is_an_io_error() {
    let o = gamelang(&["solve", "no/such/file.game"]);
    assert_eq!(o.status.code(), Some(1));
    let (first, _) = text_error(&o);
    assert!(
        first.starts_with("error[gamelang::io]: cannot read `no/such/file.game`"),
        "{first}"
    );
    let o = gamelang(&["solve", "no/such/file.game", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::io");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot read `no/such/file.game`"),
        "{e}"
    );
}

#[test]
fn a_solver_that_cannot_be_run_is_a_solver_error() {
    let (d, p) = support::cli::corpus_files("httt", "3x3_5_el.ig");
    let args = [
        "bddl",
        "solve",
        &d,
        &p,
        "--qbf",
        "--solver",
        "no-such-solver-xyz",
    ];
    let o = gamelang(&args);
    assert_eq!(o.status.code(), Some(1));
    let (first, help) = text_error(&o);
    assert!(first.starts_with("error[gamelang::solver]: "), "{first}");
    assert!(first.contains("apt-get install depqbf"), "{first}");
    assert!(help.contains("--solver"), "{help}");
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let e = json_error(&gamelang(&with_json));
    assert_eq!(e["code"], "gamelang::solver");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("no-such-solver-xyz"),
        "{e}"
    );
}

#[test]
fn a_resumed_csv_of_another_sweep_is_a_resume_error() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("h.csv");
    let csv = csv.to_str().unwrap();
    let sweep = |extra: &[&str]| {
        let mut args = vec![
            "sweep",
            "examples/heaps.game",
            "--from",
            "(k n)",
            "--range",
            "k=1..2",
            "--range",
            "n=1..2",
            "--no-boundaries",
        ];
        args.extend_from_slice(extra);
        gamelang(&args)
    };
    assert!(sweep(&["--csv", csv]).status.success());
    let o = sweep(&["--first", "B", "--resume", csv]);
    assert_eq!(o.status.code(), Some(2));
    let (first, help) = text_error(&o);
    assert!(first.starts_with("error[gamelang::resume]: "), "{first}");
    assert!(first.contains("the CSV of another sweep"), "{first}");
    assert!(help.contains("--csv"), "{help}");
}

#[test]
fn an_encoding_past_the_memory_budget_is_refused_before_it_is_built() {
    // A million plies of Domineering: tens of terabytes; refused at once, as text and
    // as JSON, without allocating (the run stays small: checked by its exit, not a clock).
    let args = [
        "lower",
        "examples/grid/domineering.game",
        "--to",
        "qdimacs",
        "--depth",
        "1000000",
    ];
    let o = gamelang(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let (first, help) = text_error(&o);
    assert!(
        first.starts_with(
            "error[gamelang::limit]: the QBF encoding at depth 1000000 would need about "
        ),
        "{first}"
    );
    assert!(first.contains("more than the memory budget of"), "{first}");
    assert!(help.contains("GAMELANG_MAX_MEMORY"), "{help}");
    // The same through `solve --qbf --json`, with a budget too small for depth 300 (about 7 MB).
    let o = support::cli::gamelang_env(
        &[
            "solve",
            "examples/grid/domineering.game",
            "--qbf",
            "--depth",
            "300",
            "--json",
        ],
        &[("GAMELANG_MAX_MEMORY", "1M")],
    );
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::limit");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("the QBF encoding at depth 300"),
        "{e}"
    );
}

#[test]
fn the_step_budget_is_a_limit_error_with_its_place() {
    let o = gamelang(&[
        "solve",
        "examples/heaps.game",
        "--from",
        "(30 29)",
        "--max-steps",
        "200",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::limit");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("gave up after 200 rewriting steps"),
        "{e}"
    );
}

#[test]
fn a_source_error_as_json_has_its_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.game");
    let text = "fmod T is\n  protecting INT .\n  op f : Nat -> Nta .\nendfm\n";
    std::fs::write(&path, text).unwrap();
    let shown = path.to_str().unwrap();
    // Where `Nta` is, counted here from the text.
    let at = text.find("Nta").unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').unwrap();
    let o = gamelang(&["solve", shown, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert_eq!(e["code"], "gamelang::program");
    assert_eq!(e["message"], "unknown sort `Nta`");
    let label = &e["labels"][0];
    assert_eq!(label["file"], shown);
    assert_eq!(label["line"].as_u64(), Some(line as u64));
    assert_eq!(label["column"].as_u64(), Some(column as u64));
    assert_eq!(label["end_column"].as_u64(), Some(column as u64 + 3));
    assert_eq!(label["primary"], true);
    let notes = e["notes"].to_string();
    assert!(notes.contains("did you mean `Nat`?"), "{notes}");
    // The same error as text is codespan's rendering, at the same place.
    let o = gamelang(&["solve", shown]);
    assert!(
        stderr(&o).contains(&format!("bad.game:{line}:{column}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_bad_term_on_the_command_line_as_json_is_located_in_it() {
    let o = gamelang(&[
        "solve",
        "examples/heaps.game",
        "--from",
        "(2 five)",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert_eq!(e["message"], "unknown operator or variable `five`");
    let label = &e["labels"][0];
    assert_eq!(label["file"], "--from");
    assert_eq!(
        (label["line"].as_u64(), label["column"].as_u64()),
        (Some(1), Some(4))
    );
    // A --set value of the wrong sort, likewise.
    let o = gamelang(&[
        "solve",
        "examples/colouring.game",
        "--set",
        "n=-1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert_eq!(e["labels"][0]["file"], "--set");
}

#[test]
fn a_chance_game_under_json_reports_errors_as_json() {
    // `simulate --json` of a file without a chance game.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let heaps = root.join("examples/heaps.game");
    let o = gamelang(&["simulate", heaps.to_str().unwrap(), "--random", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let e = json_error(&o);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("declares no chance game"),
        "{e}"
    );
}

#[test]
fn line_capture_is_refused_by_bddl_and_qbf_where_the_game_says_it() {
    // Othello as a grid game captures along lines and counts pieces: BDDL and the QBF
    // encoding cannot say either. Every route to them refuses, at the game's declaration.
    for args in [
        &[
            "lower",
            "examples/grid/othello.game",
            "--to",
            "bddl",
            "--out",
            "/tmp/agents-never",
        ][..],
        &["lower", "examples/grid/othello.game", "--to", "qdimacs"][..],
        &[
            "solve",
            "examples/grid/othello.game",
            "--qbf",
            "--depth",
            "3",
        ][..],
    ] {
        let o = gamelang(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains("captures along lines (`flanks`, `flip-lines`)"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("examples/grid/othello.game:31:3"),
            "{args:?}: {err}"
        );
    }
    assert!(!Path::new("/tmp/agents-never").exists());
}

/// Where the line `requires …` of `game` stands in `file` (1-based), for the located
/// errors below.
fn requires_line(file: &str, game: &str) -> usize {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let start = text
        .lines()
        .position(|l| l.starts_with(&format!("game {game} is")))
        .expect("the game");
    start
        + 1
        + text
            .lines()
            .skip(start)
            .position(|l| l.trim_start().starts_with("requires"))
            .expect("a requires field")
}

/// A game's `requires` refuses parameters it does not allow, wherever they are set: the
/// error is located at the condition, says the values, and exits 1; allowed values play.
#[test]
fn a_game_refuses_parameters_its_requires_does_not_allow() {
    let line = requires_line("examples/othello.game", "othello");
    let at = format!("examples/othello.game:{line}:12");
    for args in [
        &["solve", "examples/othello.game", "--set", "n=5"][..],
        &["solve", "examples/othello.game", "--set", "n=12"][..],
        &[
            "match",
            "examples/othello.game",
            "--set",
            "n=3",
            "--agents",
            "random,random",
            "--games",
            "1",
        ][..],
        &[
            "playout",
            "examples/othello.game",
            "--set",
            "n=0",
            "--seconds",
            "1",
        ][..],
    ] {
        let o = gamelang(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        let n = args.iter().find_map(|a| a.strip_prefix("n=")).unwrap();
        assert!(
            err.contains("game `othello` requires `n rem 2 == 0 and 2 <= n and n <= 10`, which does not hold")
                && err.contains(&at)
                && err.contains(&format!("with n = {n}")),
            "{args:?}: {err}"
        );
    }
    // Allowed: 6 x 6 within two plies.
    let o = gamelang(&[
        "solve",
        "examples/othello.game",
        "--set",
        "n=6",
        "--max-depth",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A chance game's too: Quoridor for three players is not a game the file defines.
    let line = requires_line("examples/quoridor.game", "quoridor-n");
    let o = gamelang(&[
        "simulate",
        "examples/quoridor.game",
        "--game",
        "quoridor-n",
        "--set",
        "players=3",
        "--random",
        "--games",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("requires `n >= 2 and (players == 2 or players == 4)`")
            && err.contains(&format!("examples/quoridor.game:{line}:12"))
            && err.contains("players = 3"),
        "{err}"
    );
    // The REPL refuses the value and keeps the old one.
    let o = support::cli::gamelang_with_input(
        &["repl", "examples/othello.game"],
        "set n 5\nreduce n\nset n 6\nreduce n\n",
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(out.contains("which does not hold"), "{out}");
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(results.len(), 2, "{out}");
    assert!(
        results[0].ends_with(": 4") && results[1].ends_with(": 6"),
        "{out}"
    );
}

/// `requires` must be a truth value, checked when the file is loaded.
#[test]
fn a_requirement_that_is_not_a_condition_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.game");
    let heaps =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/heaps.game"))
            .unwrap();
    std::fs::write(
        &file,
        heaps.replace("  first R .\n", "  first R .\n  requires 1 + 1 .\n"),
    )
    .unwrap();
    let o = gamelang(&["solve", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("expected a term of sort `Bool`, but this term has sort `Int`")
            && err.contains("g.game:60:12"),
        "{err}"
    );
}

/// An import cycle through several modules names them all, in the order they import each
/// other; it named only the module met again.
#[test]
fn an_import_cycle_names_the_modules_it_goes_through() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cycle.maude");
    std::fs::write(
        &file,
        "fmod A is\n  including B .\n  sort SA .\nendfm\nfmod B is\n  including C .\n  sort SB .\nendfm\n\
         fmod C is\n  including A .\n  sort SC .\nendfm\n",
    )
    .unwrap();
    let o = gamelang(&["reduce", file.to_str().unwrap(), "true"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("module `A` imports itself"), "{err}");
    assert!(err.contains("cycle.maude:10:13"), "{err}");
    assert!(err.contains("the imports go round: A → B → C → A"), "{err}");
}

/// `reduce --module P` of a parameterised module says what it is and what to name
/// instead; it said that no module `P` was loaded, which the file plainly declares.
#[test]
fn a_parameterised_module_named_by_module_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("box.maude");
    std::fs::write(
        &file,
        "fmod BOX{X :: TRIV} is\n  sort Box{X} .\n  op box : X$Elt -> Box{X} [ctor] .\nendfm\n",
    )
    .unwrap();
    let o = gamelang(&["reduce", file.to_str().unwrap(), "--module", "BOX", "true"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("module `BOX{X :: TRIV}` is parameterised"),
        "{err}"
    );
    assert!(err.contains("protecting BOX{…}"), "{err}");
    let o = gamelang(&["reduce", file.to_str().unwrap(), "--module", "NONE", "true"]);
    assert!(
        stderr(&o).contains("no module `NONE` is loaded"),
        "{}",
        stderr(&o)
    );
}
