//! The one processing a declaration receives (design §2): Unicode NFKC, full case fold,
//! whitespace runs collapsed to one space, trimmed. Stored forms are kept as written; the
//! normalized twin is what lookups compare, so two spellings that normalize alike name
//! one entity.

use crate::base::nfkc::nfkc;

/// The normalized twin of a name, alias, predicate or query.
///
/// Case folding is full folding as Python's `str.casefold` does it for the scripts a
/// memory meets: Unicode lowercase, plus the folds lowercase leaves alone (`ß`/`ẞ` → `ss`,
/// final `ς` → `σ`). NFKC runs again after the fold so a fold that yields a decomposable
/// sequence still compares equal to its composed form.
pub fn normalize(text: &str) -> String {
    let folded: String = nfkc(text).chars().flat_map(char::to_lowercase).flat_map(full_fold).collect();
    let folded = nfkc(&folded);
    let mut out = String::with_capacity(folded.len());
    for word in folded.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The full case folds that `char::to_lowercase` does not make.
fn full_fold(c: char) -> impl Iterator<Item = char> {
    let (a, b) = match c {
        'ß' | 'ẞ' => ('s', Some('s')),
        'ς' => ('σ', None),
        _ => (c, None),
    };
    std::iter::once(a).chain(b)
}

#[cfg(test)]
mod tests {
    use super::normalize;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn half_and_full_width_katakana_are_one() {
        assert_eq!(normalize("ﾐｽﾞｱｲ"), normalize("ミズアイ"));
        assert_eq!(normalize("ﾐｽﾞｱｲ"), "ミズアイ");
    }

    #[test]
    fn fullwidth_latin_folds_to_ascii() {
        assert_eq!(normalize("ＫＭ"), "km");
        assert_eq!(normalize("Ｍｉｚｅｙｅ"), "mizeye");
    }

    #[test]
    fn ligatures_and_case_fold() {
        assert_eq!(normalize("ﬁle"), "file");
        assert_eq!(normalize("Straße"), "strasse");
        assert_eq!(normalize("STRASSE"), normalize("straße"));
        assert_eq!(normalize("ΟΔΟΣ"), normalize("οδος"));
        assert_eq!(normalize("ÀB"), normalize("àb"));
    }

    #[test]
    fn whitespace_runs_collapse_and_trim() {
        assert_eq!(normalize("  Kaito \t\n Mori\u{00A0}\u{3000}san "), "kaito mori san");
        assert_eq!(normalize("\u{2003}"), "");
    }

    #[test]
    fn composed_and_decomposed_are_one() {
        assert_eq!(normalize("e\u{0301}"), normalize("\u{00E9}"));
        assert_eq!(normalize("ガ"), normalize("カ\u{3099}"));
    }
}
