//! The answers of a decision's candidate questions ([`crate::playouts`]: `live-candidates`,
//! `candidates`, `try-candidate`, keyed by operator, player, configuration and candidate),
//! remembered so that a position met again is not asked again.
//!
//! A fixed table, direct-mapped and lossy: a new answer replaces the one in its slot. A
//! hash map of every answer grew to some 215,000 entries in a Quoridor 5 × 5 decision of
//! 3,000 simulations (a third of the questions hit), and its probes and growth, out of the
//! processor's caches, were 15% of the decision's samples (`perf record`); it also grew
//! without bound with the simulations. The table's slots stay allocated
//! between decisions and are emptied by a new generation, not by writing them all.
//! Answers lost to a collision are asked of the engine again, whose call cache may still
//! know them: the same values, a few more rewrites.

use gamelang_runtime::TermId;
use std::hash::{Hash, Hasher};

/// Slots of the table (24 bytes each: 3 MiB). Against the hash map, simulations per CPU
/// second of `gamelang playout examples/quoridor.game --set n=5 --mcts 3000` (median of 12
/// runs each, alternated): +4.5%, and of 9 × 9 with `--mcts 500` (6 runs): +8.5%.
const SLOTS: usize = 1 << 17;

#[derive(Clone, Copy)]
struct Slot {
    key: [u32; 4],
    value: u32,
    /// The generation the answer was put in: an older one is an empty slot.
    generation: u32,
}

/// See the module documentation.
#[derive(Default)]
pub struct Answers {
    slots: Vec<Slot>,
    /// The current generation (slots of another are empty); starts at 1, so that a new
    /// table's zeroed slots are empty.
    generation: u32,
}

impl Answers {
    fn slot(key: &[u32; 4]) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        key.hash(&mut h);
        // The high bits: FxHash mixes the last word into them most.
        (h.finish() >> 32) as usize & (SLOTS - 1)
    }

    /// The answer put for `key` in this generation, if it is still there.
    #[inline]
    pub(crate) fn get(&self, key: &[u32; 4]) -> Option<TermId> {
        let s = self.slots.get(Self::slot(key))?;
        (s.generation == self.generation && s.key == *key).then_some(TermId(s.value))
    }

    /// Remember `value` for `key` (in place of whatever its slot held).
    #[inline]
    pub(crate) fn put(&mut self, key: [u32; 4], value: TermId) {
        if self.slots.is_empty() {
            let empty = Slot {
                key: [0; 4],
                value: 0,
                generation: 0,
            };
            self.slots = vec![empty; SLOTS];
            self.generation = self.generation.max(1);
        }
        let generation = self.generation;
        self.slots[Self::slot(&key)] = Slot {
            key,
            value: value.0,
            generation,
        };
    }

    /// Forget every answer (between decisions, and where the engine collects garbage,
    /// which may reuse the terms' ids).
    pub(crate) fn clear(&mut self) {
        if self.generation == u32::MAX {
            // Generations wrapped round: empty the slots for real.
            self.slots.clear();
            self.generation = 0;
        }
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is put is found until it is replaced in its slot or cleared; a cleared table
    /// finds nothing, and takes answers again.
    #[test]
    fn answers_are_found_until_replaced_or_cleared() {
        let mut a = Answers::default();
        let keys: Vec<[u32; 4]> = (0..1000u32).map(|i| [7, i % 2, i, u32::MAX]).collect();
        assert!(a.get(&keys[0]).is_none());
        for (i, k) in keys.iter().enumerate() {
            a.put(*k, TermId(i as u32 + 10));
        }
        for (i, k) in keys.iter().enumerate() {
            // A later key may have taken the slot: then it answers for itself only.
            match a.get(k) {
                Some(v) => assert_eq!(v, TermId(i as u32 + 10)),
                None => assert!(keys[i + 1..]
                    .iter()
                    .any(|l| Answers::slot(l) == Answers::slot(k))),
            }
        }
        a.clear();
        assert!(keys.iter().all(|k| a.get(k).is_none()));
        a.put(keys[3], TermId(99));
        assert_eq!(a.get(&keys[3]), Some(TermId(99)));
        // Across the wrap of the generations, a cleared table is still empty.
        a.generation = u32::MAX;
        a.put(keys[4], TermId(5));
        a.clear();
        assert!(a.get(&keys[4]).is_none() && a.get(&keys[3]).is_none());
        a.put(keys[4], TermId(6));
        assert_eq!(a.get(&keys[4]), Some(TermId(6)));
    }
}
