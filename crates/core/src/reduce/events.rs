//! Gradle names each test it reports with its class and a blank line before it
//! (`CartTest > adds two items() SKIPPED`). A run of three or more such lines with one class
//! and one outcome says the class, the count and the outcome once, then one test name per
//! line: every name stays, the class repeated on each line goes.

/// Fewest tests in a run worth a heading.
const MIN_RUN: usize = 3;

/// Outcomes grouped: a FAILED line is followed by its exception and stays as it came.
const OUTCOMES: [&str; 2] = [" SKIPPED", " PASSED"];

/// `Class > test name OUTCOME`: the class, the test's name and the outcome.
fn event(line: &str) -> Option<(&str, &str, &str)> {
    let outcome = OUTCOMES.iter().find(|o| line.ends_with(*o))?;
    let (class, name) = line[..line.len() - outcome.len()].split_once(" > ")?;
    let class_ok = !class.is_empty() && !class.contains(char::is_whitespace);
    (class_ok && !name.trim().is_empty()).then_some((class, name, &outcome[1..]))
}

/// `lines` with each run of one class's tests of one outcome (blank lines between them
/// dropped) said under one heading (see the module note). None when there is no such run.
pub fn group_test_events(lines: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut grouped = false;
    let mut i = 0;
    while i < lines.len() {
        if let Some((class, _, outcome)) = event(&lines[i]) {
            let mut names = Vec::new();
            let (mut j, mut end) = (i, i);
            while j < lines.len() {
                match event(&lines[j]) {
                    Some((c, name, o)) if c == class && o == outcome => {
                        names.push(name);
                        j += 1;
                        end = j;
                    }
                    None if lines[j].trim().is_empty() => j += 1,
                    _ => break,
                }
            }
            if names.len() >= MIN_RUN {
                out.push(format!("{class} > {} tests {outcome}:", names.len()));
                out.extend(names.iter().map(|n| format!("  {n}")));
                grouped = true;
                i = end;
                continue;
            }
        }
        out.push(lines[i].clone());
        i += 1;
    }
    grouped.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::paths::tests::lines;

    #[test]
    fn one_class_s_skipped_tests_are_named_under_one_heading() {
        let text = "\
> Task :test

CartTest > adds two items() SKIPPED

CartTest > removes an item() SKIPPED

CartTest > empties the cart() SKIPPED

CartTest > totals > in euros() FAILED
    java.lang.AssertionError at CartTest.kt:40

PriceTest > rounds() SKIPPED

PriceTest > formats() SKIPPED

BUILD FAILED in 3s";
        let out = group_test_events(&lines(text)).unwrap();
        assert_eq!(
            out,
            lines(
                "\
> Task :test

CartTest > 3 tests SKIPPED:
  adds two items()
  removes an item()
  empties the cart()

CartTest > totals > in euros() FAILED
    java.lang.AssertionError at CartTest.kt:40

PriceTest > rounds() SKIPPED

PriceTest > formats() SKIPPED

BUILD FAILED in 3s"
            )
        );
    }

    #[test]
    fn outcomes_and_classes_are_not_mixed_and_prose_is_no_test() {
        let text = "\
A > a() PASSED
A > b() SKIPPED
A > c() PASSED
B > d() PASSED
B > e() PASSED
> Task :x SKIPPED
> Task :y SKIPPED
> Task :z SKIPPED
if a > b then SKIPPED
if a > c then SKIPPED
if a > d then SKIPPED";
        assert!(group_test_events(&lines(text)).is_none());
        let passed = "A > a() PASSED\nA > b() PASSED\nA > c() PASSED\n\nnext";
        assert_eq!(
            group_test_events(&lines(passed)).unwrap(),
            lines("A > 3 tests PASSED:\n  a()\n  b()\n  c()\n\nnext")
        );
    }
}
