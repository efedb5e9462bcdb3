@testable import Commands
import Feed
@testable import Kiosk
@testable import KioskCore
import LinuxIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `conf.d/*.conf` after the main file: which files count and in what order, how sections merge and
/// later keys win, and every problem named by the drop-in and line it is in — for the daemon, its
/// reload and `check-config` (the fetcher's reading: FetchTests/FetchDropInTests).
@Suite("Config drop-ins")
struct ConfigDropInTests {
    let directory: String

    init() throws {
        var template = Array("/tmp/tb-dropins-XXXXXX".utf8CString)
        // The name is read inside the closure: the buffer's pointer is not valid after it.
        let made: String? = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        directory = try #require(made)
        _ = mkdir(directory + "/conf.d", 0o755)
    }

    func write(_ name: String, _ text: String) {
        do {
            let fd = try FileDescriptor.open(directory + "/" + name, .writeOnly, options: [.create, .truncate])
            _ = try fd.write(Array(text.utf8))
            try fd.close()
        } catch {
            Issue.record("cannot write \(name): \(error)")
        }
    }

    /// Issue 54 item 18: thirty drop-ins of a megabyte of unknown keys held 657 MB, took 24-43 s
    /// to READY and printed 2.7 million warnings.
    @Test("the config and its drop-ins are read up to 4 MB and 50,000 lines in all; each file's warnings are summarised")
    func boundedInAggregate() {
        write("main.conf", "[chart]\ncycle-interval = 30s\n")
        // 900 kB each: the first four fit (3.6 MB), the fifth would pass 4 MB; it and the sixth are not read.
        let filler = String(repeating: "#" + String(repeating: " padding", count: 112) + "\n", count: 1000)
        for n in 1...6 { write("conf.d/\(n)0-big.conf", "[chart]\ncycle-interval = \(n)m\n" + filler) }
        let (config, issues) = Config.load(path: directory + "/main.conf")
        #expect(config.cycleSeconds == 240, "the fourth drop-in's value wins; the fifth's (5m) is not read")
        let over = issues.filter { $0.message.contains("limited to 4 MB in all") }
        #expect(over.count == 1 && over.first?.file.hasSuffix("50-big.conf") == true && over.first?.severity == .error,
                "\(over)")
        #expect(over.first?.message.contains("nor the 1 drop-in(s) after it") == true)

        // 60,000 lines of unknown keys: read to line 50,000 (25,000 keys), one error for the rest,
        // and the file's issues as 40 lines and a count.
        let (_, many) = Config.parse(String(repeating: "[chart]\nno-such-key = 1\n", count: 30_000), file: "many.conf")
        #expect(many.count == 41, "\(many.count) issues")
        #expect(many.first?.line == 50_001 && many.first?.severity == .error && many.first?.message.contains("more than 50000 lines") == true)
        #expect(many.last?.message.hasPrefix("and 24961 more warnings in this file, not listed") == true, "\(String(describing: many.last))")
        #expect(many.last?.severity == .warning)
        // An error among the hidden ones makes the count an error: "has errors" stays true.
        let listed = (1...50).map { ConfigIssue(file: "f", line: $0, key: "k", message: "m", severity: $0 == 45 ? .error : .warning) }
        let short = ConfigIssue.summarized(listed)
        #expect(short.count == 41 && short.last?.severity == .error && short.last?.line == 41)
        #expect(short.last?.message.hasPrefix("and 10 more problems") == true)
    }

    @Test("only *.conf regular files, not hidden, in byte order")
    func whichFiles() {
        write("conf.d/20-b.conf", "")
        write("conf.d/10-a.conf", "")
        write("conf.d/B.conf", "")
        write("conf.d/.#10-a.conf", "")
        write("conf.d/30-c.conf.dpkg-old", "")
        write("conf.d/notes.txt", "")
        _ = mkdir(directory + "/conf.d/40-dir.conf", 0o755)
        let names = ConfigDropIns.files(in: directory + "/conf.d").map { String($0.split(separator: "/").last!) }
        #expect(names == ["10-a.conf", "20-b.conf", "B.conf"])
        #expect(ConfigDropIns.files(in: directory + "/none").isEmpty)
        #expect(ConfigDropIns.defaultDirectory(for: "/etc/tickerboard/tickerboard.conf") == "/etc/tickerboard/conf.d")
    }

    /// Issue 54 item 19: a drop-in linked to /etc/shadow printed `root:*:20228:0:99999:7:::` in the
    /// warnings, and FIFOs, devices and directories were skipped without a word.
    @Test("links out of the config's directory, FIFOs, devices and directories are refused by name; links within are read")
    func refusedDropIns() throws {
        _ = mkdir(directory + "/outside", 0o755)
        _ = mkdir(directory + "/etc", 0o755)
        _ = mkdir(directory + "/etc/conf.d", 0o755)
        _ = mkdir(directory + "/etc/sites", 0o755)
        write("outside/shadow", "root:*:20228:0:99999:7:::\n")
        write("etc/t.conf", "[chart]\ncycle-interval = 10\n")
        write("etc/sites/hall.conf", "[chart]\ncycle-interval = 20\n")
        write("etc/conf.d/10-ok.conf", "[chart]\nstart-range = 1Y\n")
        symlink(directory + "/outside/shadow", directory + "/etc/conf.d/20-shadow.conf")
        symlink("../sites/hall.conf", directory + "/etc/conf.d/30-site.conf")
        symlink(directory + "/etc/none", directory + "/etc/conf.d/40-dangling.conf")
        mkfifo(directory + "/etc/conf.d/50-fifo.conf", 0o600)
        _ = mkdir(directory + "/etc/conf.d/60-dir.conf", 0o755)
        symlink("/dev/null", directory + "/etc/conf.d/70-null.conf")
        let scan = ConfigDropIns.scan(directory + "/etc/conf.d")
        #expect(scan.files.map { String($0.split(separator: "/").last!) } == ["10-ok.conf", "30-site.conf"])
        let refused = Dictionary(uniqueKeysWithValues: scan.refused.map { (String($0.file.split(separator: "/").last!), $0.reason) })
        #expect(refused.keys.sorted() == ["20-shadow.conf", "40-dangling.conf", "50-fifo.conf", "60-dir.conf", "70-null.conf"])
        #expect(refused["20-shadow.conf"]?.hasPrefix("a symbolic link out of the config's directory") == true)
        #expect(refused["50-fifo.conf"]?.contains("FIFO") == true)
        #expect(refused["60-dir.conf"]?.contains("directory") == true)
        #expect(refused["70-null.conf"]?.contains("out of the config's directory") == true)
        let (config, issues) = Config.load(path: directory + "/etc/t.conf")
        #expect(config.cycleSeconds == 20)
        #expect(config.startRange == .oneYear)
        #expect(issues.filter { $0.severity == .warning && $0.message.hasSuffix("not read") }.count == 5)
        #expect(!issues.contains { $0.description.contains("root:") }, "\(issues)")
    }

    /// Issue 54 item 17: "a later key wins" did not hold for an alert's condition (a drop-in's
    /// above = 250 over the main file's above = 300 was an error that refused the reload), and a
    /// drop-in's lots were added to the main file's (10 + 5 + 5 = 20, no warning).
    @Test("a drop-in's alert condition replaces the main file's; a drop-in's lots replace the main file's, one file's add up")
    func replaceOrAccumulate() {
        write("t.conf", "[instrument A]\ndaily = A.csv\nlot = 2024-01-02 10 @ 100\n[alert up]\ninstrument = A\nabove = 300\n")
        write("conf.d/10-site.conf", "[alert up]\nabove = 250\n[instrument A]\nlot = 2024-03-01 5 @ 110\nlot = 2024-03-01 5 @ 110\n")
        let (config, issues) = Config.load(path: directory + "/t.conf")
        #expect(issues.filter { $0.severity == .error }.isEmpty, "\(issues)")
        #expect(config.alerts.first?.condition == .above(ExactDecimal(250)))
        let lots = config.instruments.first?.holding.lots ?? []
        #expect(lots.map(\.quantity) == [ExactDecimal(5), ExactDecimal(5)])
        #expect(issues.contains { $0.severity == .warning && $0.line == 5 && $0.message.contains("the same lot as line 4") }, "\(issues)")
        // Another kind of condition in a drop-in replaces it too; two in one file stay an error.
        write("conf.d/10-site.conf", "[alert up]\nbelow = 90\n")
        #expect(Config.load(path: directory + "/t.conf").0.alerts.first?.condition == .below(ExactDecimal(90)))
        write("conf.d/10-site.conf", "[alert up]\nbelow = 90\nmove = 5%\n")
        #expect(Config.load(path: directory + "/t.conf").1.contains { $0.severity == .error && $0.message.contains("already has a condition") })
    }

    @Test("sections merge, later files win, and each file's sections start afresh")
    func merge() {
        write("t.conf", "[chart]\ncycle-interval = 10\nranges = 1M 1Y\n[instrument A]\ndaily = A.csv\nname = Alpha\n")
        write("conf.d/10-fleet.conf", "[chart]\ncycle-interval = 20\n[instrument A]\nname = Alpha Corp\n[instrument B]\ndaily = B.csv\n")
        write("conf.d/20-site.conf", "cycle-interval = 30\n[chart]\nstart-range = 1Y\n")
        let (config, issues) = Config.load(path: directory + "/t.conf")
        #expect(config.cycleSeconds == 20)
        #expect(config.ranges == [.oneMonth, .oneYear])
        #expect(config.startRange == .oneYear)
        #expect(config.instruments.map(\.id) == ["A", "B"])
        #expect(config.instruments[0].name == "Alpha Corp")
        #expect(config.instruments[0].dailyFile == "A.csv")
        #expect(config.instruments[0].location(of: "name", mainFile: "t").file.hasSuffix("conf.d/10-fleet.conf"))
        #expect(config.instruments[0].location(of: "daily", mainFile: "t") == ("t", 5))
        // A key before any section in a drop-in is no key of the previous file's last section.
        #expect(issues.count == 1)
        #expect(issues.first?.description == directory + "/conf.d/20-site.conf:1: cycle-interval: outside any section; put it under a header like [chart]")
    }

    @Test("check-config names the drop-in and line of each problem, and the reload keeps the running config")
    func problemsNamed() {
        write("t.conf", "[chart]\ncycle-interval = 10\n")
        write("conf.d/50-bad.conf", "# fleet\n[chart]\nranges = 1D 2W\n")
        let (_, issues) = Config.load(path: directory + "/t.conf")
        #expect(issues.map(\.description) == [directory + "/conf.d/50-bad.conf:3: ranges: \"2W\" is not one of 1D 5D 1M 6M YTD 1Y 5Y MAX"])
        #expect(Tickerboard.main(["check-config", directory + "/t.conf"]) == 1)
        #expect(Tickerboard.main(["check-config", "--config-dir", directory + "/none", directory + "/t.conf"]) == 0)
        let outcome = ConfigReload.reload(current: Config(), path: directory + "/t.conf")
        #expect(!outcome.applied)
        write("conf.d/50-bad.conf", "[chart]\nranges = 1D 1Y\n")
        let fixed = ConfigReload.reload(current: Config(), path: directory + "/t.conf")
        #expect(fixed.applied && fixed.config.ranges == [.oneDay, .oneYear])
    }

    @Test("problems that need the whole merged config (holdings, fx, alerts, follow-markets) name the file their key is in")
    func wholeConfigProblemsNamed() {
        write("t.conf", "[instrument A]\ndaily = A.csv\ncurrency = USD\n[portfolio]\ncurrency = EUR\n")
        write("conf.d/10-money.conf", "[instrument A]\nquantity = 3\n[fx GBPEUR]\nsymbol = GBPEUR=X\n")
        write("conf.d/20-alerts.conf", "\n[alert up]\nabove = 300\n[power]\nfollow-markets = on\n")
        let (_, issues) = Config.load(path: directory + "/t.conf")
        let money = directory + "/conf.d/10-money.conf", alerts = directory + "/conf.d/20-alerts.conf"
        let described = Set(issues.map { "\($0.file):\($0.line): \($0.key)" })
        #expect(described.contains(money + ":2: quantity"), "\(issues)")
        #expect(described.contains(money + ":4: daily"), "\(issues)")
        #expect(described.contains(alerts + ":3: instrument"), "\(issues)")
        #expect(issues.allSatisfy { $0.file != directory + "/t.conf" }, "\(issues)")
    }
}
