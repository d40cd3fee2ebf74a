//! Every kind of error in a BDDL file: its message, and the file, line, column and text
//! its primary span points at.

mod common;

use common::{parse_texts, OCCUPY, TIC};

/// One error as a user sees it.
#[derive(Debug)]
struct Seen {
    message: String,
    file: String,
    line: usize,
    col: usize,
    /// The text under the primary span, and its label.
    text: String,
    label: String,
    notes: Vec<String>,
    /// (file, line) of the secondary labels.
    secondary: Vec<(String, usize)>,
}

fn errors(domain: &str, problem: &str) -> Vec<Seen> {
    let (sources, result) = parse_texts(domain, problem);
    let Err(diags) = result else {
        panic!("expected an error:\n--- domain\n{domain}--- problem\n{problem}");
    };
    diags
        .iter()
        .map(|d| {
            let span = d.span().expect("every error has a place");
            let (line, col) = sources.line_col(span.file, span.start);
            // Rendering must work too (codespan checks the spans).
            assert!(d.render(&sources, false).contains(&d.message));
            Seen {
                message: d.message.clone(),
                file: sources.name(span.file).to_string(),
                line,
                col,
                text: sources.snippet(span).to_string(),
                label: d
                    .labels
                    .iter()
                    .find(|l| l.primary)
                    .map(|l| l.message.clone())
                    .unwrap_or_default(),
                notes: d.notes.clone(),
                secondary: d
                    .labels
                    .iter()
                    .filter(|l| !l.primary)
                    .map(|l| {
                        (
                            sources.name(l.span.file).to_string(),
                            sources.line_col(l.span.file, l.span.start).0,
                        )
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The only error, which must say `message` (a fragment) at file:line:col over `text`.
#[track_caller]
fn expect(
    domain: &str,
    problem: &str,
    message: &str,
    file: &str,
    line: usize,
    col: usize,
    text: &str,
) -> Seen {
    let mut all = errors(domain, problem);
    assert_eq!(all.len(), 1, "one error expected, got {all:#?}");
    let e = all.remove(0);
    assert!(
        e.message.contains(message),
        "message {:?} should contain {message:?}",
        e.message
    );
    assert_eq!(
        (e.file.as_str(), e.line, e.col, e.text.as_str()),
        (file, line, col, text),
        "{e:#?}"
    );
    e
}

/// A domain with one Black action whose precondition is `pre` and effect `eff` (line 4 and
/// 5 of the file).
fn action(pre: &str, eff: &str) -> String {
    format!("#blackactions\n:action a\n:parameters (?x, ?y)\n:precondition ({pre})\n:effect ({eff})\n#whiteactions\n")
}

/// A problem with the given Black goal line (line 7).
fn goal(line: &str) -> String {
    format!("#boardsize\n3 3\n#init\n#depth\n9\n#blackgoal\n{line}\n#whitegoal\n")
}

#[test]
fn unknown_predicate() {
    let e = expect(
        &action("red(?x,?y)", "black(?x,?y)"),
        TIC,
        "unknown predicate `red`",
        "domain.ig",
        4,
        16,
        "red",
    );
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("`black`, `white` and `open`")));
    let e = expect(
        OCCUPY,
        &goal("black(?x,?y) blak(?x+1,?y)"),
        "unknown predicate `blak`",
        "problem.ig",
        7,
        14,
        "blak",
    );
    assert!(
        e.notes.iter().any(|n| n.contains("did you mean `black`?")),
        "{e:#?}"
    );
    let e = expect(
        &action("not(open(?x,?y))", "black(?x,?y)"),
        TIC,
        "unknown predicate `not`",
        "domain.ig",
        4,
        16,
        "not",
    );
    assert!(e.notes.iter().any(|n| n.contains("`NOT`")), "{e:#?}");
}

#[test]
fn malformed_coordinates() {
    for (coord, why) in [
        ("?z", "not a coordinate"),
        ("?x*2", "an offset is `+k` or `-k`"),
        ("?x+", "a number must follow the sign"),
        ("?x+1.5", "an offset is a whole number"),
        ("1.5", "not a coordinate"),
        ("x", "not a coordinate"),
        ("?X", "not a coordinate"),
        ("99999999999999999999", "too large"),
    ] {
        let e = expect(
            &action(&format!("open({coord},?y)"), "black(?x,?y)"),
            TIC,
            &format!("malformed coordinate `{coord}`"),
            "domain.ig",
            4,
            21,
            coord,
        );
        assert!(e.notes.iter().any(|n| n.contains("`?x+k`")), "{e:#?}");
        assert!(
            e.label.contains(why),
            "label {:?} should say {why:?}",
            e.label
        );
    }
    // In a goal, for a row.
    expect(
        OCCUPY,
        &goal("black(?x,?y+)"),
        "malformed coordinate `?y+`",
        "problem.ig",
        7,
        10,
        "?y+",
    );
    // An offset too large for any board.
    expect(
        OCCUPY,
        &goal("black(?x+2000000,?y)"),
        "offset too large",
        "problem.ig",
        7,
        7,
        "?x+2000000",
    );
    // A coordinate missing, or three of them.
    expect(
        OCCUPY,
        &goal("black(,?y)"),
        "missing x-coordinate",
        "problem.ig",
        7,
        7,
        ",",
    );
    expect(
        OCCUPY,
        &goal("black(?x)"),
        "two coordinates",
        "problem.ig",
        7,
        9,
        ")",
    );
    expect(
        OCCUPY,
        &goal("black(?x,?y,1)"),
        "not more",
        "problem.ig",
        7,
        12,
        ",",
    );
    expect(
        OCCUPY,
        &goal("black ?x ?y"),
        "expected an atom",
        "problem.ig",
        7,
        1,
        "black",
    );
}

#[test]
fn coordinates_of_the_wrong_axis() {
    let e = expect(
        &action("open(?y,?y)", "black(?x,?y)"),
        TIC,
        "`?y` is a y-coordinate",
        "domain.ig",
        4,
        21,
        "?y",
    );
    assert!(
        e.message.contains("in the place of an x-coordinate"),
        "{e:#?}"
    );
    expect(
        &action("open(?x,?x+1)", "black(?x,?y)"),
        TIC,
        "`?x+1` is an x-coordinate",
        "domain.ig",
        4,
        24,
        "?x+1",
    );
    expect(
        OCCUPY,
        &goal("black(ymin,?y)"),
        "`ymin` is a y-coordinate",
        "problem.ig",
        7,
        7,
        "ymin",
    );
    expect(
        OCCUPY,
        &goal("black(?x,xmax)"),
        "in the place of a y-coordinate",
        "problem.ig",
        7,
        10,
        "xmax",
    );
}

#[test]
fn absolute_coordinates_outside_the_board() {
    // A goal.
    let e = expect(
        OCCUPY,
        &goal("black(?x,?y) black(4,1)"),
        "a goal of Black refers to column 4, outside the 3x3 board",
        "problem.ig",
        7,
        20,
        "4",
    );
    assert_eq!(
        e.secondary,
        [("problem.ig".to_string(), 2)],
        "the board size is shown"
    );
    expect(
        OCCUPY,
        &goal("black(1,0)"),
        "row 0, outside",
        "problem.ig",
        7,
        9,
        "0",
    );
    expect(
        OCCUPY,
        &goal("black(-1,1)"),
        "column -1, outside",
        "problem.ig",
        7,
        7,
        "-1",
    );
    // An initial cell.
    expect(
        OCCUPY,
        "#boardsize\n3 2\n#init\nblack(1,1) white(2,3)\n#depth\n1\n#blackgoal\n",
        "an initial cell refers to row 3, outside the 3x2 board",
        "problem.ig",
        4,
        20,
        "3",
    );
    // An action's atom (the domain knows no board size; the check waits for the problem).
    expect(
        &action("open(?x,?y) NOT(black(5,ymax))", "black(?x,?y)"),
        TIC,
        "action `a` of Black refers to column 5",
        "domain.ig",
        4,
        38,
        "5",
    );
    // Every one is reported.
    let all = errors(OCCUPY, &goal("black(4,4) black(0,1)"));
    assert_eq!(all.len(), 3, "{all:#?}");
}

#[test]
fn initial_cells() {
    let e = expect(
        OCCUPY,
        "#boardsize\n3 3\n#init\nblack(1,1) white(2,2) white(1,1)\n#depth\n1\n#blackgoal\n",
        "the initial cell (1,1) is given twice",
        "problem.ig",
        4,
        23,
        "white(1,1)",
    );
    assert_eq!(e.secondary, [("problem.ig".to_string(), 4)]);
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#init\nopen(1,1)\n#depth\n1\n#blackgoal\n",
        "`open` in `#init`",
        "problem.ig",
        4,
        1,
        "open(1,1)",
    );
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#init\nNOT(black(1,1))\n#depth\n1\n#blackgoal\n",
        "`NOT` in `#init`",
        "problem.ig",
        4,
        1,
        "NOT(black(1,1))",
    );
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#init\nblack(1,?y)\n#depth\n1\n#blackgoal\n",
        "given by numbers",
        "problem.ig",
        4,
        9,
        "?y",
    );
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#init\nblack(1,1)\nwhite(2,2)\n#depth\n1\n#blackgoal\n",
        "on one line",
        "problem.ig",
        5,
        1,
        "white",
    );
}

#[test]
fn not_in_an_effect() {
    let e = expect(
        &action("open(?x,?y)", "black(?x,?y) NOT(white(?x,?y))"),
        TIC,
        "`NOT` in the effect of action `a`",
        "domain.ig",
        5,
        23,
        "NOT(white(?x,?y))",
    );
    assert!(e.notes.iter().any(|n| n.contains("open(..)")));
    expect(
        &action("NOT(NOT(open(?x,?y)))", "black(?x,?y)"),
        TIC,
        "not to another `NOT`",
        "domain.ig",
        4,
        20,
        "NOT",
    );
    expect(
        &action("NOT(open(?x,?y) open(?x,?y))", "black(?x,?y)"),
        TIC,
        "exactly one atom",
        "domain.ig",
        4,
        32,
        "open",
    );
}

#[test]
fn depth() {
    let problem = |d: &str| format!("#boardsize\n3 3\n#depth\n{d}\n#blackgoal\n");
    for bad in ["0", "-3", "nine", "3.5", "99999999999"] {
        expect(
            OCCUPY,
            &problem(bad),
            &format!("`#depth` must be a positive integer, not `{bad}`"),
            "problem.ig",
            4,
            1,
            bad,
        );
    }
    expect(
        OCCUPY,
        &problem("3 4"),
        "unexpected `4` in `#depth`",
        "problem.ig",
        4,
        3,
        "4",
    );
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#depth\n#blackgoal\n",
        "`#depth` needs a number",
        "problem.ig",
        3,
        1,
        "#depth",
    );
}

#[test]
fn board_size() {
    let problem = |s: &str| format!("#boardsize\n{s}\n#depth\n1\n#blackgoal\n");
    expect(
        OCCUPY,
        &problem("3x3"),
        "`3x3` is not a number",
        "problem.ig",
        2,
        1,
        "3x3",
    );
    expect(
        OCCUPY,
        &problem("3 three"),
        "`three` is not a number",
        "problem.ig",
        2,
        3,
        "three",
    );
    expect(
        OCCUPY,
        &problem("3"),
        "needs two numbers",
        "problem.ig",
        1,
        1,
        "#boardsize",
    );
    expect(
        OCCUPY,
        &problem(""),
        "needs two numbers",
        "problem.ig",
        1,
        1,
        "#boardsize",
    );
    expect(
        OCCUPY,
        &problem("3 3 3"),
        "unexpected `3` in `#boardsize`",
        "problem.ig",
        2,
        5,
        "3",
    );
    expect(
        OCCUPY,
        &problem("0 3"),
        "between 1 and 64, not 0",
        "problem.ig",
        2,
        1,
        "0",
    );
    expect(
        OCCUPY,
        &problem("3 65"),
        "between 1 and 64, not 65",
        "problem.ig",
        2,
        3,
        "65",
    );
    expect(
        OCCUPY,
        &problem("-2 3"),
        "between 1 and 64, not -2",
        "problem.ig",
        2,
        1,
        "-2",
    );
}

#[test]
fn black_turn() {
    let problem = "#boardsize\n3 3\n#depth\n1\n#blackgoal\n#blackturn\nlast\n";
    expect(
        OCCUPY,
        problem,
        "`first` or `second`, not `last`",
        "problem.ig",
        7,
        1,
        "last",
    );
    expect(
        OCCUPY,
        "#boardsize\n3 3\n#depth\n1\n#blackgoal\n#blackturn\n",
        "needs `first` or `second`",
        "problem.ig",
        6,
        1,
        "#blackturn",
    );
}

#[test]
fn missing_sections() {
    // The span is at the end of the file's text; a note names the section.
    for (kind, domain) in [
        ("#blackactions", "#whiteactions\n"),
        ("#whiteactions", "%only black\n#blackactions\n\n\n"),
    ] {
        let e = expect(
            domain,
            TIC,
            &format!("the domain file has no `{kind}` section"),
            "domain.ig",
            if kind == "#blackactions" { 1 } else { 2 },
            14,
            "",
        );
        assert!(
            e.notes
                .iter()
                .any(|n| n.contains(&format!("`{kind}` is required"))),
            "{e:#?}"
        );
    }
    let full = "#boardsize\n3 3\n#depth\n9\n#blackgoal\nblack(1,1)\n";
    for kind in ["#boardsize", "#depth", "#blackgoal"] {
        // Drop the section and its line.
        let mut lines: Vec<&str> = full.lines().collect();
        let k = lines.iter().position(|l| *l == kind).expect("the section");
        lines.drain(k..k + 2);
        let problem = lines.join("\n");
        let last = lines.len();
        let col = lines.last().map_or(0, |l| l.len()) + 1;
        let e = expect(
            OCCUPY,
            &problem,
            &format!("the problem file has no `{kind}` section"),
            "problem.ig",
            last,
            col,
            "",
        );
        assert!(
            e.notes
                .iter()
                .any(|n| n.contains(&format!("`{kind}` is required"))),
            "{e:#?}"
        );
    }
    // An empty file: everything is missing, at the start.
    let all = errors("", "");
    assert_eq!(all.len(), 5, "{all:#?}");
    assert!(all.iter().all(|e| (e.line, e.col) == (1, 1)));
}

#[test]
fn actions_out_of_order() {
    let head = "#blackactions\n:action a\n";
    let params = ":parameters (?x, ?y)\n";
    let pre = ":precondition (open(?x,?y))\n";
    let eff = ":effect (black(?x,?y))\n";
    let tail = "#whiteactions\n";
    // No parameters.
    let e = expect(
        &format!("{head}{pre}{eff}{tail}"),
        TIC,
        "expected `:parameters` in action `a`, found `:precondition`",
        "domain.ig",
        3,
        1,
        ":precondition",
    );
    assert!(e.notes.iter().any(|n| n.contains("four lines")));
    // Effect before precondition.
    expect(
        &format!("{head}{params}{eff}{pre}{tail}"),
        TIC,
        "expected `:precondition` in action `a`, found `:effect`",
        "domain.ig",
        4,
        1,
        ":effect",
    );
    // The section ends before the effect.
    expect(
        &format!("{head}{params}{pre}{tail}"),
        TIC,
        "expected `:effect` in action `a`, `#blackactions` ends here",
        "domain.ig",
        1,
        1,
        "#blackactions",
    );
    // A precondition with nothing after it.
    expect(
        &format!("{head}{params}:precondition\n{eff}{tail}"),
        TIC,
        "the precondition of action `a` is missing",
        "domain.ig",
        4,
        1,
        ":precondition",
    );
    // A part before `:action`.
    expect(
        &format!("#blackactions\n{params}{tail}"),
        TIC,
        "`:parameters` before `:action`",
        "domain.ig",
        2,
        1,
        ":parameters",
    );
    // Atoms where an action should start.
    expect(
        &format!("#blackactions\nopen(?x,?y)\n{tail}"),
        TIC,
        "expected `:action NAME`, found `open`",
        "domain.ig",
        2,
        1,
        "open",
    );
    // No name, a name of two words, a name that is not a word.
    expect(
        &format!("#blackactions\n:action\n{params}{pre}{eff}{tail}"),
        TIC,
        "`:action` needs a name",
        "domain.ig",
        2,
        1,
        ":action",
    );
    expect(
        &format!("#blackactions\n:action go left\n{params}{pre}{eff}{tail}"),
        TIC,
        "unexpected `left` after the name of action `go`",
        "domain.ig",
        2,
        12,
        "left",
    );
    expect(
        &format!("#blackactions\n:action go!\n{params}{pre}{eff}{tail}"),
        TIC,
        "`go!` is not an action name",
        "domain.ig",
        2,
        9,
        "go!",
    );
    // Other parameters.
    expect(
        &format!("{head}:parameters (?a, ?b)\n{pre}{eff}{tail}"),
        TIC,
        "must be `(?x, ?y)`",
        "domain.ig",
        3,
        14,
        "?a",
    );
    expect(
        &format!("{head}:parameters\n{pre}{eff}{tail}"),
        TIC,
        "must be `(?x, ?y)`",
        "domain.ig",
        4,
        1,
        ":precondition",
    );
    // An unknown keyword, with a suggestion.
    let e = expect(
        &format!("{head}{params}:precondtion (open(?x,?y))\n{eff}{tail}"),
        TIC,
        "unknown keyword `:precondtion`",
        "domain.ig",
        4,
        1,
        ":precondtion",
    );
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("did you mean `:precondition`?")),
        "{e:#?}"
    );
    // Something after a condition on its line.
    expect(
        &format!("{head}{params}:precondition (open(?x,?y)) extra\n{eff}{tail}"),
        TIC,
        "expected an atom such as `black(?x,?y)`, found `extra`",
        "domain.ig",
        4,
        29,
        "extra",
    );
}

#[test]
fn unknown_sections() {
    let e = expect(
        OCCUPY,
        &TIC.replace("#blackgoal", "#blackgoel"),
        "unknown section `#blackgoel`",
        "problem.ig",
        6,
        1,
        "#blackgoel",
    );
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("did you mean `#blackgoal`")),
        "{e:#?}"
    );
    let e = expect(
        OCCUPY,
        &TIC.replace("#depth", "#Depth"),
        "unknown section `#Depth`",
        "problem.ig",
        4,
        1,
        "#Depth",
    );
    assert!(
        e.notes.iter().any(|n| n.contains("did you mean `#depth`?")),
        "{e:#?}"
    );
    let e = expect(
        &OCCUPY.replace("#whiteactions", "#whiteaction"),
        TIC,
        "unknown section `#whiteaction`",
        "domain.ig",
        6,
        1,
        "#whiteaction",
    );
    assert!(
        e.notes.iter().any(|n| n.contains("`#whiteactions`")),
        "{e:#?}"
    );
    let e = expect(
        OCCUPY,
        &format!("{TIC}#colours\nred\n"),
        "unknown section `#colours`",
        "problem.ig",
        10,
        1,
        "#colours",
    );
    assert!(
        !e.notes.iter().any(|n| n.contains("did you mean")),
        "{e:#?}"
    );
    expect(
        OCCUPY,
        &format!("{TIC}#invariant\n"),
        "`#invariant` is not supported",
        "problem.ig",
        10,
        1,
        "#invariant",
    );
    // A section of the other file, a section twice, text before the first section.
    let e = expect(
        &format!("{OCCUPY}#depth\n3\n"),
        TIC,
        "`#depth` belongs in the problem file, not the domain file",
        "domain.ig",
        11,
        1,
        "#depth",
    );
    assert!(e.notes.iter().any(|n| n.contains("the other way round")));
    expect(
        OCCUPY,
        &format!("{TIC}#blackactions\n"),
        "`#blackactions` belongs in the domain file",
        "problem.ig",
        10,
        1,
        "#blackactions",
    );
    let e = expect(
        OCCUPY,
        &format!("{TIC}#depth\n4\n"),
        "`#depth` is given twice",
        "problem.ig",
        10,
        1,
        "#depth",
    );
    assert_eq!(e.secondary, [("problem.ig".to_string(), 4)]);
    expect(
        OCCUPY,
        &format!("{TIC}#blackgoals\n"),
        "`#blackgoal` is given twice",
        "problem.ig",
        10,
        1,
        "#blackgoals",
    );
    expect(
        OCCUPY,
        &format!("3 3\n{TIC}"),
        "`3` before the first section of the problem file",
        "problem.ig",
        1,
        1,
        "3",
    );
}

#[test]
fn unbalanced_parentheses() {
    let e = expect(
        &action("open(?x,?y)", "black(?x,?y)").replace("(open(?x,?y))", "(open(?x,?y)"),
        TIC,
        "this `(` is never closed",
        "domain.ig",
        4,
        15,
        "(",
    );
    assert!(e.notes.iter().any(|n| n.contains("closed before")));
    expect(
        &action("open(?x,?y)", "black(?x,?y)").replace("(open(?x,?y))", "open(?x,?y))"),
        TIC,
        "this `)` closes nothing",
        "domain.ig",
        4,
        26,
        ")",
    );
    expect(
        OCCUPY,
        &goal("(black(?x,?y) black(?x+1,?y)"),
        "never closed",
        "problem.ig",
        7,
        1,
        "(",
    );
    expect(
        OCCUPY,
        &goal("black(?x,?y"),
        "never closed",
        "problem.ig",
        7,
        6,
        "(",
    );
    expect(
        OCCUPY,
        &goal("black(?x,?y))"),
        "closes nothing",
        "problem.ig",
        7,
        13,
        ")",
    );
    expect(
        OCCUPY,
        &goal("NOT(black(?x,?y)"),
        "never closed",
        "problem.ig",
        7,
        4,
        "(",
    );
    expect(
        OCCUPY,
        &goal(&"(".repeat(100)),
        "nested too deeply",
        "problem.ig",
        7,
        33,
        "(",
    );
    expect(
        OCCUPY,
        &goal("black(?x,?y), black(1,1)"),
        "unexpected `,` between atoms",
        "problem.ig",
        7,
        13,
        ",",
    );
    expect(
        OCCUPY,
        &goal("False black(1,1)"),
        "`False` stands alone",
        "problem.ig",
        7,
        7,
        "black",
    );
}

#[test]
fn errors_in_both_files_are_all_reported() {
    let all = errors(
        &action("red(?x,?y)", "black(?x,?y)"),
        &goal("black(?z,?y)").replace("9", "0"),
    );
    let found: Vec<(&str, usize)> = all.iter().map(|e| (e.file.as_str(), e.line)).collect();
    assert_eq!(
        found,
        [("domain.ig", 4), ("problem.ig", 5), ("problem.ig", 7)],
        "{all:#?}"
    );
}

#[test]
fn files_the_other_way_round_are_one_error() {
    let e = expect(
        TIC,
        OCCUPY,
        "the other way round",
        "domain.ig",
        1,
        1,
        "#boardsize",
    );
    assert!(e.notes.iter().any(|n| n.contains("first")));
    // A domain file that merely contains a problem section is not that.
    assert_eq!(errors(&format!("{OCCUPY}#depth\n3\n"), TIC).len(), 1);
}
