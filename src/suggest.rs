//! Hints for a release the catalog does not know (`unknown-release`, issue 18): the known
//! versions nearest to the one asked for, or product names close to a product the catalog
//! has never heard of.
//!
//! Rules, all deterministic:
//! - nearest versions: the orderable releases closest in SPEC order to the version asked for
//!   (a non-orderable one, which has no place in the order, stands at the release of its
//!   `major.minor.patch`), taken alternately from just below and just above (below first), at
//!   most [`MAX_HINTS`], listed ascending; with no orderable release at all, the releases in
//!   display order;
//! - close products: edit distance (Levenshtein with adjacent transpositions counted once) on
//!   the whole `group:name` text, kept when it is at most a third of the length of the name
//!   asked for (at least 1), and always kept when only the group differs; those come first,
//!   then by distance, then by text; at most [`MAX_HINTS`].

use crate::product::ProductId;
use crate::version::{OrderKey, Version};

/// The most versions or products a hint lists.
pub const MAX_HINTS: usize = 3;

/// The known versions nearest to `wanted`, ascending in SPEC order (see the module rules).
/// `known` is in the catalog's display order (orderable ascending, then non-orderable).
#[must_use]
pub fn nearest_versions<'a>(wanted: &Version, known: &'a [&'a Version]) -> Vec<&'a Version> {
    let orderable: Vec<&Version> = known.iter().copied().filter(|v| v.is_orderable()).collect();
    if orderable.is_empty() {
        return known.iter().copied().take(MAX_HINTS).collect();
    }
    let anchor = if wanted.is_orderable() {
        wanted.order_key()
    } else {
        Some(OrderKey::release(
            wanted.major(),
            wanted.minor(),
            wanted.patch(),
        ))
    };
    let split = orderable.partition_point(|v| v.order_key() < anchor);
    let (mut below, mut above) = (split, split);
    let mut picked = Vec::new();
    while picked.len() < MAX_HINTS && (below > 0 || above < orderable.len()) {
        if below > 0 {
            below -= 1;
            picked.push(below);
        }
        if picked.len() < MAX_HINTS && above < orderable.len() {
            picked.push(above);
            above += 1;
        }
    }
    picked.sort_unstable();
    picked.into_iter().map(|i| orderable[i]).collect()
}

/// Products whose names are close to `wanted` (see the module rules).
#[must_use]
pub fn similar_products<'a>(
    wanted: &ProductId,
    known: impl IntoIterator<Item = &'a ProductId>,
) -> Vec<&'a ProductId> {
    let text = wanted.to_string();
    let most = (wanted.name().chars().count() / 3).max(1);
    let mut close: Vec<(bool, usize, String, &ProductId)> = known
        .into_iter()
        .filter_map(|p| {
            let other = p.to_string();
            let distance = edit_distance(&text, &other);
            let same_name = p.name() == wanted.name();
            (distance <= most || same_name).then_some((!same_name, distance, other, p))
        })
        .collect();
    close.sort();
    close
        .into_iter()
        .take(MAX_HINTS)
        .map(|(_, _, _, p)| p)
        .collect()
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// adjacent characters each cost 1.
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the dynamic programme: two back, one back, current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_nearest(wanted: &str, known: &[&str], expected: &[&str]) {
        let known: Vec<Version> = known.iter().map(|v| Version::parse(v).unwrap()).collect();
        let mut refs: Vec<&Version> = known.iter().collect();
        refs.sort_by(|a, b| a.display_cmp(b));
        let got: Vec<&str> = nearest_versions(&Version::parse(wanted).unwrap(), &refs)
            .iter()
            .map(|v| v.as_str())
            .collect();
        assert_eq!(got, expected, "nearest to {wanted}");
    }

    #[test]
    fn nearest_versions_straddle_the_wanted_one() {
        let web = ["2.3.0", "2.4.0", "2.4.1-3-gabc1234", "3.0.0"];
        check_nearest("2.5.0", &web, &["2.4.0", "2.4.1-3-gabc1234", "3.0.0"]);
        check_nearest("1.0.0", &web, &["2.3.0", "2.4.0", "2.4.1-3-gabc1234"]);
        check_nearest("9.0.0", &web, &["2.4.0", "2.4.1-3-gabc1234", "3.0.0"]);
        check_nearest("2.4.0-rc1", &web, &["2.3.0", "2.4.0", "2.4.1-3-gabc1234"]);
        check_nearest("2.0.0", &["1.0.0", "3.0.0"], &["1.0.0", "3.0.0"]);
        check_nearest("2.0.0", &["1.0.0"], &["1.0.0"]);
        check_nearest("2.0.0", &[], &[]);
        // a non-orderable version stands at its major.minor.patch
        check_nearest(
            "2.4.0-custom",
            &web,
            &["2.3.0", "2.4.0", "2.4.1-3-gabc1234"],
        );
        check_nearest(
            "9.0.0-custom",
            &web,
            &["2.4.0", "2.4.1-3-gabc1234", "3.0.0"],
        );
        // only non-orderable releases: listed as the catalog lists them
        check_nearest("1.0.0", &["1.0.0-b", "1.0.0-a"], &["1.0.0-a", "1.0.0-b"]);
    }

    #[track_caller]
    fn check_similar(wanted: &str, known: &[&str], expected: &[&str]) {
        let known: Vec<ProductId> = known.iter().map(|p| ProductId::parse(p).unwrap()).collect();
        let got: Vec<String> = similar_products(&ProductId::parse(wanted).unwrap(), &known)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got, expected, "similar to {wanted}");
    }

    #[test]
    fn similar_products_by_edit_distance_then_name() {
        let known = [
            "com.example:api",
            "com.example:web",
            "com.example:auth",
            "io.redis:redis",
            "org.postgresql:postgresql",
        ];
        check_similar("com.example:wbe", &known, &["com.example:web"]);
        check_similar("org.redis:redis", &known, &["io.redis:redis"]);
        check_similar(
            "org.postgres:postgresql",
            &known,
            &["org.postgresql:postgresql"],
        );
        check_similar("net.other:thing", &known, &[]);
        check_similar("com.example:ap", &known, &["com.example:api"]);
        check_similar("com.example:xyz", &known, &[]);
        // at most three, closest first, then by text
        let many = ["g:ab", "g:ac", "g:ad", "g:ae", "h:aa"];
        check_similar("g:aa", &many, &["h:aa", "g:ab", "g:ac"]);
    }

    #[test]
    fn edit_distance_counts_a_swap_once() {
        assert_eq!(edit_distance("web", "wbe"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
