//! The gamelang standard library, written in gamelang and embedded in the binary so that
//! `gamelang` works from any directory. The sources live in `stdlib/*.game`.

/// `(file name, source text)` of every standard-library file, in load order.
pub const FILES: &[(&str, &str)] = &[
    ("stdlib/prelude.game", include_str!("../prelude.game")),
    ("stdlib/set.game", include_str!("../set.game")),
    ("stdlib/list.game", include_str!("../list.game")),
    ("stdlib/map.game", include_str!("../map.game")),
    ("stdlib/games.game", include_str!("../games.game")),
    ("stdlib/paths.game", include_str!("../paths.game")),
    ("stdlib/grid.game", include_str!("../grid.game")),
    ("stdlib/chance.game", include_str!("../chance.game")),
];

/// The names of the modules and theories the standard library declares (`fmod NAME …`,
/// `fth NAME …`, parameters left out), read from [`FILES`]: a program that writes modules
/// for the user (the BDDL translation) must not reuse one of them.
pub fn module_names() -> impl Iterator<Item = &'static str> {
    FILES.iter().flat_map(|(_, source)| {
        source.lines().filter_map(|line| {
            let rest = line
                .strip_prefix("fmod ")
                .or_else(|| line.strip_prefix("fth "))?;
            rest.split(['{', ' ']).next().filter(|n| !n.is_empty())
        })
    })
}
