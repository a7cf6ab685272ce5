use super::*;

fn req(cmd: &str, stdin: &[u8]) -> CommandRequest {
    CommandRequest {
        command: cmd.to_string(),
        cwd: std::env::temp_dir(),
        env: vec![],
        stdin: stdin.to_vec(),
    }
}

fn limits(timeout_ms: u64) -> RunLimits {
    RunLimits {
        timeout: Duration::from_millis(timeout_ms),
        ..RunLimits::default()
    }
}

fn pid_alive(pid: i32) -> bool {
    // kill(pid, 0): Ok = exists. A zombie still counts, so check /proc state too.
    if nix::sys::signal::kill(Pid::from_raw(pid), None).is_err() {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit_once(") ")
            .map(|(_, r)| r)
            .is_some_and(|rest| rest.starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn echoes_stdin_and_reports_exit_code() {
    let r = run_command(
        &req("cat; echo err >&2; exit 3", b"{\"a\":1}"),
        &limits(5000),
    )
    .unwrap();
    assert_eq!(r.exit_code, Some(3));
    assert_eq!(r.stdout, b"{\"a\":1}");
    assert_eq!(r.stderr, b"err\n");
    assert!(!r.timed_out);
    assert!(!r.stdin_closed_early);
}

#[test]
fn env_and_cwd_are_applied() {
    let dir = tempfile::tempdir().unwrap();
    let mut rq = req("printf '%s|%s' \"$FOO\" \"$PWD\"", b"");
    rq.cwd = dir.path().to_path_buf();
    rq.env = vec![("FOO".into(), "bar baz".into())];
    let r = run_command(&rq, &limits(5000)).unwrap();
    let out = String::from_utf8(r.stdout).unwrap();
    let canon = dir.path().canonicalize().unwrap();
    assert!(
        out == format!("bar baz|{}", dir.path().display())
            || out == format!("bar baz|{}", canon.display()),
        "{out}"
    );
}

#[test]
fn a_hook_that_never_reads_stdin_does_not_hang_or_fail() {
    // 1 MiB payload: far more than a pipe buffer.
    let payload = vec![b'x'; 1 << 20];
    let r = run_command(&req("echo ok", &payload), &limits(5000)).unwrap();
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.stdout, b"ok\n");
    assert!(r.stdin_closed_early);
    assert!(r.duration < Duration::from_secs(4));
}

#[test]
fn large_payload_is_delivered_completely_and_stdin_is_closed() {
    let payload = vec![b'y'; 300_000];
    let r = run_command(&req("wc -c", &payload), &limits(5000)).unwrap();
    assert_eq!(String::from_utf8(r.stdout).unwrap().trim(), "300000");
}

#[test]
fn output_is_capped_but_fully_drained() {
    let mut l = limits(10_000);
    l.output_cap = 1000;
    let r = run_command(
        &req("head -c 5000000 /dev/zero; head -c 3000 /dev/zero >&2", b""),
        &l,
    )
    .unwrap();
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.stdout.len(), 1000);
    assert_eq!(r.stdout_total, 5_000_000);
    assert!(r.stdout_truncated());
    assert_eq!(r.stderr.len(), 1000);
    assert_eq!(r.stderr_total, 3000);
}

#[test]
fn timeout_kills_the_whole_group_including_children() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let cmd = format!("sleep 30 & echo $! > '{}'; wait", pidfile.display());
    let start = Instant::now();
    let r = run_command(&req(&cmd, b""), &limits(300)).unwrap();
    assert!(r.timed_out);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let child: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The grandchild was in the hook's process group: it must be gone.
    let gone_by = Instant::now() + Duration::from_secs(2);
    while pid_alive(child) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!pid_alive(child), "child {child} survived the timeout");
}

#[test]
fn sigterm_ignoring_hook_is_killed_after_grace() {
    let mut l = limits(200);
    l.grace = Duration::from_millis(200);
    let start = Instant::now();
    let r = run_command(&req("trap '' TERM; while :; do sleep 0.05; done", b""), &l).unwrap();
    assert!(r.timed_out);
    assert!(r.killed);
    assert_eq!(r.signal, Some(9));
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn background_child_holding_pipes_does_not_hang_the_runner() {
    let start = Instant::now();
    let r = run_command(
        &req(
            "(sleep 5; echo late) & echo '{\"continue\":true}'; exit 0",
            b"",
        ),
        &limits(10_000),
    )
    .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.exit_code, Some(0));
    assert!(!r.timed_out);
    assert!(r.pipes_held_open);
    assert_eq!(r.stdout, b"{\"continue\":true}\n");
}

#[test]
fn runs_in_its_own_session() {
    let r = run_command(
        &req("ps -o sid= -p $$; ps -o pid= -p $$", b""),
        &limits(5000),
    )
    .unwrap();
    let out = String::from_utf8(r.stdout).unwrap();
    let nums: Vec<&str> = out.split_whitespace().collect();
    if nums.len() == 2 {
        assert_eq!(nums[0], nums[1], "hook is its own session leader");
    }
    let ours = nix::unistd::getsid(None).unwrap();
    assert_ne!(nums.first().copied(), Some(ours.to_string().as_str()));
}

#[test]
fn missing_working_directory_is_a_spawn_error() {
    let mut rq = req("true", b"");
    rq.cwd = PathBuf::from("/definitely/not/here");
    assert!(run_command(&rq, &limits(1000)).is_err());
}
