import Control
import Feed
import LinuxIO
import StatusModel

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard ctl`: one request to a running daemon's control socket, its answer on stdout.
enum CtlCommand {
    static let defaultSocket = "/run/tickerboard/control"

    static let help = """
        usage: tickerboard ctl [--socket PATH] [--json] COMMAND [ARGS]

        Sends one request to the running daemon (its control socket, default \(defaultSocket);
        members of the group tickerboard-control may use it) and prints the answer.
          status                    what status.json says (one line of JSON)
          show ID [RANGE|--range R] an [instrument ID], optionally on a range; holds the cycle there
          range R                   1D 5D 1M 6M YTD 1Y 5Y MAX, of those configured (as a tap on the selector)
          scene S                   \(SceneKind.names(ControlCommand.scenes)); holds the cycle there
          next                      the next instrument now
          pause | resume            hold the cycle / let it go on
          screen on|off|auto        force the screen on or off, or back to the schedule
          brightness N              on at N percent until `screen auto` (0 off, 100 full)
          reload                    re-read the configuration (as systemctl reload)
          message TEXT [SECONDS]    a banner over the picture (default 60 s; 30s, 10m, 2h)
          clear-message             take the banner down
          screenshot > FILE.png     the picture on the glass, written to standard output
          version                   the protocol's version
        Exit status: 0 done, 1 the daemon refused (the answer says why), 2 a usage mistake or no daemon.
          --json                    print {"ok": …, "reply"|"error": …} (status: its JSON as it is)
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "ctl", raw)
        if args.wantsHelp() || raw.isEmpty { printLine(help); return raw.isEmpty ? 2 : 0 }
        let socket = try args.option("--socket") ?? getenv("TICKERBOARD_CONTROL").map { String(cString: $0) } ?? defaultSocket
        let json = args.flag("--json")
        let rangeOption = try args.option("--range")
        let words = try args.positionals()
        let command = try self.command(from: words, range: rangeOption)
        if command == .screenshot, isatty(1) == 1 {
            throw UsageError("ctl: screenshot writes a PNG to standard output, which is a terminal; redirect it: tickerboard ctl screenshot > screen.png")
        }
        let connection: UnixConnection
        do { connection = try UnixConnection.connect(to: socket) } catch {
            let hint = error == .permissionDenied ? " (only root and members of the socket's group may use it)"
                : error == .noSuchFileOrDirectory || error == .connectionRefused ? " (is the daemon running with a control socket?)" : ""
            throw UsageError("ctl: cannot connect to \(socket): \(error.message)\(hint)")
        }
        do {
            try connection.sendAll(Array((command.line + "\n").utf8), passing: command == .screenshot ? FileDescriptor(rawValue: 1) : nil)
        } catch {
            throw UsageError("ctl: cannot send to \(socket): \(error.message)")
        }
        let line: [UInt8]?
        do { line = try connection.readLine(limit: 1 << 24) } catch {
            throw UsageError("ctl: no answer from \(socket): \(error.message)")
        }
        guard let line, let reply = ControlReply.parse(String(decoding: line, as: UTF8.self)) else {
            throw UsageError("ctl: the daemon closed the connection without an answer")
        }
        // The screenshot's PNG went to stdout: its answer goes to stderr, so the file stays a PNG.
        let out: (String) -> Void = command == .screenshot ? { writeStderr($0) } : { printLine($0) }
        switch reply {
        case .ok(let text) where command == .status:
            // Read as the status type and written again: what ctl prints is the contract's
            // encoding, every documented key present, whichever daemon answered.
            guard let status = text.flatMap(KioskStatus.init(json:)) else {
                writeStderr("ctl: the daemon's status is no JSON object: \(String((text ?? "").prefix(200)))")
                return 1
            }
            out(status.compactJSON)
            return 0
        case .ok(let text):
            if json {
                out("{\"ok\": true, \"reply\": \(jsonQuoted(text ?? ""))}")
            } else if let text {
                out(text)
            }
            return 0
        case .error(let error):
            if json {
                out("{\"ok\": false, \"error\": \(jsonQuoted(error.kind)), \"message\": \(jsonQuoted(error.message))}")
            } else {
                writeStderr("ctl: \(error.kind): \(error.message)")
            }
            return error.kind == "usage" || error.kind == "unknown" ? 2 : 1
        }
    }

    /// The request the words name, checked here so a mistake never reaches the daemon.
    static func command(from words: [String], range: String?) throws(UsageError) -> ControlCommand {
        guard !words.isEmpty else { throw UsageError("ctl: which command? (see tickerboard ctl --help)") }
        var words = words
        if let range {
            guard words.first == "show", words.count == 2 else { throw UsageError("ctl: --range goes with show ID") }
            words.append(range)
        }
        let line = words.map { ControlCommand.word($0) }.joined(separator: " ")
        switch ControlCommand.parse(line) {
        case .success(let command): return command
        case .failure(let error): throw UsageError("ctl: \(error.message)")
        }
    }

    private static func jsonQuoted(_ s: String) -> String { FetchStatus.quoted(s) }
}

/// One line on stderr (a screenshot's answer: stdout carries the PNG).
private func writeStderr(_ text: String) { StandardStream.error.write(text + "\n") }
