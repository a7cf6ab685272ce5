//! One long folder said once: a compiler run from a build tool names every file by its
//! absolute path (`w: file:///home/me/src/app/src/main/kotlin/com/acme/app/Repo.kt:12:5 …`),
//! the same forty or more characters on every line. When four or more lines of a reduced
//! output name files under one such folder, the folder is written once in a note above them
//! and `…/` stands for it in the lines: every path can still be read whole.

/// Fewest lines naming a file under the folder.
const MIN_LINES: usize = 4;
/// Shortest folder said once (shorter ones cost about what the note does).
const MIN_PREFIX: usize = 24;
/// What stands for the folder in the lines.
pub const MARK: &str = "…/";

/// The folder of the first absolute path in `line` (`/…/` or `file:///…/`, starting the
/// line or after a space, a bracket, a parenthesis or a quote), with its last `/`.
fn first_folder(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(k) = memchr::memchr(b'/', &b[from..]).map(|k| from + k) {
        let start = if line[..k].ends_with("file:") && line[k..].starts_with("///") {
            k - "file:".len()
        } else {
            k
        };
        let at_token = start == 0 || matches!(b[start - 1], b' ' | b'[' | b'(' | b'"' | b'\'');
        let end = b[k..]
            .iter()
            .position(|c| c.is_ascii_whitespace() || matches!(c, b':' | b'"' | b'\'' | b')' | b']'))
            .map_or(b.len(), |e| k + e);
        if at_token {
            let token = &line[start..end];
            if let Some(last) = token.rfind('/') {
                if token[..last].matches('/').count() >= 2 {
                    return Some(&token[..=last]);
                }
            }
        }
        from = end.max(k + 1);
    }
    None
}

/// The folder that every line naming an absolute path names it under, when four or more
/// do and it is long enough to be worth saying once: the longest such prefix, ending with
/// `/`. One line under an unrelated folder leaves none.
fn common_folder(lines: &[String]) -> Option<String> {
    let folders: Vec<&str> = lines.iter().filter_map(|l| first_folder(l)).collect();
    if folders.len() < MIN_LINES {
        return None;
    }
    let first = folders[0];
    let prefix = &first[..super::text::common_prefix_len(first, &folders[1..])];
    let prefix = &prefix[..prefix.rfind('/')? + 1];
    (prefix.len() >= MIN_PREFIX && prefix.matches('/').count() >= 3).then(|| prefix.to_string())
}

/// `lines` with the folder four or more of them name files under said once (see the module
/// note): the note line first, then the lines with `…/` for the folder. None when no folder
/// is worth it.
pub fn factor_folder(lines: &[String]) -> Option<Vec<String>> {
    let prefix = common_folder(lines)?;
    let mut out = Vec::with_capacity(lines.len() + 1);
    out.push(format!("[{MARK} stands for {prefix}]"));
    out.extend(lines.iter().map(|l| l.replace(&prefix, MARK)));
    Some(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `text`'s lines, owned, as the reduction's shown lines are.
    pub(crate) fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_long_folder_named_on_many_lines_is_said_once() {
        let dir = "file:///home/me/src/shop/src/main/kotlin/com/acme/shop/";
        let text = format!(
            "w: {dir}model/Item.kt:12:5 Parameter 'id' is never used\n\
             w: {dir}model/Cart.kt:15:5 Parameter 'name' is never used\n\
             w: {dir}Repo.kt:23:9 Variable 'result' is never read\n\
             e: {dir}RepoImpl.kt:87:5: error: Unresolved reference: nope\n\
             > Task :compileKotlin FAILED\n"
        );
        let out = factor_folder(&lines(&text)).unwrap();
        assert_eq!(out[0], format!("[…/ stands for {dir}]"));
        assert_eq!(
            out[1],
            "w: …/model/Item.kt:12:5 Parameter 'id' is never used"
        );
        assert_eq!(
            out[4],
            "e: …/RepoImpl.kt:87:5: error: Unresolved reference: nope"
        );
        assert_eq!(out[5], "> Task :compileKotlin FAILED");
        // every path reads whole again with the folder put back
        for (a, b) in lines(&text).iter().zip(&out[1..]) {
            assert_eq!(*a, b.replace(MARK, dir));
        }
    }

    #[test]
    fn short_or_few_or_mixed_folders_stay() {
        // three lines are too few
        let three = "/home/me/project/src/a.c:1: warning: x\n/home/me/project/src/b.c:2: warning: y\n/home/me/project/src/c.c:3: warning: z\n";
        assert!(factor_folder(&lines(three)).is_none());
        // a short common folder is not worth a note
        let short = "/src/a.c:1: x\n/src/b.c:2: x\n/src/c.c:3: x\n/src/d.c:4: x\n";
        assert!(factor_folder(&lines(short)).is_none());
        // folders that share only their root
        let mixed = "/usr/include/stdio.h:1: x\n/home/me/project/a.c:2: x\n/opt/lib/x/y.h:3: x\n/var/tmp/build/z.c:4: x\n";
        assert!(factor_folder(&lines(mixed)).is_none());
        // one line under an unrelated folder leaves every path as it came
        let project = "/home/me/project/src/app/a.c:1: x\n/home/me/project/src/app/b.c:2: x\n\
                       /home/me/project/src/app/c.c:3: x\n/home/me/project/src/app/d.c:4: x\n";
        assert!(factor_folder(&lines(project)).is_some());
        let with_system = format!("{project}/usr/include/stdio.h:9: note: declared here\n");
        assert!(factor_folder(&lines(&with_system)).is_none());
        // a slash inside a word or a URL's path is no file's folder
        let words =
            "and/or then/now a/b/c/d\nhttps://example.com/a/b/c/\nx and/or y\nsee a/b/c/d/e\n";
        assert!(factor_folder(&lines(words)).is_none());
    }
}
