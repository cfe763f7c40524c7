//! Coordinates: levels, files, ranks, squares, board dimensions and square sets.
//!
//! Every board ravenpost plays fits in 3 levels × 12 files × 12 ranks (rulings §1.1):
//! Gygax Chess is 3 × 12 × 8, Fidchell 1 × 12 × 12, Fantasy Grand Chess 1 × 10 × 10.
//! A [`Square`] is an index into that 432-square box, so one [`SquareSet`] type serves
//! every game. Which squares exist is a property of [`Dims`].
//!
//! Levels, files and ranks are 0-based inside the engine and 1-based (levels, ranks) or
//! lettered (files) when written: level index 0 is written `1` (Gygax Chess:
//! Subterranean), file 0 is `a`, rank index 0 is `1`.

use std::fmt;

/// Most levels any board has (Gygax Chess).
pub const MAX_LEVELS: usize = 3;
/// Most files any board has (Gygax Chess, Fidchell).
pub const MAX_FILES: usize = 12;
/// Most ranks any board has (Fidchell).
pub const MAX_RANKS: usize = 12;
/// Squares in the 3 × 12 × 12 box that every board fits in.
pub const SQUARE_COUNT: usize = MAX_LEVELS * MAX_FILES * MAX_RANKS;

/// A level (stacked board), 0-based: index 0 is written `1`.
///
/// In Gygax Chess level 1 is Subterranean, 2 Land, 3 Air (seed, "Notation").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    /// The level with 0-based `index`; `None` unless `index < MAX_LEVELS`.
    pub const fn new(index: u8) -> Option<Level> {
        if (index as usize) < MAX_LEVELS { Some(Level(index)) } else { None }
    }
    /// 0-based index (0..3).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The number people write: `index + 1` (1..=3).
    pub const fn number(self) -> u8 {
        self.0 + 1
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// A file (column), 0-based: index 0 is written `a`, 11 is `l`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    /// The file with 0-based `index`; `None` unless `index < MAX_FILES`.
    pub const fn new(index: u8) -> Option<File> {
        if (index as usize) < MAX_FILES { Some(File(index)) } else { None }
    }
    /// The file written with `letter` (`a`..=`l`).
    pub fn from_char(letter: char) -> Option<File> {
        match letter {
            'a'..='l' => Some(File(letter as u8 - b'a')),
            _ => None,
        }
    }
    /// 0-based index (0..12).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The letter people write (`a`..=`l`).
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A rank (row), 0-based: index 0 is written `1`, 11 is `12`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// The rank with 0-based `index`; `None` unless `index < MAX_RANKS`.
    pub const fn new(index: u8) -> Option<Rank> {
        if (index as usize) < MAX_RANKS { Some(Rank(index)) } else { None }
    }
    /// 0-based index (0..12).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The number people write: `index + 1` (1..=12).
    pub const fn number(self) -> u8 {
        self.0 + 1
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// A square of the 3 × 12 × 12 box: `level * 144 + rank * 12 + file`.
///
/// A `Square` names a place; whether a board has it is [`Dims::contains`]. Write one with
/// [`Dims::name`] (the level digit appears only on multi-level boards).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u16);

impl Square {
    /// The square at `level`, `file`, `rank`.
    pub const fn new(level: Level, file: File, rank: Rank) -> Square {
        Square((level.0 as u16) * 144 + (rank.0 as u16) * 12 + file.0 as u16)
    }
    /// The square with box index `index` (0..432); `None` past the box.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < SQUARE_COUNT { Some(Square(index as u16)) } else { None }
    }
    /// Box index (0..432).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The square's level.
    pub const fn level(self) -> Level {
        Level((self.0 / 144) as u8)
    }
    /// The square's file.
    pub const fn file(self) -> File {
        File((self.0 % 12) as u8)
    }
    /// The square's rank.
    pub const fn rank(self) -> Rank {
        Rank(((self.0 % 144) / 12) as u8)
    }
}

/// A displacement: levels, files and ranks, each signed. For piece movement the rank
/// component is "forward" for the first side and is mirrored for the second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Offset {
    /// Level change (+1 = one level up).
    pub dl: i8,
    /// File change (+1 = toward file `l`).
    pub df: i8,
    /// Rank change (+1 = toward higher ranks).
    pub dr: i8,
}

impl Offset {
    /// The offset `(dl, df, dr)`.
    pub const fn new(dl: i8, df: i8, dr: i8) -> Offset {
        Offset { dl, df, dr }
    }
    /// The same offset seen from the second side: ranks mirrored.
    pub const fn mirrored(self) -> Offset {
        Offset { dl: self.dl, df: self.df, dr: -self.dr }
    }
    /// This offset multiplied by `n`.
    pub const fn times(self, n: i8) -> Offset {
        Offset { dl: self.dl * n, df: self.df * n, dr: self.dr * n }
    }
    /// Component-wise sum.
    pub const fn plus(self, o: Offset) -> Offset {
        Offset { dl: self.dl + o.dl, df: self.df + o.df, dr: self.dr + o.dr }
    }
}

/// The shape of a board: how many levels, files and ranks it has.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    levels: u8,
    files: u8,
    ranks: u8,
}

impl Dims {
    /// Board dimensions; `None` if any is 0 or above the box (3 × 12 × 12).
    pub const fn new(levels: u8, files: u8, ranks: u8) -> Option<Dims> {
        if levels == 0
            || files == 0
            || ranks == 0
            || levels as usize > MAX_LEVELS
            || files as usize > MAX_FILES
            || ranks as usize > MAX_RANKS
        {
            None
        } else {
            Some(Dims { levels, files, ranks })
        }
    }
    /// Number of levels (1..=3).
    pub const fn levels(self) -> u8 {
        self.levels
    }
    /// Number of files (1..=12).
    pub const fn files(self) -> u8 {
        self.files
    }
    /// Number of ranks (1..=12).
    pub const fn ranks(self) -> u8 {
        self.ranks
    }
    /// Whether this board has `sq`.
    pub const fn contains(self, sq: Square) -> bool {
        sq.level().0 < self.levels && sq.file().0 < self.files && sq.rank().0 < self.ranks
    }
    /// Every square of the board, by level, then rank, then file (all ascending).
    pub fn squares(self) -> impl Iterator<Item = Square> {
        (0..self.levels).flat_map(move |l| {
            (0..self.ranks)
                .flat_map(move |r| (0..self.files).map(move |f| Square::new(Level(l), File(f), Rank(r))))
        })
    }
    /// The square at `(level, file, rank)` given as 0-based signed indices, if on the board.
    pub fn square_at(self, level: i32, file: i32, rank: i32) -> Option<Square> {
        if level < 0
            || file < 0
            || rank < 0
            || level >= self.levels as i32
            || file >= self.files as i32
            || rank >= self.ranks as i32
        {
            return None;
        }
        Some(Square::new(Level(level as u8), File(file as u8), Rank(rank as u8)))
    }
    /// `sq` moved by `off`, if that is still on the board.
    pub fn offset(self, sq: Square, off: Offset) -> Option<Square> {
        self.square_at(
            sq.level().0 as i32 + off.dl as i32,
            sq.file().0 as i32 + off.df as i32,
            sq.rank().0 as i32 + off.dr as i32,
        )
    }
    /// The square's name: level digit (multi-level boards only), file letter, rank number,
    /// e.g. `3g1` on Gygax Chess, `a10` on Fantasy Grand Chess.
    pub fn name(self, sq: Square) -> String {
        if self.levels > 1 {
            format!("{}{}{}", sq.level(), sq.file(), sq.rank())
        } else {
            format!("{}{}", sq.file(), sq.rank())
        }
    }
    /// Reads a square name written as [`Dims::name`] writes it. The level digit is required
    /// on multi-level boards and refused on single-level ones; ranks have no leading zero.
    ///
    /// # Errors
    /// `None` when the text is not exactly one square of this board.
    pub fn parse_square(self, text: &str) -> Option<Square> {
        let b = text.as_bytes();
        let mut i = 0;
        let level = if self.levels > 1 {
            let d = *b.first()?;
            if !d.is_ascii_digit() {
                return None;
            }
            i = 1;
            d as i32 - b'1' as i32
        } else {
            0
        };
        let file = File::from_char(*b.get(i)? as char)?;
        let digits = &text[i + 1..];
        if digits.is_empty()
            || digits.len() > 2
            || digits.starts_with('0')
            || !digits.bytes().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let rank: i32 = digits.parse().ok()?;
        self.square_at(level, file.0 as i32, rank - 1)
    }
}

/// A set of squares of the 3 × 12 × 12 box (432 bits).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct SquareSet([u64; 7]);

impl SquareSet {
    /// The empty set.
    pub const EMPTY: SquareSet = SquareSet([0; 7]);

    /// Whether `sq` is in the set.
    #[inline]
    pub fn contains(&self, sq: Square) -> bool {
        let i = sq.index();
        self.0[i >> 6] & (1u64 << (i & 63)) != 0
    }
    /// Adds `sq`.
    #[inline]
    pub fn insert(&mut self, sq: Square) {
        let i = sq.index();
        self.0[i >> 6] |= 1u64 << (i & 63);
    }
    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: Square) {
        let i = sq.index();
        self.0[i >> 6] &= !(1u64 << (i & 63));
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    /// Number of squares in the set.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// The squares in both sets.
    pub fn intersection(&self, other: &SquareSet) -> SquareSet {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a &= *b;
        }
        r
    }
    /// The squares in either set.
    pub fn union(&self, other: &SquareSet) -> SquareSet {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a |= *b;
        }
        r
    }
    /// The squares, in ascending index order.
    pub fn iter(&self) -> SquareSetIter {
        SquareSetIter { words: self.0, word: 0 }
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|s| s.index())).finish()
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut s = SquareSet::EMPTY;
        for sq in iter {
            s.insert(sq);
        }
        s
    }
}

/// Iterator over a [`SquareSet`], ascending.
pub struct SquareSetIter {
    words: [u64; 7],
    word: usize,
}

impl Iterator for SquareSetIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        while self.word < 7 {
            let w = self.words[self.word];
            if w != 0 {
                let bit = w.trailing_zeros() as usize;
                self.words[self.word] = w & (w - 1);
                return Some(Square((self.word * 64 + bit) as u16));
            }
            self.word += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_board() {
        for dims in
            [Dims::new(3, 12, 8).unwrap(), Dims::new(1, 12, 12).unwrap(), Dims::new(1, 10, 10).unwrap()]
        {
            let mut n = 0;
            for sq in dims.squares() {
                let name = dims.name(sq);
                assert_eq!(dims.parse_square(&name), Some(sq), "{name}");
                n += 1;
            }
            assert_eq!(n, dims.levels() as usize * dims.files() as usize * dims.ranks() as usize);
        }
    }

    #[test]
    fn square_names_are_written_as_people_write_them() {
        let g = Dims::new(3, 12, 8).unwrap();
        let sq = g.parse_square("3g1").unwrap();
        assert_eq!((sq.level().number(), sq.file().char(), sq.rank().number()), (3, 'g', 1));
        let f = Dims::new(1, 12, 12).unwrap();
        assert_eq!(f.name(f.parse_square("l12").unwrap()), "l12");
        assert_eq!(f.parse_square("a0"), None, "0-based ranks are rejected (rulings 1.1)");
        assert_eq!(f.parse_square("a01"), None);
        assert_eq!(f.parse_square("m1"), None);
        assert_eq!(f.parse_square("a13"), None);
        assert_eq!(g.parse_square("g1"), None, "level digit required on Gygax Chess");
        assert_eq!(g.parse_square("4g1"), None);
        // Regression (found by fuzzing): level digit 0 underflowed.
        assert_eq!(g.parse_square("0c6"), None);
        assert_eq!(g.parse_square("3g9"), None, "Gygax Chess has 8 ranks");
    }

    #[test]
    fn square_set_iterates_in_order() {
        let d = Dims::new(3, 12, 12).unwrap();
        let all: SquareSet = d.squares().collect();
        assert_eq!(all.len(), SQUARE_COUNT);
        let mut prev = None;
        for sq in all.iter() {
            assert!(prev < Some(sq.index()));
            prev = Some(sq.index());
        }
        let mut s = SquareSet::EMPTY;
        s.insert(Square::from_index(431).unwrap());
        s.insert(Square::from_index(0).unwrap());
        s.remove(Square::from_index(0).unwrap());
        assert_eq!(s.iter().map(|q| q.index()).collect::<Vec<_>>(), vec![431]);
    }
}
