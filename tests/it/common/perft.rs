//! The one reader of `tests/data/*.perft` (format described at the top of
//! `tests/data/gygax.perft`): blocks separated by blank lines, `#` comments.

use std::path::{Path, PathBuf};

use ravenpost::engine::{Position, Variant};

/// One block: a variant, its options, a position and the expected counts.
pub struct Block {
    /// The block's `id`.
    pub id: String,
    /// The variant's built-in name.
    pub variant: String,
    /// Or a user definition of `tests/data/variants/` (`variant-file NAME`).
    pub variant_file: Option<String>,
    /// The source counted in Chess960 mode (`chess960 yes`): a note on the numbers'
    /// source, the rules are the definition's.
    pub chess960: bool,
    /// The game options (`option K=V`).
    pub options: Vec<(String, String)>,
    /// The position string, or `start`.
    pub position: String,
    /// The expected counts: (depth, leaf nodes).
    pub expect: Vec<(u32, u64)>,
    /// The line the block starts on (1-based).
    pub line: usize,
}

impl Block {
    /// The variant with the block's options.
    pub fn variant(&self) -> std::sync::Arc<Variant> {
        if let Some(file) = &self.variant_file {
            let text = std::fs::read_to_string(Path::new("tests/data/variants").join(file))
                .unwrap_or_else(|e| panic!("line {} ({}): {file}: {e}", self.line, self.id));
            let d = ravenpost::variants::load_definition(&text)
                .unwrap_or_else(|e| panic!("line {} ({}): {file}: {e}", self.line, self.id));
            return d
                .variant(&self.options)
                .unwrap_or_else(|e| panic!("line {} ({}): {e}", self.line, self.id));
        }
        ravenpost::variants::by_name(&self.variant, &self.options)
            .unwrap_or_else(|e| panic!("line {} ({}): {e}", self.line, self.id))
    }

    /// The block's position in `v`.
    pub fn position_in(&self, v: &Variant) -> Position {
        if self.position == "start" {
            v.start_position()
        } else {
            ravenpost::notation::position_string::parse_position(v, &self.position)
                .unwrap_or_else(|e| panic!("line {} ({}): {e}", self.line, self.id))
        }
    }
}

/// Every `tests/data/*.perft` file, sorted by name.
pub fn files() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir("tests/data")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    files
}

/// The blocks of the `.perft` file at `path`; panics on a line it cannot read.
pub fn read_blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks = Vec::new();
    let mut cur: Option<Block> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            if raw.trim().is_empty() {
                blocks.extend(cur.take());
            }
            continue;
        }
        let b = cur.get_or_insert_with(|| Block {
            id: String::new(),
            variant: String::new(),
            variant_file: None,
            chess960: false,
            options: vec![],
            position: "start".into(),
            expect: vec![],
            line: n + 1,
        });
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        let bad = || -> ! { panic!("{}:{}: cannot read `{raw}`", path.display(), n + 1) };
        match key {
            "id" => b.id = value.to_string(),
            "variant" => b.variant = value.to_string(),
            "variant-file" => b.variant_file = Some(value.to_string()),
            "chess960" => b.chess960 = value == "yes",
            "position" => b.position = value.to_string(),
            "option" => {
                let (k, v) = value.split_once('=').unwrap_or_else(|| bad());
                b.options.push((k.into(), v.into()));
            }
            "perft" => {
                let mut it = value.split_whitespace();
                let d = it.next().and_then(|d| d.parse().ok()).unwrap_or_else(|| bad());
                let nodes = it.next().and_then(|d| d.parse().ok()).unwrap_or_else(|| bad());
                b.expect.push((d, nodes));
            }
            other => panic!("{}:{}: unknown key `{other}`", path.display(), n + 1),
        }
    }
    blocks.extend(cur);
    blocks
}
