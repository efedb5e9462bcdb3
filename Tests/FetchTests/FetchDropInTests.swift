import Feed
@testable import Fetch
@testable import Bridge
import LinuxIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fetcher reads the daemon's drop-ins (`conf.d/*.conf`) in the same order and names the file
/// and line of each problem in them.
@Suite("Fetcher config drop-ins")
struct FetchDropInTests {
    let directory: String

    init() throws {
        var template = Array("/tmp/tb-fetch-dropins-XXXXXX".utf8CString)
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

    /// Issue 54 item 18: the fetcher and the bridge read the daemon's drop-ins within the daemon's
    /// bounds (30 drop-ins of a megabyte of unknown keys held ~500 MB and printed 1.3 million
    /// warnings in each). The numbers are the daemon's test's (ConfigDropInTests.boundedInAggregate).
    @Test("the fetcher and the bridge read the config and drop-ins within 4 MB, 50,000 lines and 40 messages a file")
    func boundedInAggregate() {
        write("t.conf", "[data]\ndirectory = /data\n[instrument A]\nsymbol = AAPL\ndaily = A.csv\n[mqtt]\nnode-id = hall\n")
        // 900 kB each: four fit (3.6 MB with the main file), the fifth would pass 4 MB; it and the sixth are not read.
        let filler = String(repeating: "#" + String(repeating: " padding", count: 112) + "\n", count: 1000)
        for n in 1...6 { write("conf.d/\(n)0-big.conf", "[mqtt]\nnode-id = wall\(n)\n" + filler) }
        let dropIns = ConfigDropIns.files(in: directory + "/conf.d")
        let (_, issues) = FetchConfig.load(path: directory + "/t.conf", dropIns: dropIns)
        let over = issues.filter { $0.message.contains("limited to 4 MB in all") }
        #expect(over.count == 1 && over.first?.file.hasSuffix("50-big.conf") == true && over.first?.isError == true, "\(issues)")
        let (settings, problems) = BridgeCommand.load(path: directory + "/t.conf", dropIns: dropIns)
        #expect(settings.nodeID == "wall4", "the fourth drop-in's node id wins; the fifth is not read")
        #expect(problems.filter { $0.text.contains("limited to 4 MB in all") && $0.error }.count == 1, "\(problems)")

        // 60,000 lines of unknown keys in one drop-in: read to line 50,000, one error for the rest, and
        // the file's messages as 40 lines and a count.
        for n in 1...6 { unlink(directory + "/conf.d/\(n)0-big.conf") }
        write("conf.d/10-many.conf", String(repeating: "[fetch]\nno-such-key = 1\n[mqtt]\nno-such-key = 1\n", count: 15_000))
        let many = ConfigDropIns.files(in: directory + "/conf.d")
        let (_, fetchIssues) = FetchConfig.load(path: directory + "/t.conf", dropIns: many)
        let fromMany = fetchIssues.filter { $0.file.hasSuffix("10-many.conf") }
        #expect(fromMany.count == 41, "\(fromMany.count) messages")
        #expect(fromMany.contains { $0.isError && $0.message.contains("more than 50000 lines") })
        #expect(fromMany.last?.message.hasPrefix("and ") == true && fromMany.last?.isError == false, "\(String(describing: fromMany.last))")
        let (_, bridgeProblems) = BridgeCommand.load(path: directory + "/t.conf", dropIns: many)
        #expect(bridgeProblems.count == 41 + 0, "\(bridgeProblems.count) messages")
        #expect(bridgeProblems.contains { $0.error && $0.text.contains("more than 50000 lines") })
    }

    /// Issue 54 item 17, the fetcher's reading: a drop-in's condition replaces the main file's.
    @Test("a drop-in's alert condition replaces the main file's, for the fetcher too")
    func alertConditionReplaced() {
        write("t.conf", "[data]\ndirectory = /data\n[instrument A]\nsymbol = AAPL\ndaily = A.csv\n[alert up]\ninstrument = A\nabove = 300\n")
        write("conf.d/10-site.conf", "[alert up]\nabove = 250\n")
        let (config, issues) = FetchConfig.load(path: directory + "/t.conf", dropIns: ConfigDropIns.files(in: directory + "/conf.d"))
        #expect(!issues.contains { $0.isError }, "\(issues)")
        #expect(config.alerts.first?.condition == .above(ExactDecimal(250)))
    }

    @Test("instruments merge across files; a problem is located in its drop-in")
    func fetcher() {
        write("t.conf", "[data]\ndirectory = /data\n[instrument A]\nsymbol = AAPL\ndaily = A.csv\n")
        write("conf.d/10-keys.conf", "[instrument A]\nproviders = stooq\n\n[instrument B]\nsymbol = MSFT\nproviders = nosuch\ndaily = B.csv\n")
        let (config, issues) = FetchConfig.load(path: directory + "/t.conf", dropIns: ConfigDropIns.files(in: directory + "/conf.d"))
        #expect(config.instruments.map(\.id) == ["A", "B"])
        #expect(config.instruments.first?.providers == ["stooq"])
        let problem = issues.first { $0.isError }
        #expect(problem?.file == directory + "/conf.d/10-keys.conf")
        #expect(problem?.line == 4)
    }
}
