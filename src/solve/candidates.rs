//! Candidates (SPEC section 7, 9.3): which catalog releases a product may be planned to under
//! the command's flags and the operator's policy, and every reason one is left out.

use super::model::Var;

/// Which catalog releases may be planned to (SPEC section 7, Candidates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Release candidates and snapshots are candidates too.
    pub pre: bool,
    /// Older releases are candidates too.
    pub allow_downgrade: bool,
    /// Products that are not installed may be installed.
    pub allow_install: bool,
}

/// Why a catalog release is not among a product's values (SPEC section 7, Candidates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exclusion {
    /// The product is not installed and `--allow-install` is off.
    NotInstalled,
    /// A release candidate or snapshot, and `--pre` is off.
    Prerelease,
    /// Older than the installed version, and `--allow-downgrade` is off.
    Older,
    /// The release breaks section 3 or 4 (it is never planned to).
    Invalid,
    /// Not a change: every entity already runs it (the product's `Keep` value is the same).
    Installed,
    /// A non-orderable version has no place in the order (never planned to).
    Unorderable,
    /// The product is pinned by the operator's policy (SPEC 9.2): it never moves.
    Pinned,
    /// The release is excluded by the operator's policy.
    Excluded,
    /// The release is deprecated, and the policy does not allow deprecated releases.
    Deprecated,
    /// The release requires a runtime version the environment does not run (SPEC 9.1).
    Runtime,
}

impl Policy {
    /// This policy with the rule `flag` names lifted (`--pre`, `--allow-downgrade`,
    /// `--allow-install`, as [`Exclusion::flag`] names them); another flag changes nothing.
    #[must_use]
    pub fn lifting(mut self, flag: &str) -> Policy {
        match flag {
            "--pre" => self.pre = true,
            "--allow-downgrade" => self.allow_downgrade = true,
            "--allow-install" => self.allow_install = true,
            _ => {}
        }
        self
    }
}

impl Exclusion {
    /// The flag that lifts it, if one does.
    #[must_use]
    pub fn flag(self) -> Option<&'static str> {
        match self {
            Exclusion::NotInstalled => Some("--allow-install"),
            Exclusion::Prerelease => Some("--pre"),
            Exclusion::Older => Some("--allow-downgrade"),
            Exclusion::Invalid
            | Exclusion::Installed
            | Exclusion::Unorderable
            | Exclusion::Pinned
            | Exclusion::Excluded
            | Exclusion::Deprecated
            | Exclusion::Runtime => None,
        }
    }
}

impl Var<'_> {
    /// Why release `i` is not a value of this product under `policy`, or `None` when it is
    /// (the first of [`Var::exclusions`]).
    #[must_use]
    pub fn exclusion(&self, i: usize, policy: Policy) -> Option<Exclusion> {
        self.exclusions(i, policy).first().copied()
    }

    /// Every reason release `i` is not a value under `policy`, the ones no flag lifts first
    /// (an older release candidate needs both `--pre` and `--allow-downgrade`).
    #[must_use]
    pub fn exclusions(&self, i: usize, policy: Policy) -> Vec<Exclusion> {
        let candidate = &self.releases[i].version;
        let installed = self.installed_version();
        let mut out = Vec::new();
        if installed.is_some_and(|v| *candidate == *v) {
            // Moving every entity to the installed version is a change only when the
            // entities run different versions today.
            let aligned = self
                .current
                .windows(2)
                .all(|w| w[0].version.as_str() == w[1].version.as_str());
            if aligned {
                out.push(Exclusion::Installed);
            }
        } else {
            if !candidate.is_orderable() {
                out.push(Exclusion::Unorderable);
            }
            if candidate.is_orderable() && !(candidate.is_release() || policy.pre) {
                out.push(Exclusion::Prerelease);
            }
            // A non-orderable installed version has no place in the order: any release may
            // follow it.
            if installed
                .is_some_and(|v| v.is_orderable() && *candidate < *v && !policy.allow_downgrade)
            {
                out.push(Exclusion::Older);
            }
        }
        if !self.releases[i].is_valid() {
            out.push(Exclusion::Invalid);
        }
        if !self.operator.is_empty() || self.releases[i].facets.is_some() {
            self.operator_exclusions(i, &mut out);
        }
        if !self.installed() && !policy.allow_install {
            out.push(Exclusion::NotInstalled);
        }
        out.sort_by_key(|e| e.flag().is_some());
        out
    }
}

impl Var<'_> {
    /// What the operator's policy says about release `i` (SPEC 9.3, Candidates).
    fn operator_exclusions(&self, i: usize, out: &mut Vec<Exclusion>) {
        let release = &self.releases[i];
        if self.operator.pin.contains(&self.product) && !out.contains(&Exclusion::Installed) {
            out.push(Exclusion::Pinned);
        }
        if self.operator.excluding(release, "").is_some() {
            out.push(Exclusion::Excluded);
        }
        if release.facets().deprecated.is_some() && !self.operator.allow_deprecated {
            out.push(Exclusion::Deprecated);
        }
        let runtime = crate::constraint::World::new(Vec::new(), self.runtime);
        if release.facets().runtime.iter().any(|r| {
            matches!(
                runtime.runtime_need(r),
                crate::constraint::Need::RuntimeMismatch(_)
            )
        }) {
            out.push(Exclusion::Runtime);
        }
    }
}
