import Feed
@testable import Fetch
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
