//! The transposition table: one entry per slot, keyed by the position's Zobrist hash
//! (kept incrementally by the engine as pieces are put and taken), replaced when the new
//! entry is as deep or the old one is from an earlier search.

use crate::engine::Move;

/// What a stored score says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The exact score.
    Exact,
    /// At least this (a move failed high).
    Lower,
    /// At most this (every move failed low).
    Upper,
}

/// One stored result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub best: Option<Move>,
    /// Score as stored: mate scores relative to this node (see `pvs::to_tt`).
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    pub age: u8,
}

/// A table of `2^k` entries.
pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of at least `entries` slots (rounded up to a power of two, at least 1024).
    pub fn new(entries: usize) -> Table {
        let n = entries.max(1024).next_power_of_two();
        Table { slots: vec![None; n], mask: n - 1, age: 0 }
    }

    /// Marks the entries written so far as older than the next ones.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// The entry of `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask].filter(|e| e.key == key)
    }

    /// Stores a result for `key`.
    pub fn store(&mut self, key: u64, best: Option<Move>, score: i32, depth: i16, bound: Bound) {
        let slot = &mut self.slots[key as usize & self.mask];
        let replace = match slot {
            None => true,
            Some(old) => old.key == key || old.age != self.age || depth >= old.depth,
        };
        if replace {
            // Keep a known best move when a shallower result of the same position has none.
            let best = best.or_else(|| slot.filter(|e| e.key == key).and_then(|e| e.best));
            *slot = Some(Entry { key, best, score, depth, bound, age: self.age });
        }
    }
}
