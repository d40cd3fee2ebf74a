//! Source positions and the file database every diagnostic is rendered against.

use codespan_reporting::files::SimpleFiles;

/// Index of a file in [`Sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub usize);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Every source text of a session (the standard library, user files, REPL input),
/// so that a span anywhere can be shown with its file name, line and column.
pub struct Sources {
    files: SimpleFiles<String, String>,
    /// How many files `files` holds (it does not say).
    count: usize,
}

impl Default for Sources {
    fn default() -> Sources {
        Sources {
            files: SimpleFiles::new(),
            count: 0,
        }
    }
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.count += 1;
        FileId(self.files.add(name.into(), text.into()))
    }

    /// The file added last (`--from`'s text, just parsed), if any.
    pub fn last(&self) -> Option<FileId> {
        self.count.checked_sub(1).map(FileId)
    }

    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file.0)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file.0)
            .map(|f| f.name().as_str())
            .unwrap_or("?")
    }

    pub fn snippet(&self, span: Span) -> &str {
        self.text(span.file).get(span.range()).unwrap_or("")
    }

    /// 1-based (line, column) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let text = self.text(file);
        let offset = (offset as usize).min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    pub fn files(&self) -> &SimpleFiles<String, String> {
        &self.files
    }
}

/// The largest source file read (`solve /dev/zero` must not read until memory runs out).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Read a source file (a `.game` or BDDL file): at most [`MAX_SOURCE_BYTES`], and UTF-8,
/// with the line and column of the first byte that is not.
pub fn read_source(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(format!(
            "cannot read `{shown}`: it is larger than {} MiB, the most a source file may be",
            MAX_SOURCE_BYTES >> 20
        ));
    }
    // Old Mac line endings (a lone CR): read as LF, byte for byte (the offsets stay), so
    // that comments end and diagnostics count lines as the editor shows them. (CRLF is
    // left alone: its LF ends the line.)
    for k in 0..bytes.len() {
        if bytes[k] == b'\r' && bytes.get(k + 1) != Some(&b'\n') {
            bytes[k] = b'\n';
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k + 1);
        // Columns count characters (the text before the bad byte on its line is valid).
        let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        format!(
            "{shown}:{line}:{column}: byte 0x{:02x} is not UTF-8 (source files are UTF-8 text)",
            bytes[at]
        )
    })
}

#[cfg(test)]
mod read_tests {
    #[test]
    fn old_mac_line_endings_are_lines() {
        let path = std::env::temp_dir().join(format!("gamelang-cr-{}.game", std::process::id()));
        std::fs::write(&path, b"--- a comment\rfmod X is\r\n  sort S .\rendfm\r").unwrap();
        let text = super::read_source(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(text, "--- a comment\nfmod X is\r\n  sort S .\nendfm\n");
    }

    #[test]
    fn a_byte_that_is_not_utf8_is_located() {
        let path = std::env::temp_dir().join(format!("gamelang-span-{}.game", std::process::id()));
        std::fs::write(&path, b"fmod X is\n  op \xc3\xa9a : -> S . \xff\nendfm\n").unwrap();
        let e = super::read_source(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert!(e.contains(":2:18: byte 0xff is not UTF-8"), "{e}");
    }
}
