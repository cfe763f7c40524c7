//! Movement as data: Betza-style atoms with a level component.
//!
//! A piece's movement is a list of [`Atom`]s, each one direction of one kind of step:
//! a leap (one jump), a slide (repeat the step while squares are empty, up to a range) or
//! a hop (slide over exactly one piece, cannon-style). Each atom says from which levels it
//! applies, whether it may move, capture or both, which intermediate square must be empty
//! for a lame leap, and whether it is a capture without moving (the Dragon's).
//!
//! Atoms are written in piece definitions with a subset of Betza's notation
//! ([`parse_betza`]), the vocabulary of `rulings.md`:
//!
//! | letter | step (files, ranks) | letter | step |
//! |---|---|---|---|
//! | `W` | (0,1) orthogonal step | `F` | (1,1) diagonal step |
//! | `D` | (0,2) | `A` | (2,2) |
//! | `H` | (0,3) | `G` | (3,3) |
//! | `N` | (1,2) knight | `L` | (1,3) camel |
//! | `J` | (2,3) zebra | `O` | (0,0): no planar step (level moves only) |
//! | `K` | `W` + `F` | `R` | `WW` (rook) |
//! | `B` | `FF` (bishop) | `Q` | `R` + `B` |
//!
//! A doubled letter is a rider (`WW` = `R`); a number after the atom limits a rider's
//! range (`R4`, `W2`: up to 2 steps, blocked). Lower-case modifiers before the atom:
//! `m` move only, `c` capture only, `p` hop over exactly one piece (captures are then
//! only beyond the screen, moves only before it: Xiangqi cannon with `mR cpR`), `n` lame
//! (the leap is blocked by a piece on its first orthogonal step), and direction
//! selectors, which combine as a union: `f` forward, `b` backward, `s` sideways (rank
//! unchanged; for oblique leaps, the two file-longer directions each way), `v` vertical
//! (file unchanged; oblique: rank-longer), `l` toward file `a`, `r` toward file `l`.
//! "Forward" is toward the opponent, so the same atom points the other way for Black.
//!
//! ## Extensions beyond Betza's letters
//!
//! Every atom is a *path*: a list of squares walked in order, each a destination, the walk
//! stopping at the first occupied square (captured if it is an enemy and the atom
//! captures). The [`Shape`] says how the path is laid out:
//!
//! - [`Shape::Line`]: the step repeated (leaps and riders above).
//! - [`Shape::Bent`]: one `first` step to a square that must be empty, then a slide along
//!   `step` from there; the first square itself is not a destination of this atom. Named
//!   shape `bent X Y` (in a definition's `special:`): first any `X` step, then slide
//!   along every `Y` direction that points *outward* (each non-zero component of the `Y`
//!   step has the sign of the same component of the `X` step). `bent F W` is the Grande
//!   Acedrex Griffon's slide (add `F` for its one-square move); `bent W W` is a rook
//!   without its one-square move (the Cyclops), `bent F F` a bishop without it.
//! - [`Shape::Zigzag`]: `step`, `second`, `step`, `second`, … alternating (Betza's `z`
//!   modifier on a rider: `zB` is the crooked bishop, `zR` the crooked rook; `zF9` limits
//!   it to nine single steps). The two steps are perpendicular single steps of the
//!   atom's letter; the path may start with either of them.
//! - [`Shape::Path`]: a fixed list of up to [`MAX_PATH`] single steps (named shape
//!   `turning X n`: up to `n` `X` steps, turning freely, never stepping straight back,
//!   so never ending on the start square: the Priest is `turning F 2`, the Mammoth Rider
//!   `turning W 2`, the Behemoth Rider `turning W 3`).
//!
//! When several paths of one piece reach the same square, that square is still one move:
//! the tables mark such pieces and the generator removes the duplicates.
//!
//! Two more extensions: `n` (lame) on a straight leap (`D`, `A`) makes the middle square
//! the one that must be empty (`mfnD`: a pawn's double step); and an atom marked
//! `initial` in a definition applies only from its kind's setup rank (pawn double
//! steps).

use super::geometry::Offset;

/// Whether an atom may move to an empty square, capture an enemy piece, or both.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Only to an empty square.
    Move,
    /// Only onto an enemy piece.
    Capture,
    /// Either.
    Both,
}

impl Mode {
    /// Whether the atom may end on an empty square.
    pub const fn moves(self) -> bool {
        matches!(self, Mode::Move | Mode::Both)
    }
    /// Whether the atom may capture.
    pub const fn captures(self) -> bool {
        matches!(self, Mode::Capture | Mode::Both)
    }
}

/// Most single steps of a [`Shape::Path`].
pub const MAX_PATH: usize = 4;

/// How an atom's squares are laid out (module docs, "Extensions").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Shape {
    /// `step` repeated up to `range` times.
    #[default]
    Line,
    /// A first step (to a square that must be empty), then `step` repeated.
    Bent {
        /// The first step.
        first: Offset,
    },
    /// `step` and `second` alternating, starting with `step`, up to `range` steps.
    Zigzag {
        /// The other step.
        second: Offset,
    },
    /// `step`, then `rest[..len]`, one square each.
    Path {
        /// The steps after the first.
        rest: [Offset; MAX_PATH - 1],
        /// How many of `rest` are used.
        len: u8,
    },
}

/// One direction of one way of moving, for the first side (mirror ranks for the second).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// Levels (bit `i` = level index `i`) the piece must stand on for this atom to apply.
    pub from_levels: u8,
    /// One step of the atom.
    pub step: Offset,
    /// How many steps at most: 1 for a leap, 0 for unlimited.
    pub range: u8,
    /// Move, capture or both.
    pub mode: Mode,
    /// Hop over exactly one piece (cannon): the path must hold exactly one piece before
    /// the destination.
    pub hop: bool,
    /// For a leap: the square `from + via` must be empty (lame leaper).
    pub via: Option<Offset>,
    /// Capture without moving: the piece stays, the target is removed (Dragon).
    pub remote: bool,
    /// How the squares are laid out beyond a straight line.
    pub shape: Shape,
    /// Applies only from its kind's setup rank (pawn double steps).
    pub initial: bool,
}

impl Atom {
    /// The offsets from the start of the squares this atom passes, in order, on an
    /// unbounded board (`limit` caps riders), for the first side.
    pub fn offsets(&self, limit: usize) -> Vec<Offset> {
        let max = if self.range == 0 { limit } else { (self.range as usize).min(limit) };
        let mut out = Vec::new();
        match self.shape {
            Shape::Line => {
                for i in 1..=max {
                    out.push(self.step.times(i as i8));
                }
            }
            Shape::Bent { first } => {
                for i in 1..=max {
                    out.push(first.plus(self.step.times(i as i8)));
                }
            }
            Shape::Zigzag { second } => {
                let mut at = Offset::default();
                for i in 0..max {
                    at = at.plus(if i % 2 == 0 { self.step } else { second });
                    out.push(at);
                }
            }
            Shape::Path { rest, len } => {
                let mut at = self.step;
                out.push(at);
                for r in &rest[..len as usize] {
                    at = at.plus(*r);
                    out.push(at);
                }
            }
        }
        out
    }
}

/// What [`parse_betza`] could not read: the token and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("movement `{token}`: {reason}")]
pub struct BetzaError {
    /// The offending token.
    pub token: String,
    /// Why it was refused.
    pub reason: String,
}

fn base_step(letter: char) -> Option<(i8, i8)> {
    Some(match letter {
        'W' => (0, 1),
        'F' => (1, 1),
        'D' => (0, 2),
        'A' => (2, 2),
        'H' => (0, 3),
        'G' => (3, 3),
        'N' => (1, 2),
        'L' => (1, 3),
        'J' => (2, 3),
        'O' => (0, 0),
        _ => return None,
    })
}

/// All planar directions of the leap `(a, b)` (files, ranks), without duplicates.
fn planar_directions(a: i8, b: i8) -> Vec<(i8, i8)> {
    let mut out: Vec<(i8, i8)> = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        for sx in [1, -1] {
            for sy in [1, -1] {
                let d = (x * sx, y * sy);
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// Whether direction `(df, dr)` is selected by the direction modifiers `dirs`.
fn selected(dirs: &str, df: i8, dr: i8) -> bool {
    if dirs.is_empty() {
        return true;
    }
    dirs.chars().any(|c| match c {
        'f' => dr > 0,
        'b' => dr < 0,
        's' => {
            if df == 0 || dr == 0 {
                dr == 0 && df != 0
            } else {
                df.abs() > dr.abs()
            }
        }
        'v' => {
            if df == 0 || dr == 0 {
                df == 0 && dr != 0
            } else {
                dr.abs() > df.abs()
            }
        }
        'l' => df < 0,
        'r' => df > 0,
        _ => false,
    })
}

/// Reads Betza movement text such as `"mfF cfW"` or `"R4 F"` into atoms, all applying
/// from the levels in `from_levels`, with `level_steps` added to each step (an empty
/// slice means no level change; several values give one atom per value).
///
/// `slide_levels` makes the level component itself a rider (the Mage's "one or two levels
/// straight up or down", which the occupied middle level blocks).
///
/// # Errors
/// [`BetzaError`] names the token that is not in the subset described in the module docs.
pub fn parse_betza(
    text: &str,
    from_levels: u8,
    level_steps: &[i8],
    slide_levels: bool,
) -> Result<Vec<Atom>, BetzaError> {
    let mut atoms = Vec::new();
    let levels: Vec<i8> = if level_steps.is_empty() { vec![0] } else { level_steps.to_vec() };
    for token in text.split_whitespace() {
        let err = |reason: &str| BetzaError { token: token.to_string(), reason: reason.to_string() };
        let mut chars = token.chars().peekable();
        let mut mods = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_ascii_lowercase() {
                mods.push(c);
                chars.next();
            } else {
                break;
            }
        }
        let rest: String = chars.collect();
        if rest.is_empty() {
            return Err(err("no atom letter"));
        }
        // Split the rest into atom letters and an optional range number.
        let letters: String = rest.chars().take_while(|c| c.is_ascii_uppercase()).collect();
        let number = &rest[letters.len()..];
        // An unknown atom is named as such before what follows it is read.
        if let Some(c) =
            letters.chars().find(|&c| !matches!(c, 'K' | 'R' | 'B' | 'Q') && base_step(c).is_none())
        {
            return Err(err(&format!("unknown atom `{c}`")));
        }
        let range_limit: Option<u8> = if number.is_empty() {
            None
        } else {
            Some(
                number
                    .parse()
                    .map_err(|_| err(&format!("`{number}` after the atoms: a range must be a number")))?,
            )
        };
        let mode = match (mods.contains('m'), mods.contains('c')) {
            (true, false) => Mode::Move,
            (false, true) => Mode::Capture,
            (false, false) => Mode::Both,
            (true, true) => return Err(err("both m and c")),
        };
        let hop = mods.contains('p');
        let lame = mods.contains('n');
        let zigzag = mods.contains('z');
        if let Some(bad) = mods.chars().find(|c| !"mcpnzfbsvlr".contains(*c)) {
            return Err(err(&format!("unknown modifier `{bad}`")));
        }
        let dirs: String = mods.chars().filter(|c| "fbsvlr".contains(*c)).collect();
        // Expand compound letters into (base, rider?) pairs.
        let mut parts: Vec<(char, bool)> = Vec::new();
        let lv: Vec<char> = letters.chars().collect();
        let mut i = 0;
        while i < lv.len() {
            let c = lv[i];
            let doubled = i + 1 < lv.len() && lv[i + 1] == c;
            match c {
                'K' => parts.extend([('W', false), ('F', false)]),
                'R' => parts.push(('W', true)),
                'B' => parts.push(('F', true)),
                'Q' => parts.extend([('W', true), ('F', true)]),
                _ if base_step(c).is_some() => parts.push((c, doubled)),
                _ => return Err(err(&format!("unknown atom `{c}`"))),
            }
            i += if doubled { 2 } else { 1 };
        }
        for (letter, rider) in parts {
            let (a, b) = base_step(letter).expect("checked above");
            let range = match (rider, range_limit) {
                (true, Some(n)) => n,
                (true, None) => 0,
                (false, Some(n)) => n,
                (false, None) => 1,
            };
            if hop && range == 1 {
                return Err(err("a hop needs a rider"));
            }
            if zigzag && (range == 1 || !matches!(letter, 'W' | 'F')) {
                return Err(err("`z` needs a W or F rider (zR, zB, zF9)"));
            }
            for &dl in &levels {
                let dirs_planar = if letter == 'O' { vec![(0, 0)] } else { planar_directions(a, b) };
                for (df, dr) in dirs_planar {
                    if !selected(&dirs, df, dr) {
                        continue;
                    }
                    let via = if lame {
                        if df == 0 || dr == 0 || df.abs() == dr.abs() {
                            // A straight leap: its first unit step (the middle of D and A).
                            Some(Offset::new(0, df.signum(), dr.signum()))
                        } else if df.abs() >= dr.abs() {
                            // An oblique leap: the first orthogonal step along the longer leg.
                            Some(Offset::new(0, df.signum(), 0))
                        } else {
                            Some(Offset::new(0, 0, dr.signum()))
                        }
                    } else {
                        None
                    };
                    let (step, range) = if slide_levels && letter == 'O' {
                        (Offset::new(dl, 0, 0), 0)
                    } else {
                        (Offset::new(dl, df, dr), range)
                    };
                    let shapes = if zigzag {
                        // Both perpendicular partners of this single step.
                        vec![
                            Shape::Zigzag { second: Offset::new(dl, -dr, df) },
                            Shape::Zigzag { second: Offset::new(dl, dr, -df) },
                        ]
                    } else {
                        vec![Shape::Line]
                    };
                    for shape in shapes {
                        atoms.push(Atom {
                            from_levels,
                            step,
                            range,
                            mode,
                            hop,
                            via,
                            remote: false,
                            shape,
                            initial: false,
                        });
                    }
                }
            }
        }
    }
    Ok(atoms)
}

/// Reads a named shape (a definition's `special:` text; module docs, "Extensions"):
/// `bent X Y`, `turning X n`. All atoms move and capture.
///
/// # Errors
/// [`BetzaError`] when the name, a letter or the count is not understood; `Ok(None)` when
/// the text is not a shape name at all (another kind of special).
pub fn parse_shape(text: &str, from_levels: u8) -> Result<Option<Vec<Atom>>, BetzaError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let err = |reason: &str| BetzaError { token: text.to_string(), reason: reason.to_string() };
    let unit = |w: &str| -> Result<(i8, i8), BetzaError> {
        match w {
            "W" | "F" => Ok(base_step(w.chars().next().unwrap_or('W')).unwrap_or((0, 1))),
            _ => Err(err("expected W or F")),
        }
    };
    let atom = |step: Offset, range: u8, shape: Shape| Atom {
        from_levels,
        step,
        range,
        mode: Mode::Both,
        hop: false,
        via: None,
        remote: false,
        shape,
        initial: false,
    };
    let mut atoms = Vec::new();
    match words.as_slice() {
        ["bent", x, y] => {
            let (a, b) = unit(x)?;
            let (c, d) = unit(y)?;
            for (fx, fy) in planar_directions(a, b) {
                for (sx, sy) in planar_directions(c, d) {
                    let outward =
                        (sx == 0 || sx.signum() == fx.signum()) && (sy == 0 || sy.signum() == fy.signum());
                    if outward {
                        let first = Offset::new(0, fx, fy);
                        let mut at = atom(Offset::new(0, sx, sy), 0, Shape::Bent { first });
                        at.via = Some(first);
                        atoms.push(at);
                    }
                }
            }
        }
        ["turning", x, n] => {
            let (a, b) = unit(x)?;
            let n: usize = n.parse().map_err(|_| err("the count must be a number"))?;
            if !(1..=MAX_PATH).contains(&n) {
                return Err(err(&format!("the count must be 1 to {MAX_PATH}")));
            }
            let dirs: Vec<Offset> =
                planar_directions(a, b).into_iter().map(|(x, y)| Offset::new(0, x, y)).collect();
            // Every sequence of exactly n steps that never steps straight back. Shorter
            // moves are the prefixes, so each path's squares are all destinations.
            let mut paths: Vec<Vec<Offset>> = dirs.iter().map(|d| vec![*d]).collect();
            for _ in 1..n {
                paths = paths
                    .into_iter()
                    .flat_map(|p| {
                        let last = *p.last().expect("non-empty");
                        dirs.iter()
                            .filter(move |d| d.df != -last.df || d.dr != -last.dr)
                            .map(move |d| {
                                let mut q = p.clone();
                                q.push(*d);
                                q
                            })
                            .collect::<Vec<_>>()
                    })
                    .collect();
            }
            for p in paths {
                let mut rest = [Offset::default(); MAX_PATH - 1];
                for (i, s) in p[1..].iter().enumerate() {
                    rest[i] = *s;
                }
                atoms.push(atom(p[0], 1, Shape::Path { rest, len: (p.len() - 1) as u8 }));
            }
        }
        [name, ..] if ["bent", "turning"].contains(name) => {
            return Err(err("wrong number of words"));
        }
        _ => return Ok(None),
    }
    Ok(Some(atoms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<(i8, i8, u8, Mode)> {
        let mut v: Vec<_> = parse_betza(text, 1, &[], false)
            .unwrap()
            .into_iter()
            .map(|a| (a.step.df, a.step.dr, a.range, a.mode))
            .collect();
        v.sort_by_key(|x| (x.0, x.1));
        v
    }

    #[test]
    fn knight_has_eight_leaps() {
        let n = steps("N");
        assert_eq!(n.len(), 8);
        assert!(n.iter().all(|s| s.2 == 1 && s.3 == Mode::Both));
    }

    #[test]
    fn directions_select_as_rulings_vocabulary() {
        assert_eq!(steps("mfW"), vec![(0, 1, 1, Mode::Move)]);
        assert_eq!(steps("cfF"), vec![(-1, 1, 1, Mode::Capture), (1, 1, 1, Mode::Capture)]);
        assert_eq!(steps("sW").len(), 2);
        assert_eq!(steps("vW").len(), 2);
        assert_eq!(steps("fN").len(), 4, "Werewolf: the four forward knight moves");
        assert_eq!(steps("R4"), {
            let mut v = vec![
                (0, 1, 4, Mode::Both),
                (0, -1, 4, Mode::Both),
                (1, 0, 4, Mode::Both),
                (-1, 0, 4, Mode::Both),
            ];
            v.sort_by_key(|x| (x.0, x.1));
            v
        });
        assert_eq!(steps("Q").len(), 8);
        assert_eq!(steps("NN").iter().filter(|s| s.2 == 0).count(), 8, "knightrider");
    }

    #[test]
    fn level_moves_and_lame_leaps() {
        let a = parse_betza("O", 0b010, &[1, -1], true).unwrap();
        assert_eq!(a.len(), 2);
        assert!(a.iter().all(|x| x.range == 0 && x.step.df == 0 && x.step.dr == 0));
        let n = parse_betza("nN", 1, &[], false).unwrap();
        for x in n {
            let v = x.via.unwrap();
            assert!(v.df.abs() + v.dr.abs() == 1);
            assert!(v.df == 0 || v.df.signum() == x.step.df.signum());
        }
    }

    #[test]
    fn named_shapes_and_zigzags() {
        let offs = |a: &Atom| a.offsets(4).iter().map(|o| (o.df, o.dr)).collect::<Vec<_>>();
        // The Griffon's slides: 4 diagonals × 2 outward directions, each through its
        // diagonal square, never including it.
        let g = parse_shape("bent F W", 1).unwrap().unwrap();
        assert_eq!(g.len(), 8);
        for a in &g {
            let Shape::Bent { first } = a.shape else { panic!("bent") };
            assert_eq!(a.via, Some(first));
            assert!(first.df.abs() == 1 && first.dr.abs() == 1);
            assert!(a.step.df == 0 || a.step.df == first.df);
            assert!(a.step.dr == 0 || a.step.dr == first.dr);
        }
        // A rook without its one-square move: 4 paths starting two squares out.
        let c = parse_shape("bent W W", 1).unwrap().unwrap();
        assert_eq!(c.len(), 4);
        assert!(c.iter().all(|a| offs(a)[0] == (a.step.df * 2, a.step.dr * 2)));
        // Turning W 3: 4 × 3 × 3 paths of three steps, never straight back.
        let t = parse_shape("turning W 3", 1).unwrap().unwrap();
        assert_eq!(t.len(), 36);
        assert!(t.iter().all(|a| offs(a).len() == 3 && !offs(a).contains(&(0, 0))));
        assert_eq!(parse_shape("turning F 2", 1).unwrap().unwrap().len(), 12);
        assert!(parse_shape("return-to-start", 1).unwrap().is_none());
        assert!(parse_shape("bent Q W", 1).is_err());
        assert!(parse_shape("turning W 9", 1).is_err());
        // zB: the crooked bishop, both perpendicular partners of each diagonal.
        let z = parse_betza("zB", 1, &[], false).unwrap();
        assert_eq!(z.len(), 8);
        let first = z.iter().find(|a| a.step.df == 1 && a.step.dr == 1).unwrap();
        let path = offs(first);
        assert!(path == vec![(1, 1), (2, 0), (3, 1), (4, 0)] || path == vec![(1, 1), (0, 2), (1, 3), (0, 4)]);
        assert_eq!(parse_betza("zR", 1, &[], false).unwrap().len(), 8);
        assert!(parse_betza("zN", 1, &[], false).is_err());
        // A lame straight leap waits on its middle square (pawn double steps).
        let d = parse_betza("mfnD", 1, &[], false).unwrap();
        assert_eq!(d[0].via, Some(Offset::new(0, 0, 1)));
        let a = parse_betza("mfnA", 1, &[], false).unwrap();
        assert!(a.iter().all(|x| x.via == Some(Offset::new(0, x.step.df / 2, 1))));
    }

    #[test]
    fn bad_movement_is_refused_with_its_token() {
        assert_eq!(parse_betza("xW", 1, &[], false).unwrap_err().token, "xW");
        assert!(parse_betza("mcW", 1, &[], false).is_err());
        assert!(parse_betza("Y", 1, &[], false).is_err());
        assert!(parse_betza("pW", 1, &[], false).is_err());
    }
}
