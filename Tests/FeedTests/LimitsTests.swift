import Glibc
import Testing

@testable import Feed

/// The documented bounds of a price file and what is said when one is exceeded.
@Suite struct LimitsTests {
    static let header = "Date,Open,High,Low,Close,Adj Close,Volume\n"

    @Test("a header of many columns is refused before names are made") func aHeaderOfManyColumnsIsRefusedBeforeNamesAreMade() {
        let text = "Date,Close" + String(repeating: ",", count: 100) + "\n2024-01-02,1\n"
        #expect(parseError(text)?.description
                == "test.csv: refused: more than 64 columns in the header (see Limits in docs/configuration.md)")
        let million = "Date,Close" + String(repeating: ",", count: 1_000_000) + "\n2024-01-02,1\n"
        #expect(parseError(million)?.description
                == "test.csv: refused: a header longer than 4096 bytes (see Limits in docs/configuration.md)")
        let wide = "Date,Close" + String(repeating: ",x", count: 62) + "\n2024-01-02,1\n"
        #expect(parseError(wide) == nil)
    }

    @Test("a long header is refused AL ong row skipped") func aLongHeaderIsRefusedALongRowSkipped() {
        #expect(parseError("Date,Close," + String(repeating: "x", count: 5000) + "\n2024-01-02,1\n")?.description
                == "test.csv: refused: a header longer than 4096 bytes (see Limits in docs/configuration.md)")
        let (series, report) = parseCSV("Date,Close\n2024-01-02,1," + String(repeating: "9", count: 5000) + "\n2024-01-03,2\n")
        #expect(series.count == 1)
        #expect(report.firstSkipped.map(\.reason) == [.lineTooLong(limit: 4096)])
    }

    @Test("more rows than the limit are refused") func moreRowsThanTheLimitAreRefused() {
        var text = "Date,Close\n"
        text.reserveCapacity(YahooCSV.maximumRows * 14)
        for i in 0...YahooCSV.maximumRows { text += "\(1000 + i / 1000)-01-01,1\n" }
        #expect(parseError(text)?.description == "test.csv: refused: more than 500000 data rows (see Limits in docs/configuration.md)")
    }

    /// Run as root, check-config and render read whatever path a config names: the first line of
    /// some other file (a key, a password file) must not end up in the message.
    @Test("another files first line is not printed") func anotherFilesFirstLineIsNotPrinted() {
        let secrets = ["root:$6$c2VjcmV0$hunter2hunter2:19000:0:99999:7:::\n",
                       "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
                       "password=hunter2,token=abcdef\n"]
        for secret in secrets {
            let message = parseError(secret)?.description ?? ""
            #expect(message.contains("not a price CSV"))
            #expect(!message.contains("hunter2") && !message.contains("OPENSSH") && !message.contains("b3Bl"), "\(message)")
        }
        // A real header that lacks a column is still shown: it is what the user has to fix.
        #expect(parseError("Date,Open\n2024-01-01,1\n") == .notCSV(path: "test.csv", header: "Date,Open"))
    }

    @Test("a FIFO as data is refused") func aFIFOAsDataIsRefused() {
        let path = "/tmp/tickerboard-limits-\(getpid()).csv"
        defer { unlink(path) }
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: FeedError.unreadable(path: path, reason: "not a regular file")) { try YahooCSV.load(path: path) }
    }
}
