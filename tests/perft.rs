//! Runs every `tests/data/*.perft` file: each expected count must match.

use std::path::Path;

struct Block {
    id: String,
    variant: String,
    options: Vec<(String, String)>,
    position: String,
    expect: Vec<(u32, u64)>,
    line: usize,
}

fn read_blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
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
            options: vec![],
            position: "start".into(),
            expect: vec![],
            line: n + 1,
        });
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => b.id = value.to_string(),
            "variant" => b.variant = value.to_string(),
            "position" => b.position = value.to_string(),
            "option" => {
                let (k, v) = value.split_once('=').expect("option K=V");
                b.options.push((k.into(), v.into()));
            }
            "perft" => {
                let mut it = value.split_whitespace();
                let d = it.next().unwrap().parse().unwrap();
                let nodes = it.next().unwrap().parse().unwrap();
                b.expect.push((d, nodes));
            }
            other => panic!("{}:{}: unknown key `{other}`", path.display(), n + 1),
        }
    }
    blocks.extend(cur);
    blocks
}

#[test]
fn perft_files() {
    let mut checked = 0;
    let mut files: Vec<_> = std::fs::read_dir("tests/data")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        for b in read_blocks(&path) {
            let v = ravenpost::variants::by_name(&b.variant, &b.options)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), b.line));
            let pos = if b.position == "start" {
                v.start_position()
            } else {
                ravenpost::notation::position_string::parse_position(&v, &b.position)
                    .unwrap_or_else(|e| panic!("{}:{} ({}): {e}", path.display(), b.line, b.id))
            };
            for (d, nodes) in &b.expect {
                assert_eq!(v.perft(&pos, *d), *nodes, "{} {} depth {d}", path.display(), b.id);
                checked += 1;
            }
        }
    }
    assert!(checked >= 3);
}
