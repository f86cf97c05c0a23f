//! The CDCL solver (batsat) with its variable manager: fresh literals with a preferred
//! polarity, clauses, at-most-one constraints, and reading an answer. Shared by the engine's
//! questions and its conflict search.

use std::cell::Cell;
use std::time::Instant;

use batsat::{SolverInterface, lbool};
use rustsat::instances::{BasicVarManager, ManageVars};
use rustsat::solvers::SolverResult;
use rustsat::types::Lit;

pub(super) struct Cnf {
    pub solver: rustsat_batsat::BasicSolver,
    pub vars: BasicVarManager,
    /// The clause being added, in batsat's terms (one buffer for every clause).
    buffer: Vec<batsat::Lit>,
    /// Per variable, whether some clause has it un-negated (debug builds check what the
    /// conflict search's minimization relies on: see [`Cnf::un_negated`]).
    #[cfg(debug_assertions)]
    positive: Vec<bool>,
}

impl Cnf {
    /// An empty formula whose solver stops at `deadline`. batsat asks whether to stop at
    /// every decision: the clock is read at every 64th question only (a tenth of a search's
    /// time went to reading it, measured), and once past the deadline the answer stays yes.
    pub fn new(deadline: Option<Instant>) -> Self {
        let mut solver = rustsat_batsat::BasicSolver::default();
        if let Some(deadline) = deadline {
            let asked = Cell::new(0u32);
            let past = Cell::new(false);
            solver.batsat_mut().cb_mut().set_stop(move || {
                asked.set(asked.get().wrapping_add(1));
                if !past.get() && asked.get().is_multiple_of(64) {
                    past.set(Instant::now() >= deadline);
                }
                past.get()
            });
        }
        Cnf {
            solver,
            vars: BasicVarManager::default(),
            buffer: Vec::new(),
            #[cfg(debug_assertions)]
            positive: Vec::new(),
        }
    }

    /// A new variable whose decisions prefer `prefer`.
    pub fn fresh(&mut self, prefer: bool) -> Lit {
        self.variable(if prefer { lbool::TRUE } else { lbool::FALSE }, true)
    }

    /// A new variable in both the manager and batsat (which numbers them alike), preferring
    /// `polarity`, decided by the solver or not.
    fn variable(&mut self, polarity: lbool, decided: bool) -> Lit {
        let var = self.vars.new_var();
        let inner = self.solver.batsat_mut();
        while inner.num_vars() < var.idx32() {
            inner.new_var_default();
        }
        inner.new_var(polarity, decided);
        var.pos_lit()
    }

    /// Adds the clause straight to batsat: through rustsat each clause was copied into two
    /// fresh vectors first, and the engine adds about a million clauses on the hard family
    /// at 1,000 products (every literal's variable exists: [`Cnf::fresh`] makes it). rustsat
    /// does not see these clauses, so its cached answer of `Solve::solve` would be stale:
    /// every question goes through `solve_assumps`, which always asks batsat.
    pub fn add(&mut self, lits: &[Lit]) {
        let inner = self.solver.batsat_mut();
        self.buffer.clear();
        self.buffer.extend(
            lits.iter()
                .map(|l| batsat::Lit::new(inner.var_of_int(l.vidx32()), l.is_pos())),
        );
        inner.add_clause_reuse(&mut self.buffer);
        #[cfg(debug_assertions)]
        for l in lits.iter().filter(|l| l.is_pos()) {
            if self.positive.len() <= l.vidx() {
                self.positive.resize(l.vidx() + 1, false);
            }
            self.positive[l.vidx()] = true;
        }
    }

    /// Whether a clause has `lit`'s variable un-negated (tracked in debug builds only).
    #[cfg(debug_assertions)]
    pub fn un_negated(&self, lit: Lit) -> bool {
        self.positive.get(lit.vidx()).copied().unwrap_or(false)
    }

    /// A new variable the solver never decides: only propagation sets it, and an answer may
    /// leave it unset. Only for auxiliaries whose clauses any answer to the other variables
    /// extends to (see [`Cnf::at_most_one`]); nothing reads them.
    ///
    /// Deciding them was wasted work: batsat assigns every decision variable before it
    /// answers, and most calls of the conflict search and the engine answer with few
    /// conflicts, so a call's cost is about the variables it assigns. With the at-most-one
    /// counters' and the objective totalizers' auxiliaries never decided, `upgrades` on the
    /// hard family at 1,000 went from 6.67 to 6.17 G instructions, with capabilities from
    /// 14.3 to 12.7 G.
    fn aux(&mut self) -> Lit {
        self.variable(lbool::FALSE, false)
    }

    /// The clauses `encode` collects (given the variable manager), each variable they bring
    /// made never decided ([`Cnf::aux`]): for encodings whose auxiliaries any answer to the
    /// other variables extends to. `encode`'s answer is passed on (its clauses are added
    /// either way).
    pub fn auxiliary(
        &mut self,
        encode: impl FnOnce(&mut rustsat::instances::Cnf, &mut BasicVarManager) -> bool,
    ) -> bool {
        let before = self.vars.n_used();
        let mut clauses = rustsat::instances::Cnf::new();
        let done = encode(&mut clauses, &mut self.vars);
        let inner = self.solver.batsat_mut();
        while inner.num_vars() < before {
            inner.new_var_default();
        }
        for _ in before..self.vars.n_used() {
            inner.new_var(lbool::FALSE, false);
        }
        for clause in clauses {
            self.add(&clause[..]);
        }
        done
    }

    /// At most one of `lits`: pairwise for small sets, a sequential counter (one auxiliary
    /// per literal) otherwise. The counter's auxiliaries are never decided ([`Cnf::aux`]):
    /// with one of `lits` true, propagation sets every one of them (up the chain from it,
    /// down from the one before it); with two, it meets a conflict; with none, its clauses
    /// hold with every auxiliary it left unset false (what it set true is closed upwards,
    /// what it set false downwards), and learnt clauses follow from the formula.
    pub fn at_most_one(&mut self, lits: &[Lit]) {
        if lits.len() <= 6 {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.add(&[!a, !b]);
                }
            }
            return;
        }
        let mut prev: Option<Lit> = None;
        for (i, &x) in lits.iter().enumerate() {
            if let Some(s) = prev {
                self.add(&[!x, !s]);
            }
            if i + 1 < lits.len() {
                let s = self.aux();
                self.add(&[!x, s]);
                if let Some(before) = prev {
                    self.add(&[!before, s]);
                }
                prev = Some(s);
            }
        }
    }

    /// Solves under the assumptions `assumed`, straight through batsat: rustsat's wrapper
    /// copies the assumptions and times every call with a thread CPU clock (a system call
    /// each, and the engine makes tens of thousands of calls per command), for statistics
    /// nobody reads. [`Cnf::failed`] and [`Cnf::holds`] read batsat's answer likewise.
    pub fn solve(&mut self, assumed: &[Lit]) -> SolverResult {
        let inner = self.solver.batsat_mut();
        self.buffer.clear();
        self.buffer.extend(
            assumed
                .iter()
                .map(|l| batsat::Lit::new(inner.var_of_int(l.vidx32()), l.is_pos())),
        );
        let answer = inner.solve_limited(&self.buffer);
        if answer == lbool::TRUE {
            SolverResult::Sat
        } else if answer == lbool::FALSE {
            SolverResult::Unsat
        } else {
            SolverResult::Interrupted
        }
    }

    /// The literals of `assumed` the last unsatisfiable answer failed on (batsat's core is a
    /// subset of the assumptions; matched by variable, in `assumed`'s order).
    pub fn failed(&self, assumed: &[Lit]) -> Vec<Lit> {
        let inner = self.solver.batsat_ref();
        assumed
            .iter()
            .copied()
            .filter(|&l| inner.unsat_core_contains_var(var(l)))
            .collect()
    }

    /// True when the last answer sets `lit`.
    pub fn holds(&self, lit: Lit) -> bool {
        let lit = batsat::Lit::new(var(lit), lit.is_pos());
        self.solver.batsat_ref().value_lit(lit) == lbool::TRUE
    }
}

/// batsat's variable of `lit` ([`Cnf::fresh`] made it, so it exists).
fn var(lit: Lit) -> batsat::Var {
    batsat::Var::unsafe_from_idx(lit.vidx32())
}
