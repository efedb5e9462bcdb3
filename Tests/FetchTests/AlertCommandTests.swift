// tickerboard-fetch's alert-command: the argv split (no shell), the environment, the rate limit with
// a manual clock, the hooks with a stand-in launcher (fire once, restart, timeout), and real
// programs started by posix_spawn: a script that records its argv and environment, and one that hangs.

import Glibc
import Testing

@testable import Feed
@testable import Fetch
@testable import LinuxIO

/// Records what would have been started; children end when the test says.
/// What a FetchLog wrote (its closure is @Sendable; the tests read it on one thread).
final class LogLines: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

final class FakeLauncher: AlertLauncher {
    var started: [(argv: [String], env: [String: String])] = []
    var ended: [Int32: ChildProcess.Ending] = [:]
    var killed: [Int32] = []
    func spawn(_ argv: [String], environment: [String: String]) -> Result<Int32, Errno> {
        started.append((argv, environment))
        return .success(Int32(1000 + started.count))
    }
    func reap(_ pid: Int32) -> ChildProcess.Ending? { ended.removeValue(forKey: pid) }
    func kill(_ pid: Int32) { killed.append(pid); ended[pid] = .signalled(9) }
}

@Suite struct AlertCommandTests {
    static let t0: Int64 = 1_764_000_000  // 2025-11-24 16:00 UTC
    static let day = CivilDate(unixTime: t0)

    @Test func splitsWithoutAShell() throws {
        let argv = try AlertCommand.split(#"/usr/bin/notify  "two words" 'single $HOME *' back\ slash "q\"d" "p\q" | >x"#).get()
        #expect(argv == ["/usr/bin/notify", "two words", "single $HOME *", "back slash", "q\"d", "p\\q", "|", ">x"])
        #expect(try AlertCommand.split("none").get() == [])
        #expect(try AlertCommand.split("/bin/x ''").get() == ["/bin/x", ""])
        for bad in ["notify --x", "'/bin/x", "/bin/x \"open", "/bin/x \\", "", "   ", "/bin/", "/bin/x '\r'", "/bin/x \\\0"] {
            guard case .failure = AlertCommand.split(bad) else { Issue.record("accepted \(bad)"); continue }
        }
    }

    @Test func limiterSpacesOneAlertAndCapsAll() {
        var policy = AlertCommandPolicy()
        policy.interval = 900
        policy.rate = [RateLimit(count: 3, seconds: 3600)]
        var l = AlertCommandLimiter(policy: policy)
        #expect(l.admit("a", at: 0) == .run)
        #expect(l.admit("a", at: 100) == .tooSoon(until: 900))
        #expect(l.admit("a", at: 899) == .tooSoon(until: 900))
        #expect(l.admit("a", at: 900) == .run)
        #expect(l.admit("b", at: 950) == .run)
        #expect(l.admit("c", at: 1000) == .overCap(until: 3600))
        #expect(l.admit("c", at: 3599) == .overCap(until: 3600))
        #expect(l.admit("c", at: 3600) == .run)
        #expect(l.admit("d", at: 3601) == .overCap(until: 4500))
    }

    func config(_ extra: String = "") -> FetchConfig {
        let text = """
            [data]
            directory = /nonexistent-tickerboard
            [instrument AAPL]
            symbol = AAPL
            daily = AAPL.csv
            time-zone = America/New_York
            [fetch]
            alert-command = /usr/local/bin/notify --topic "stock prices"
            alert-command-timeout = 20s
            alert-command-interval = 10min
            alert-command-rate = 5/hour
            [alert aapl-300]
            instrument = AAPL
            above = 300
            [alert quiet]
            instrument = AAPL
            below = 100
            command = none
            [alert own]
            instrument = AAPL
            move = 5%
            command = /opt/x 'a b'
            """ + extra
        let (c, issues) = FetchConfig.parse(text, file: "t.conf")
        #expect(issues.filter(\.isError).isEmpty, "\(issues)")
        return c
    }

    @Test func configReadsAlertsAndPolicy() {
        let c = config()
        #expect(c.alerts.map(\.name) == ["aapl-300", "quiet", "own"])
        #expect(c.alertPolicy.command == ["/usr/local/bin/notify", "--topic", "stock prices"])
        #expect(c.alertPolicy.timeout == 20 && c.alertPolicy.interval == 600)
        #expect(c.alertPolicy.rate == [RateLimit(count: 5, seconds: 3600)])
        #expect(c.alertPolicy.command(of: c.alerts[0]) == ["/usr/local/bin/notify", "--topic", "stock prices"])
        #expect(c.alertPolicy.command(of: c.alerts[1]) == nil)
        #expect(c.alertPolicy.command(of: c.alerts[2]) == ["/opt/x", "a b"])
        #expect(c.alertInstruments.map(\.id) == ["AAPL"])
        let (_, issues) = FetchConfig.parse("[alert x]\ninstrument = A\ncommand = notify me\n", file: "t.conf")
        #expect(issues.map(\.description).contains { $0.hasPrefix("t.conf:3: command: the program \"notify\" is not an absolute path") })
        let (_, fetchIssues) = FetchConfig.parse("[fetch]\nalert-command-rate = lots\nalert-command-timeout = 1h\n", file: "t.conf")
        #expect(fetchIssues.map(\.line) == [2, 3])
    }

    @Test func environmentCarriesTheAlertAndNothingElse() throws {
        let c = config()
        let o = AlertObservation(price: ExactDecimal("301.25")!, previousClose: ExactDecimal("290")!,
                                 priceTime: Self.t0 - 60, day: Self.day)
        let env = AlertFiring(alert: c.alerts[0], observation: o, time: Self.t0).environment
        #expect(env == [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
            "TICKERBOARD_ALERT_NAME": "aapl-300", "TICKERBOARD_ALERT_INSTRUMENT": "AAPL",
            "TICKERBOARD_ALERT_CONDITION": "above", "TICKERBOARD_ALERT_LEVEL": "300",
            "TICKERBOARD_ALERT_PRICE": "301.25", "TICKERBOARD_ALERT_PREVIOUS_CLOSE": "290",
            "TICKERBOARD_ALERT_CHANGE_PERCENT": "3.88",
            "TICKERBOARD_ALERT_PRICE_TIME": "2025-11-24T15:59:00Z", "TICKERBOARD_ALERT_TIME": "2025-11-24T16:00:00Z",
            "TICKERBOARD_ALERT_MESSAGE": "aapl-300: AAPL above 300, at 301.25",
        ])
    }

    /// The hooks judged at each price like the service after each write: each crossing runs the
    /// command once, limited per alert; a restart with the saved states runs nothing again; a
    /// command past its timeout is killed.
    @Test func hooksFireOncePerCrossingAndSurviveRestart() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        let c = config()
        let fake = FakeLauncher()
        let statePath = dir + "/alerts"
        let hooks = try #require(AlertHooks(config: c, launcher: fake, log: FetchLog { _, _ in }, statePath: statePath))
        #expect(hooks.alerts.map(\.name) == ["aapl-300", "own"])  // `quiet` has command = none
        var price = "290"
        let observe: (String, Int64) -> AlertObservation? = { _, t in
            AlertObservation(price: ExactDecimal(price)!, previousClose: ExactDecimal("290")!, priceTime: t, day: Self.day)
        }
        var now = Self.t0
        hooks.judge(instrument: "AAPL", now: now, observe: observe)
        #expect(fake.started.isEmpty)
        price = "301"; now += 60
        let firings = hooks.judge(instrument: "AAPL", now: now, observe: observe)
        #expect(firings.map(\.alert.name) == ["aapl-300"])  // +3.8 %: not a 5 % move
        #expect(fake.started.count == 1)
        #expect(fake.started[0].argv == ["/usr/local/bin/notify", "--topic", "stock prices"])
        #expect(fake.started[0].env["TICKERBOARD_ALERT_PRICE"] == "301")
        price = "302"; now += 60
        hooks.judge(instrument: "AAPL", now: now, observe: observe)
        #expect(fake.started.count == 1, "one crossing, one run")
        // Back below the level by the hysteresis (0.5 %: under 298.5), and up again within 10 min.
        price = "298"; now += 60
        hooks.judge(instrument: "AAPL", now: now, observe: observe)
        price = "305"; now += 60
        #expect(hooks.judge(instrument: "AAPL", now: now, observe: observe).count == 2)  // and +5.2 %: `own`
        #expect(fake.started.count == 2, "the second crossing of aapl-300 is within alert-command-interval")
        #expect(fake.started[1].argv == ["/opt/x", "a b"])
        // The running commands: the first ended, the second hangs past 20 s and is killed.
        fake.ended[1001] = .exited(0)
        hooks.poll(now: now + 19, observe: observe)
        #expect(hooks.running.map(\.pid) == [1002] && fake.killed.isEmpty)
        #expect(hooks.nextWake(now: now + 19) == now + 20)
        hooks.poll(now: now + 20, observe: observe)
        #expect(fake.killed == [1002])
        hooks.poll(now: now + 21, observe: observe)
        #expect(hooks.running.isEmpty)
        // A restart is handed the states: the conditions that hold fired already.
        let again = FakeLauncher()
        let restarted = try #require(AlertHooks(config: c, launcher: again, log: FetchLog { _, _ in }, statePath: statePath))
        #expect(restarted.states == hooks.states)
        restarted.judge(instrument: nil, now: now + 120, observe: observe)
        #expect(again.started.isEmpty)
        // Without the saved states both would run again.
        let forgetful = FakeLauncher()
        let fresh = try #require(AlertHooks(config: c, launcher: forgetful, log: FetchLog { _, _ in }, statePath: nil))
        fresh.judge(instrument: nil, now: now + 120, observe: observe)
        #expect(forgetful.started.count == 2)
    }

    /// Issue 54 item 15: seven alerts crossing in one market-wide move ran four commands and dropped
    /// three, whose alerts were already disarmed. They wait now, for a place (4 at once) and for the
    /// rate (5 an hour in this config), and run in the order they fired.
    @Test("firings beyond the running cap or the rate wait and run in order; none is lost")
    func firingsWait() throws {
        var extra = ""
        for i in 1...7 { extra += "\n[alert up\(i)]\ninstrument = AAPL\nabove = \(290 + i)\n" }
        let c = config(extra)
        let fake = FakeLauncher()
        let log = LogLines()
        let hooks = try #require(AlertHooks(config: c, launcher: fake, log: FetchLog { _, text in log.append(text) }, statePath: nil))
        // From 290 to 299 (+3.1 %: not the config's 5 % `own` move): above 291 … 297, all seven at once.
        var price = "290"
        let observe: (String, Int64) -> AlertObservation? = { _, t in
            AlertObservation(price: ExactDecimal(price)!, previousClose: ExactDecimal("290")!, priceTime: t, day: Self.day)
        }
        var now = Self.t0
        hooks.judge(instrument: "AAPL", now: now, observe: observe)
        price = "299"; now += 60
        let fired = hooks.judge(instrument: "AAPL", now: now, observe: observe).map(\.alert.name)
        #expect(fired == ["up1", "up2", "up3", "up4", "up5", "up6", "up7"])
        #expect(fake.started.count == 4)
        #expect(hooks.queued.map(\.alert.name) == ["up5", "up6", "up7"])
        #expect(log.lines.filter { $0.contains("its command waits") }.count == 3)
        // Two end: two places, and the rate (5 an hour) lets one more run; the last waits for the hour.
        fake.ended[1001] = .exited(0)
        fake.ended[1002] = .exited(0)
        hooks.poll(now: now + 5, observe: observe)
        #expect(fake.started.count == 5)
        #expect(hooks.queued.map(\.alert.name) == ["up6", "up7"])
        let until = now + 3600
        #expect(hooks.nextWake(now: now + 5) <= until)
        // The hour after the first run: the rest run, in the order they fired.
        for pid in Int32(1003)...1005 { fake.ended[pid] = .exited(0) }
        hooks.poll(now: until, observe: observe)
        #expect(hooks.queued.map(\.alert.name) == ["up7"] || hooks.queued.isEmpty)
        hooks.poll(now: until + 3600, observe: observe)
        #expect(hooks.queued.isEmpty)
        #expect(fake.started.count == 7)
        #expect(log.lines.filter { $0.contains("dropped") }.isEmpty)
    }

    /// Issue 54 item 15, the end: firings still waiting when the fetcher stops (the service's end,
    /// or --once while the rate holds them) are not lost with their alerts disarmed: the alerts are
    /// armed again and saved so, and the next start fires them while the condition holds.
    @Test func waitingFiringsSurviveTheEnd() throws {
        var extra = ""
        for i in 1...6 { extra += "\n[alert up\(i)]\ninstrument = AAPL\nabove = \(290 + i)\n" }
        let c = config(extra)
        let statePath = "/tmp/tb-alert-end-\(getpid()).state"
        defer { unlink(statePath) }
        let fake = FakeLauncher()
        let hooks = try #require(AlertHooks(config: c, launcher: fake, log: FetchLog { _, _ in }, statePath: statePath))
        var price = "290"
        let observe: (String, Int64) -> AlertObservation? = { _, t in
            AlertObservation(price: ExactDecimal(price)!, previousClose: ExactDecimal("290")!, priceTime: t, day: Self.day)
        }
        hooks.judge(instrument: "AAPL", now: Self.t0, observe: observe)
        price = "299"
        #expect(hooks.judge(instrument: "AAPL", now: Self.t0 + 60, observe: observe).count == 6)
        #expect(hooks.queued.map(\.alert.name) == ["up5", "up6"], "four places; two wait")
        hooks.killAll()
        // The next start reads the saved states: the four that ran stay disarmed, the two that waited fire.
        let fake2 = FakeLauncher()
        let again = try #require(AlertHooks(config: c, launcher: fake2, log: FetchLog { _, _ in }, statePath: statePath))
        #expect(again.judge(instrument: "AAPL", now: Self.t0 + 120, observe: observe).map(\.alert.name) == ["up5", "up6"])
        #expect(fake2.started.count == 2)
    }

    /// A reload that removes every alert command while one runs: the old hooks stay to collect it
    /// (no zombie), judge nothing more, and are spent once it has ended.
    @Test func reloadWithoutCommandsStillCollects() throws {
        let fake = FakeLauncher()
        let hooks = try #require(AlertHooks(config: config(), launcher: fake, log: FetchLog { _, _ in }, statePath: nil))
        let observe: (String, Int64) -> AlertObservation? = { _, t in
            AlertObservation(price: ExactDecimal("301")!, previousClose: ExactDecimal("290")!, priceTime: t, day: Self.day)
        }
        hooks.judge(instrument: "AAPL", now: Self.t0, observe: observe)
        #expect(hooks.running.map(\.pid) == [1001])
        let (bare, _) = FetchConfig.parse("[instrument AAPL]\nsymbol = AAPL\ndaily = A.csv\n", file: "t.conf")
        let kept = try #require(AlertHooks.afterReload(old: hooks, new: AlertHooks(config: bare, statePath: nil)))
        #expect(kept === hooks && kept.alerts.isEmpty && !kept.isSpent)
        #expect(kept.judge(instrument: nil, now: Self.t0 + 600, observe: observe).isEmpty && fake.started.count == 1)
        kept.poll(now: Self.t0 + 5, observe: observe)
        #expect(kept.running.map(\.pid) == [1001], "still running")
        fake.ended[1001] = .exited(0)
        kept.poll(now: Self.t0 + 6, observe: observe)
        #expect(kept.isSpent)
        // Nothing running at the reload: no hooks at all.
        let idle = try #require(AlertHooks(config: config(), launcher: FakeLauncher(), log: FetchLog { _, _ in }, statePath: nil))
        #expect(AlertHooks.afterReload(old: idle, new: nil) == nil)
        // Commands in the new configuration: the new hooks, holding the old children.
        let again = try #require(AlertHooks(config: config(), launcher: fake, log: FetchLog { _, _ in }, statePath: nil))
        let other = try #require(AlertHooks(config: config(), launcher: FakeLauncher(), log: FetchLog { _, _ in }, statePath: nil))
        again.judge(instrument: "AAPL", now: Self.t0, observe: observe)
        #expect(AlertHooks.afterReload(old: again, new: other) === other && other.running.count == 1)
    }

    @Test func noCommandNoHooks() {
        let (c, _) = FetchConfig.parse("[instrument A]\nsymbol = A\ndaily = A.csv\n[alert a]\ninstrument = A\nabove = 1\n", file: "t.conf")
        #expect(AlertHooks(config: c, statePath: nil) == nil)
    }

    /// Waits (bounded) for `done`, polling; a test fails rather than hangs.
    func waitFor(_ what: String, _ done: () -> Bool) throws {
        for _ in 0..<1000 {
            if done() { return }
            usleep(10_000)
        }
        Issue.record("timed out waiting for \(what)")
        throw WaitError.timedOut
    }
    enum WaitError: Error { case timedOut }

    func script(_ dir: String, _ name: String, _ body: String) -> String {
        let path = dir + "/" + name
        Fixtures.write(path, "#!/bin/sh\n" + body)
        chmod(path, 0o755)
        return path
    }

    /// A real program started by the hooks: the arguments arrive as words (no shell splits or expands
    /// them), the environment is the alert's and nothing of the test's.
    @Test func realCommandReceivesArgvAndEnvironment() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        let program = script(dir, "record", """
            for a in "$@"; do printf '%s\\n' "$a"; done > "$0.args"
            env | sort > "$0.env.part"
            mv "$0.env.part" "$0.env"

            """)
        setenv("TICKERBOARD_TEST_SECRET", "leak", 1)
        defer { unsetenv("TICKERBOARD_TEST_SECRET") }
        var c = config()
        c.alertPolicy.command = [program, "two words", "$HOME", "*", "a;b"]
        let hooks = try #require(AlertHooks(config: c, log: FetchLog { _, _ in }, statePath: nil))
        let o = AlertObservation(price: ExactDecimal("301")!, previousClose: ExactDecimal("300")!, priceTime: Self.t0, day: Self.day)
        hooks.judge(instrument: "AAPL", now: Self.t0, observe: { _, _ in o })
        #expect(hooks.running.count == 1)
        try waitFor("the script's environment file") { Fixtures.read(program + ".env") != nil }
        let args = String(decoding: Fixtures.read(program + ".args") ?? [], as: UTF8.self)
        #expect(args == "two words\n$HOME\n*\na;b\n")
        let env = String(decoding: Fixtures.read(program + ".env") ?? [], as: UTF8.self)
        #expect(env.contains("TICKERBOARD_ALERT_NAME=aapl-300\n"))
        #expect(env.contains("TICKERBOARD_ALERT_CONDITION=above\n"))
        #expect(env.contains("TICKERBOARD_ALERT_PRICE=301\n"))
        #expect(env.contains("TICKERBOARD_ALERT_MESSAGE=aapl-300: AAPL above 300, at 301\n"))
        #expect(!env.contains("TICKERBOARD_TEST_SECRET"))
        try waitFor("the script to be collected") {
            hooks.poll(now: Self.t0 + 1)
            return hooks.running.isEmpty
        }
    }

    /// A command that hangs (and started a child of its own) is killed with its process group at
    /// the timeout, and collected.
    @Test func hangingCommandIsKilled() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        let program = script(dir, "hang", """
            sleep 600 &
            echo $! > "$0.child.part"
            mv "$0.child.part" "$0.child"
            wait

            """)
        var c = config()
        c.alertPolicy.command = [program]
        c.alertPolicy.timeout = 5
        let hooks = try #require(AlertHooks(config: c, log: FetchLog { _, _ in }, statePath: nil))
        let o = AlertObservation(price: ExactDecimal("301")!, previousClose: ExactDecimal("300")!, priceTime: Self.t0, day: Self.day)
        hooks.judge(instrument: "AAPL", now: Self.t0, observe: { _, _ in o })
        try waitFor("the script's child") { Fixtures.read(program + ".child") != nil }
        let grandchild = try #require(Int32(String(decoding: Fixtures.read(program + ".child")!, as: UTF8.self)
            .filter { $0.isNumber }))
        hooks.poll(now: Self.t0 + 4, observe: { _, _ in o })
        #expect(hooks.running.count == 1 && hooks.running[0].killed == false, "still running before the timeout")
        hooks.poll(now: Self.t0 + 5, observe: { _, _ in o })
        #expect(hooks.running.first?.killed == true)
        try waitFor("the killed script to be collected") {
            hooks.poll(now: Self.t0 + 6, observe: { _, _ in o })
            return hooks.running.isEmpty
        }
        // The sleep the script started died with its group (gone, or a zombie of whoever adopted it).
        try waitFor("the script's own child to end") {
            guard let stat = Fixtures.read("/proc/\(grandchild)/stat") else { return true }
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return true }
            return text[text.index(close, offsetBy: 2)] == "Z"
        }
    }
}

/// The service loop with the hooks: a fetch that writes a price past the level starts the command
/// (through a stand-in launcher), without waiting; the next passes, with nothing new, start nothing.
@Suite struct AlertServiceTests {
    @Test func serviceRunsTheCommandAfterTheWrite() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        let text = """
            [data]
            directory = \(dir)
            [provider fleet]
            kind = http-csv
            base-url = http://127.0.0.1:9
            [instrument AAPL]
            providers = fleet
            daily = AAPL.csv
            session = 24/7
            [fetch]
            alert-command = /usr/local/bin/notify "price alert"
            [alert hi]
            instrument = AAPL
            above = 300
            """
        let (config, issues) = FetchConfig.parse(text, file: "t.conf")
        #expect(issues.filter(\.isError).isEmpty, "\(issues)")
        let csv = "Date,Open,High,Low,Close,Adj Close,Volume\n"
            + "2026-12-01,290,292,289,291,291,100\n2026-12-02,295,306,294,305.5,305.5,100\n"
        var wakes = 0
        let transport = CannedTransport { _ in
            .success(HTTPResponse(status: 200, headers: ["content-type": "text/csv"], body: Array(csv.utf8)))
        }
        let fetcher = Fetcher(config: config, transport: transport, mode: .write, environment: [:], log: FetchLog { _, _ in })
        let fake = FakeLauncher()
        fetcher.alertHooks = AlertHooks(config: config, launcher: fake, log: FetchLog { _, _ in }, statePath: fetcher.alertStatePath)
        var now: Int64 = 1_796_212_800  // 2026-12-05 12:00 UTC
        var waits: [Int64] = []
        fetcher.runForever(clock: { now }, sleep: { seconds in
            waits.append(seconds)
            now += seconds
            wakes += 1
            return wakes < 4
        })
        #expect(Fixtures.read(dir + "/AAPL.csv") != nil, "the fetch wrote its file")
        #expect(fake.started.count == 1, "\(fake.started.map(\.argv))")
        #expect(fake.started.first?.argv == ["/usr/local/bin/notify", "price alert"])
        #expect(fake.started.first?.env["TICKERBOARD_ALERT_PRICE"] == "305.5")
        #expect(fake.started.first?.env["TICKERBOARD_ALERT_PREVIOUS_CLOSE"] == "291")
        // The running command bounds the waits: the loop comes back for its timeout (30 s).
        #expect(waits.first.map { $0 <= 30 } == true, "\(waits)")
        #expect(fake.killed == [fake.started.count > 0 ? 1001 : -1], "the command that never ended was killed at its timeout")
        // The states are kept for a restart.
        let saved = String(decoding: Fixtures.read(fetcher.alertStatePath) ?? [], as: UTF8.self)
        #expect(saved.hasPrefix("hi fired "), "\(saved)")
    }
}

/// Issue 48 item 11: the README's quick start tries an alert with `--once`, which judged nothing;
/// `--check` passed alerts `check-config` refuses.
@Suite struct AlertOnceTests {
    @Test("--once judges the alerts on the files it wrote and waits for their commands (a real /bin/sh)")
    func onceRunsAlertCommands() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        Fixtures.write(dir + "/A.csv", "Date,Open,High,Low,Close,Adj Close,Volume\n2026-06-01,10,10,10,10,10,1\n2026-06-02,12,12,12,12,12,1\n")
        let out = dir + "/fired"
        let (config, issues) = FetchConfig.parse("""
            [data]
            directory = \(dir)
            [instrument A]
            daily = A.csv
            [alert a-high]
            instrument = A
            above = 11
            command = /bin/sh -c "echo $TICKERBOARD_ALERT_NAME $TICKERBOARD_ALERT_PRICE > \(out)"
            """, file: "t.conf")
        #expect(issues.isEmpty && config.alertIssues.isEmpty, "\(issues) \(config.alertIssues)")
        let fetcher = Fetcher(config: config, mode: .write, environment: [:], log: FetchLog { _, _ in })
        fetcher.judgeAlertsOnce(clock: { 1_780_430_400 })
        // Waited for: the command's file is there when the call returns.
        #expect(Fixtures.read(out).map { String(decoding: $0, as: UTF8.self) } == "a-high 12\n")
    }

    @Test("the alert problems check-config refuses are the fetcher's too: a bad value, no or an unknown instrument, no condition")
    func alertIssuesMatchCheckConfig() {
        let (config, issues) = FetchConfig.parse("""
            [data]
            directory = /tmp
            [instrument A]
            daily = A.csv
            [alert one]
            instrument = A
            above = ten
            [alert two]
            above = 5
            [alert three]
            instrument = B
            below = 4
            [alert four]
            instrument = A
            """, file: "t.conf")
        #expect(!issues.contains { $0.isError }, "\(issues)")
        let said = config.alertIssues.map(\.description)
        #expect(said.count == 5, "\(said)")
        #expect(said.contains { $0.hasPrefix("t.conf:7: above:") })
        #expect(said.contains { $0.hasPrefix("t.conf:5: [alert one] needs one of above") })
        #expect(said.contains { $0.hasPrefix("t.conf:8: [alert two] needs instrument = ID") })
        #expect(said.contains { $0.hasPrefix("t.conf:10: [alert three] instrument: no [instrument B]") })
        #expect(said.contains { $0.hasPrefix("t.conf:13: [alert four] needs one of above") })
    }
}
