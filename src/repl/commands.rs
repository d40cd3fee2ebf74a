//! The REPL's commands: names, usage and help text, and the parsing of their arguments.
//! One table drives dispatch, `help` and tab completion, so they cannot drift apart.

use std::ops::Range;

/// A command of the REPL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    Reduce,
    Moves,
    Solve,
    Value,
    Play,
    Undo,
    Hint,
    Stop,
    Load,
    Reload,
    Show,
    Select,
    Set,
    Help,
    Quit,
}

pub struct CommandInfo {
    pub cmd: Cmd,
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Arguments, as shown by `help`.
    pub args: &'static str,
    /// Options the command accepts (each takes one value).
    pub options: &'static [&'static str],
    /// One line for the `help` overview.
    pub summary: &'static str,
    /// More, for `help NAME`.
    pub details: &'static str,
}

/// Every command, in the order `help` lists them.
pub const COMMANDS: &[CommandInfo] = &[
    CommandInfo {
        cmd: Cmd::Reduce,
        name: "reduce",
        aliases: &["red"],
        args: "TERM",
        options: &[],
        summary: "the normal form of TERM, its sort, rewrites, time",
        details: "Rewrites TERM with the equations of the program until none applies and prints\n\
                  the normal form with its sort, the number of rewrites and the time taken.\n\
                  A line that is not a command is reduced too: `w(R, (2 5))` is `reduce w(R, (2 5))`.\n\
                  A term may run over several lines; a final ` .` is allowed, as in Maude.\n\
                  Ctrl-C stops a long reduction and returns to the prompt.",
    },
    CommandInfo {
        cmd: Cmd::Moves,
        name: "moves",
        aliases: &[],
        args: "[CONFIG]",
        options: &["--first", "--game"],
        summary: "the moves from CONFIG, numbered",
        details: "Lists the successor set of `next-config(P, CONFIG)` of the current game, one\n\
                  configuration per line. CONFIG defaults to the game's `start`, P (B or R) to\n\
                  its `first`.",
    },
    CommandInfo {
        cmd: Cmd::Solve,
        name: "solve",
        aliases: &[],
        args: "[CONFIG]",
        options: &["--first", "--game", "--max-depth"],
        summary: "who wins from CONFIG, a winning move, the principal line",
        details: "The same answer as `gamelang solve FILE --from CONFIG --first P`: the winner,\n\
                  a winning move when the player to move wins, the principal line, the\n\
                  positions evaluated and the time. Results are memoised for the session, so\n\
                  asking again (or playing) is fast. With `--max-depth D`: can the player to\n\
                  move force a win within D plies? On a chance game (`instance CHANCE{…}`),\n\
                  CONFIG is a state: each player's probability of winning under optimal play,\n\
                  as `gamelang solve FILE --game NAME --from STATE` gives it.",
    },
    CommandInfo {
        cmd: Cmd::Value,
        name: "value",
        aliases: &[],
        args: "[CONFIG]",
        options: &["--first", "--game"],
        summary: "the optimal score from CONFIG (games with a score)",
        details: "The same answer as `gamelang solve FILE --value`: the score under best play,\n\
                  B maximising and R minimising, for a game whose module defines `score`.\n\
                  On a chance game: each player's expected score under optimal play.",
    },
    CommandInfo {
        cmd: Cmd::Play,
        name: "play",
        aliases: &[],
        args: "[CONFIG]",
        options: &["--first", "--as", "--game", "--agent", "--seed"],
        summary: "play against gamelang, picking your moves by number",
        details: "Starts a game from CONFIG (default: the game's `start`) with P to move (default:\n\
                  the game's `first`). You play the side given by --as (default: the side that\n\
                  moves first); gamelang answers for the other side with a winning move where\n\
                  one exists (exhaustive search), or, with `--agent SPEC`, as that agent plays\n\
                  (e.g. `--agent mcts:1000`, `--agent alphabeta:3`; `gamelang agents` lists\n\
                  them; `--seed S` seeds its random choices). Type the number of a move to play\n\
                  it, `hint` for the move gamelang would play for you, `undo` to take back your\n\
                  last move, `stop` to leave the game. Other commands work meanwhile.",
    },
    CommandInfo {
        cmd: Cmd::Undo,
        name: "undo",
        aliases: &[],
        args: "",
        options: &[],
        summary: "take back your last move in the game being played",
        details: "Returns to the position where you last had to move.",
    },
    CommandInfo {
        cmd: Cmd::Hint,
        name: "hint",
        aliases: &[],
        args: "",
        options: &[],
        summary: "the move gamelang would play in your place in the game being played",
        details: "Against exhaustive search: a move that keeps your best outcome (a winning move\n\
                  when you can win). Against an agent (`play --agent SPEC`): the move that agent\n\
                  would choose, on a random stream of its own.",
    },
    CommandInfo {
        cmd: Cmd::Stop,
        name: "stop",
        aliases: &[],
        args: "",
        options: &[],
        summary: "leave the game being played",
        details: "Ends the game started with `play`.",
    },
    CommandInfo {
        cmd: Cmd::Load,
        name: "load",
        aliases: &[],
        args: "FILE",
        options: &[],
        summary: "load a .game file; its game becomes the current one",
        details: "Loads FILE in addition to what is loaded. Loading a file again re-reads it (as\n\
                  `reload` does). If FILE has errors, they are shown and nothing changes.\n\
                  The file's `reduce TERM .` commands (Maude's) are run in order; one that\n\
                  fails stops the rest, and the file stays loaded.",
    },
    CommandInfo {
        cmd: Cmd::Reload,
        name: "reload",
        aliases: &[],
        args: "",
        options: &[],
        summary: "read the loaded files again (memo tables are dropped)",
        details: "Re-reads every loaded file from disk and elaborates everything again, with the\n\
                  declarations typed at the prompt. If a file now has errors, they are shown\n\
                  and the previous version stays loaded.",
    },
    CommandInfo {
        cmd: Cmd::Show,
        name: "show",
        aliases: &[],
        args: "modules|sorts|ops [MODULE] | profile [json]",
        options: &[],
        summary: "what is loaded, the sorts or operators of a module, or the profile",
        details: "show modules: the loaded modules, theories, instances and games; the current\n\
                  ones are marked with `*`.\n\
                  show sorts [MODULE]: the sorts of the current module (or of MODULE), each\n\
                  followed by `< S` for the sorts above it.\n\
                  show ops [MODULE]: every operator visible in the module, as its `op`\n\
                  declaration, grouped by the module that declares it.\n\
                  show profile: what the rewrites since `set profile on` (or the last `show\n\
                  profile`) were, each equation's applications and each built-in's, most\n\
                  first, and the calls the call cache or a memo table answered; the counts\n\
                  then start again. Reloading starts them again too. `show profile json`\n\
                  prints them as one line of JSON (keys rewrites, equations, builtins,\n\
                  answered).",
    },
    CommandInfo {
        cmd: Cmd::Select,
        name: "select",
        aliases: &[],
        args: "MODULE | GAME",
        options: &[],
        summary: "make MODULE, or GAME and its instance, current",
        details: "Terms are parsed, and declarations typed at the prompt are added, in the\n\
                  current module. Selecting a game makes it the one `moves`, `solve` and `play`\n\
                  use, and its instance of WINS the current module.",
    },
    CommandInfo {
        cmd: Cmd::Set,
        name: "set",
        aliases: &[],
        args: "[SETTING N]",
        options: &[],
        summary: "show or change a limit (max-steps, max-nesting, print-limit), profiling or a game parameter",
        details: "max-steps: rewrites one command may take before it stops with an error\n\
                  (as `--max-steps`). max-nesting: pending nested reductions before it stops\n\
                  with a \"recursion too deep\" error. print-limit: cut a printed normal form\n\
                  with `…` after about N characters (0, the default: print it in full).\n\
                  profile on|off: count every rewrite by equation and built-in, for `show\n\
                  profile` (off by default: it makes rewriting slower).\n\
                  `set` alone shows them all.",
    },
    CommandInfo {
        cmd: Cmd::Help,
        name: "help",
        aliases: &["?"],
        args: "[COMMAND]",
        options: &[],
        summary: "this list, or more about one command",
        details: "",
    },
    CommandInfo {
        cmd: Cmd::Quit,
        name: "quit",
        aliases: &["exit"],
        args: "",
        options: &[],
        summary: "leave (Ctrl-D does too)",
        details: "",
    },
];

/// The command called `word` (by name or alias).
pub fn lookup(word: &str) -> Option<&'static CommandInfo> {
    COMMANDS
        .iter()
        .find(|c| c.name == word || c.aliases.contains(&word))
}

/// Keywords that start a declaration to add to the current module.
pub use gamelang_lang::parser::DECLARATION_KEYWORDS;

/// Keywords that start a module, theory, view or game typed at the prompt.
pub const ITEM_KEYWORDS: &[&str] = &["fmod", "fth", "view", "game"];

/// What `show` shows.
pub const SHOWABLE: &[&str] = &["modules", "sorts", "ops", "profile"];

/// Settings of `set`.
pub const SETTINGS: &[&str] = &["max-steps", "max-nesting", "print-limit"];

/// How an option's value is shown in help.
fn option_value(option: &str) -> &'static str {
    match option {
        "--game" => "NAME",
        "--max-depth" => "D",
        "--agent" => "SPEC",
        "--seed" => "S",
        _ => "P",
    }
}

/// The options of a command as shown in help: `--first P, --game NAME`.
fn options_text(c: &CommandInfo) -> String {
    c.options
        .iter()
        .map(|o| format!("{o} {}", option_value(o)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `help` overview.
pub fn overview() -> String {
    let mut out = String::from("Commands:\n");
    let shown = |c: &CommandInfo| {
        if c.options.is_empty() {
            usage(c)
        } else {
            format!("{} [options]", usage(c))
        }
    };
    let width = COMMANDS.iter().map(|c| shown(c).len()).max().unwrap_or(0);
    for c in COMMANDS {
        let aliases = if c.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", c.aliases.join(", "))
        };
        out.push_str(&format!("  {:width$}  {}{aliases}\n", shown(c), c.summary));
    }
    out.push_str(
        "Options of moves, solve and play: --first P (who is to move: B or R; default: the\n\
         game's `first`), --game NAME; of play: --as P (the side you play), --agent SPEC\n\
         (play against an agent, e.g. mcts:1000), --seed S.\n\
         \n\
         Anything else typed at the prompt:\n\
         \x20 a term                  is reduced, as by `reduce`\n\
         \x20 op, eq, var, sort, …    declarations, added to the current module for the session\n\
         \x20 fmod, fth, view, game   blocks, loaded as from a file\n\
         While playing, a number picks a move.\n\
         Unfinished input (an open parenthesis, a declaration without its ` .`) continues on\n\
         the next line. Tab completes commands, operators and sorts. Ctrl-C stops a running\n\
         computation or clears the line; Ctrl-D quits. `help COMMAND` tells more.\n",
    );
    out
}

/// `play [CONFIG] [--first P] …`
pub fn usage(c: &CommandInfo) -> String {
    if c.args.is_empty() {
        c.name.to_string()
    } else {
        format!("{} {}", c.name, c.args)
    }
}

/// `help NAME`.
pub fn detail(c: &CommandInfo) -> String {
    let mut out = format!("usage: {}", usage(c));
    if !c.options.is_empty() {
        out.push_str(&format!(" [{}]", options_text(c).replace(", ", "] [")));
    }
    out.push_str(&format!("\n{}\n", c.summary));
    if !c.aliases.is_empty() {
        out.push_str(&format!("also written: {}\n", c.aliases.join(", ")));
    }
    if !c.details.is_empty() {
        out.push('\n');
        for line in c.details.lines() {
            out.push_str(line.trim_start());
            out.push('\n');
        }
    }
    out
}

/// The arguments of a command that takes a term and options: where the term is (byte
/// range in the input, possibly empty) and each option with the range of its value.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Args {
    pub term: Range<usize>,
    pub options: Vec<(String, Range<usize>, Range<usize>)>,
}

impl Args {
    /// The value of option `name`, as a byte range of the input.
    pub fn get(&self, name: &str) -> Option<Range<usize>> {
        self.options
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, v)| v.clone())
    }
}

/// An error in a command's arguments, at a byte range of the input.
#[derive(Debug, PartialEq, Eq)]
pub struct ArgError {
    pub at: Range<usize>,
    pub message: String,
    pub label: String,
    pub note: Option<String>,
}

/// Split `input[from..]` into a term (everything before the first option) and options
/// `--name VALUE` (or `--name=VALUE`). A word starting with `---` starts a comment.
pub fn split_args(input: &str, from: usize, allowed: &[&str]) -> Result<Args, ArgError> {
    let words = words(input, from);
    let mut args = Args {
        term: from..input.len(),
        options: Vec::new(),
    };
    let mut i = 0;
    let mut term_end = None;
    while i < words.len() {
        let w = words[i].clone();
        let text = &input[w.clone()];
        if text.starts_with("---") || text.starts_with("***") {
            term_end.get_or_insert(w.start);
            break;
        }
        if !text.starts_with("--") || text.len() == 2 {
            if term_end.is_some() {
                return Err(ArgError {
                    at: w,
                    message: "the term comes before the options".into(),
                    label: "after the options".into(),
                    note: Some("write the configuration first, e.g. `play (2 5) --first B`".into()),
                });
            }
            i += 1;
            continue;
        }
        term_end.get_or_insert(w.start);
        // An unknown option is that, whether a value follows it or not.
        let name = text.split_once('=').map_or(text, |(n, _)| n);
        if !allowed.contains(&name) {
            let known = if allowed.is_empty() {
                "it takes no options".to_string()
            } else {
                format!("its options: {}", allowed.join(", "))
            };
            return Err(ArgError {
                at: w.start..w.start + name.len(),
                message: format!("unknown option `{name}`"),
                label: "not an option of this command".into(),
                note: Some(known),
            });
        }
        let (name, value) = match text.split_once('=') {
            Some((n, _)) => {
                let v = w.start + n.len() + 1..w.end;
                (n.to_string(), v)
            }
            None => {
                let Some(v) = words.get(i + 1) else {
                    return Err(ArgError {
                        at: w.clone(),
                        message: format!("option `{text}` needs a value"),
                        label: "no value after this".into(),
                        note: None,
                    });
                };
                i += 1;
                (text.to_string(), v.clone())
            }
        };
        args.options.push((name, w.clone(), value));
        i += 1;
    }
    if let Some(end) = term_end {
        args.term = from..end;
    }
    // Trim the term's range to its text.
    let t = &input[args.term.clone()];
    let lead = t.len() - t.trim_start().len();
    let trail = t.len() - t.trim_end().len();
    args.term = args.term.start + lead..args.term.end - trail;
    if args.term.start > args.term.end {
        args.term = args.term.start..args.term.start;
    }
    Ok(args)
}

/// Byte ranges of the whitespace-separated words of `input[from..]`.
pub fn words(input: &str, from: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in input[from..].char_indices() {
        let i = i + from;
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push(s..i);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(s..input.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_is_unique() {
        let mut names: Vec<&str> = COMMANDS
            .iter()
            .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
            .collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        for c in COMMANDS {
            assert!(overview().contains(&usage(c)), "{}", c.name);
            assert!(!DECLARATION_KEYWORDS.contains(&c.name));
        }
        assert_eq!(lookup("red").unwrap().cmd, Cmd::Reduce);
        assert!(lookup("reducee").is_none());
    }

    #[test]
    fn terms_and_options() {
        let input = "play (2 5) --first B --as=R";
        let a = split_args(input, 4, &["--first", "--as"]).unwrap();
        assert_eq!(&input[a.term.clone()], "(2 5)");
        assert_eq!(&input[a.get("--first").unwrap()], "B");
        assert_eq!(&input[a.get("--as").unwrap()], "R");
        let a = split_args("solve", 5, &["--first"]).unwrap();
        assert!(a.term.is_empty());
        let a = split_args("solve --first B", 5, &["--first"]).unwrap();
        assert!(a.term.is_empty());
        let a = split_args("moves (1\n 2) --- comment", 5, &[]).unwrap();
        assert_eq!(a.term, 6..12);

        let e = split_args("moves (2 5) --frist B", 5, &["--first"]).unwrap_err();
        assert_eq!(e.message, "unknown option `--frist`");
        assert_eq!(e.at, 12..19);
        let e = split_args("moves (2 5) --first", 5, &["--first"]).unwrap_err();
        assert_eq!(e.message, "option `--first` needs a value");
        // Unknown at the end of the line too (it said "needs a value").
        let e = split_args("solve --bogus", 5, &["--first"]).unwrap_err();
        assert_eq!(e.message, "unknown option `--bogus`");
        let e = split_args("moves --first B (2 5)", 5, &["--first"]).unwrap_err();
        assert_eq!(e.message, "the term comes before the options");
    }
}
