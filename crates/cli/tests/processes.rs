//! Nothing of a wrapped command outlives `wrap` or hangs it: a reader that goes away stops a
//! streamed command as it would stop it without us, and a SIGKILL to `wrap` (which cannot be
//! caught) or to the agent's process group still ends the whole command tree.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::bin;

/// Waits for `child` at most `limit`; kills it and fails when it does not end.
fn wait_or_fail(child: &mut std::process::Child, limit: Duration, what: &str) -> i32 {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code().unwrap_or(-1);
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_streamed_command_ends_when_its_reader_goes_away() {
    // `tokenjuice wrap --raw -- yes | head -1`
    let mut c = Command::new(bin())
        .args(["wrap", "--raw", "--no-stats", "--", "yes"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(c.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "y\n");
    // the reader is gone now (stdout dropped above)
    let code = wait_or_fail(&mut c, Duration::from_secs(10), "wrap --raw -- yes");
    assert_eq!(code, 141, "yes ended by SIGPIPE, as in `yes | head -1`");
}

#[test]
fn reduce_stops_reading_when_its_reader_goes_away() {
    // `yes | tokenjuice reduce --raw | head -1`: the same driver as wrap, so the same ending
    let mut c = Command::new(bin())
        .args(["reduce", "--raw", "--no-stats"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let chunk = b"y\n".repeat(4096);
        // ends when reduce is gone (a write error), as `yes` would
        while stdin.write_all(&chunk).is_ok() {}
    });
    let mut first = String::new();
    BufReader::new(c.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "y\n");
    wait_or_fail(&mut c, Duration::from_secs(10), "reduce --raw");
    writer.join().unwrap();
}

/// Live `sleep` processes whose command line holds `marker` (a unique sleep length).
fn pids_with(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'));
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if !zombie
            && comm.trim() == "sleep"
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(marker)
        {
            out.push(pid);
        }
    }
    out
}

fn wait_until(limit: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    ok()
}

fn kill_all(marker: &str) {
    for p in pids_with(marker) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), nix::sys::signal::SIGKILL);
    }
}

#[test]
fn sigkill_to_wrap_or_to_its_group_ends_the_whole_command_tree() {
    use std::os::unix::process::CommandExt;
    for (case, marker_a, marker_b) in [
        ("wrap alone", "4711.25", "4712.25"),
        ("its group", "4711.75", "4712.75"),
    ] {
        let script = format!("sleep {marker_a} & sleep {marker_b}; echo never");
        let mut cmd = Command::new(bin());
        cmd.args(["wrap", "--no-stats", "--", "sh", "-c", &script])
            .stdout(Stdio::null())
            .stdin(Stdio::null());
        // as an agent starts it: in a group of its own that a timeout kills whole
        cmd.process_group(0);
        let mut c = cmd.spawn().unwrap();
        assert!(
            wait_until(Duration::from_secs(10), || pids_with(marker_a).len() == 1
                && pids_with(marker_b).len() == 1),
            "{case}: the command started"
        );
        let pid = nix::unistd::Pid::from_raw(c.id() as i32);
        match case {
            "wrap alone" => nix::sys::signal::kill(pid, nix::sys::signal::SIGKILL).unwrap(),
            _ => nix::sys::signal::killpg(pid, nix::sys::signal::SIGKILL).unwrap(),
        }
        let _ = c.wait();
        let gone = wait_until(Duration::from_secs(10), || {
            pids_with(marker_a).is_empty() && pids_with(marker_b).is_empty()
        });
        let ps = Command::new("ps")
            .args(["-eo", "pid,pgid,ppid,stat,cmd"])
            .output()
            .unwrap();
        let ps = String::from_utf8_lossy(&ps.stdout).to_string();
        kill_all(marker_a);
        kill_all(marker_b);
        assert!(
            gone,
            "{case}: the command tree outlived a SIGKILLed wrap:\n{}",
            ps.lines()
                .filter(|l| l.contains("sleep") || l.contains("tokenjuice"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn a_background_job_the_command_leaves_keeps_running_after_a_normal_end() {
    let marker = "4713.25";
    let out = Command::new(bin())
        .args([
            "wrap",
            "--no-stats",
            "--",
            "sh",
            "-c",
            &format!("sleep {marker} >/dev/null 2>&1 & echo started"),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("started"));
    std::thread::sleep(Duration::from_millis(300));
    let alive = !pids_with(marker).is_empty();
    kill_all(marker);
    assert!(
        alive,
        "a normal end leaves the command's background job alone, as a shell does"
    );
}
