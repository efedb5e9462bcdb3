// Starting a program without a shell and collecting it later: posix_spawn with an argv and an
// environment given as values, the child in a process group of its own (so a kill reaches what it
// started too), its signal mask and dispositions reset (the caller blocks signals for its
// signalfd; a child that inherited that mask could not be ended by SIGTERM), stdin from /dev/null.

import CLinux
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

public enum ChildProcess {
    /// How a reaped child ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit status \(code)"
            case .signalled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    /// Starts `arguments[0]` (an absolute path, not searched in PATH) with `arguments` as its argv
    /// and exactly `environment` as its environment. Returns at once with the child's pid.
    public static func spawn(_ arguments: [String], environment: [String: String]) throws(Errno) -> pid_t {
        guard let program = arguments.first else { throw Errno(rawValue: EINVAL) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, &attributes, &argv, &envp)
        if rc != 0 { throw Errno(rawValue: rc) }
        return pid
    }

    /// The child's ending if it has ended (it is then reaped), nil while it runs.
    public static func reap(_ pid: pid_t) throws(Errno) -> Ending? {
        var status: Int32 = 0
        let rc = try retryingOnInterrupt { waitpid(pid, &status, WNOHANG) }
        guard rc == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(status & 0x7f)
    }

    /// Makes this process the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`): a
    /// command that daemonizes (forks, leaves its session, its parent exits) becomes this process's
    /// child instead of init's, so it can still be found, bounded and killed. False when refused.
    @discardableResult
    public static func becomeSubreaper() -> Bool {
        let done = tb_become_subreaper() == 0
        if done { subreaper.store(true, ordering: .releasing) }
        return done
    }

    /// Whether `becomeSubreaper` was done: only then are all children this process's own doing
    /// (a test runner's children are other tests').
    public static var isSubreaper: Bool { subreaper.load(ordering: .acquiring) }
    private static let subreaper = Atomic<Bool>(false)

    /// The children of this process, as the kernel lists them (`/proc/self/task/*/children`);
    /// empty when it cannot be read.
    public static func children() -> [pid_t] {
        var out: [pid_t] = []
        for task in FileSystem.list("/proc/self/task") {
            guard let bytes = try? RegularFile.read("/proc/self/task/\(task)/children", limit: 1 << 16) else { continue }
            out += bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }).compactMap { pid_t(String(decoding: $0, as: UTF8.self)) }
        }
        return out
    }

    /// SIGKILL to the child's process group (what it started dies with it) and to the child itself:
    /// a child that moved to another group (setpgid) is not in its old one, and was never killed,
    /// held a place and was looked at once a second for ever (issue 54).
    public static func killGroup(_ pid: pid_t) {
        _ = kill(-pid, SIGKILL)
        _ = kill(pid, SIGKILL)
    }
}
