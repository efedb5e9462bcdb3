import Commands
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

private func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

private func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

@Suite("Command line")
struct CommandLineTests {
    @Test("render --range 1M writes a 1920x1080 frame of the sample that matches the golden image")
    func renderOneMonth() throws {
        let frame = try renderedFrame(["render", "--range", "1M"], tag: "render-1M")
        #expect(frame.width == 1920 && frame.height == 1080)
        let result = ImageComparison.checkScreen(frame, golden: "render-sample-1M.png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("render --transition writes every frame of the morph, ending on the target range")
    func renderTransition() throws {
        let dir = TestPaths.temporary("transition")
        mkdir(dir, 0o755)
        let end = TestPaths.temporary("render-1Y.png")
        defer {
            for i in 0..<20 { unlink(dir + "/frame-00\(i < 10 ? "0" : "")\(i).png") }
            rmdir(dir); unlink(end)
        }
        #expect(Tickerboard.main(["render", "--transition", "1M:1Y", "--fps", "10", "--size", "480x270",
                                  "--output-dir", dir]) == 0)
        #expect(exists(dir + "/frame-0012.png"))
        #expect(!exists(dir + "/frame-0013.png"))
        #expect(Tickerboard.main(["render", "--range", "1Y", "--size", "480x270", "--output", end]) == 0)
        let last = try PNG.read(dir + "/frame-0012.png"), target = try PNG.read(end)
        #expect(ImageComparison.compare(last, target).maxDifference == 0)
        let first = try PNG.read(dir + "/frame-0000.png")
        #expect(ImageComparison.compare(first, target).maxDifference > 0)
    }

    @Test("bad input gives exit status 2 and leaves no output file", arguments: [
        ["render", "--data", "/nonexistent/prices.csv", "--output"],
        ["render", "--size", "12x9000000", "--output"],
        ["render", "--size", "banana", "--output"],
        ["render", "--range", "2W", "--output"],
        ["render", "--frobnicate", "--output"],
        ["render", "--time-zone", "Mars/Olympus_Mons", "--output"],
        ["render", "--time-zone", "../../etc/passwd", "--output"],
        // With --config the data, zone and look come from the config: giving them too is a mistake.
        ["render", "--config", "/dev/null", "--data", "x.csv", "--output"],
        ["render", "--config", "/dev/null", "--locale", "de-DE", "--output"],
        ["render", "--instrument", "AAPL", "--output"],
        ["render", "--config", "/dev/null", "--scene", "ticker", "--output"],
    ])
    func badInput(arguments: [String]) {
        let out = TestPaths.temporary("bad-\(arguments[1].dropFirst(2)).png")
        #expect(Tickerboard.main(arguments + [out]) == 2)
        #expect(!exists(out))
    }

    @Test("render --config draws the config's instrument under its own name and says so in --values; an unknown instrument is a usage error")
    func renderConfig() throws {
        let dir = TestPaths.temporary("render-config")
        mkdir(dir, 0o755)
        let conf = dir + "/t.conf", out = dir + "/t.png"
        defer { unlink(conf); unlink(out); unlink(dir + "/A.csv"); rmdir(dir) }
        writeFile(dir + "/A.csv", "Date,Open,High,Low,Close,Volume\n2024-03-25,10,11,9,10,1\n2024-03-26,10,11,9,11,1\n"
                  + "2024-03-27,10,11,9,12,1\n2024-03-28,10,11,9,12.5,1\n")
        writeFile(conf, "[data]\ndirectory = \(dir)\n[chart]\nlocale = de-DE\nstart-range = 1D\n"
                  + "[instrument A]\nname = Alpha AG\ndaily = A.csv\ncurrency = EUR\nexchange = XETR\n")
        #expect(Tickerboard.main(["render", "--config", conf, "--size", "480x320", "--now", "2024-03-28T18:00", "--output", out]) == 0)
        let frame = try PNG.read(out)
        #expect(frame.width == 480 && frame.height == 320)
        #expect(Tickerboard.main(["render", "--config", conf, "--instrument", "B", "--output", out]) == 2)
    }

    @Test("a CSV with no usable rows is refused, naming the file; a few bad rows are skipped")
    func csvWithoutUsableRows() throws {
        let bad = TestPaths.temporary("bad.csv"), out = TestPaths.temporary("bad-csv.png")
        let partly = TestPaths.temporary("partly.csv"), out2 = TestPaths.temporary("partly.png")
        defer { unlink(bad); unlink(out); unlink(partly); unlink(out2) }
        writeFile(bad, "Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,x,x,x,null,x,1\n")
        #expect(Tickerboard.main(["render", "--data", bad, "--output", out]) == 2)
        #expect(!exists(out))
        var rows = "Date,Open,High,Low,Close,Adj Close,Volume\n"
        for d in 1...28 { rows += "2024-02-\(d < 10 ? "0" : "")\(d),1,1,1,\(100 + d),1,1\n" }
        rows += "2024-02-29,1,1,1,oops,1,1\n"
        writeFile(partly, rows)
        #expect(Tickerboard.main(["render", "--data", partly, "--output", out2]) == 0)
        #expect(exists(out2))
    }

    @Test("check-config refuses daily and intraday files swapped, at the line naming each")
    func swappedFiles() {
        let dir = TestPaths.temporary("swapped")
        mkdir(dir, 0o755)
        let daily = dir + "/X.csv", intraday = dir + "/X-1m.csv", conf = dir + "/t.conf"
        defer { unlink(daily); unlink(intraday); unlink(conf); rmdir(dir) }
        writeFile(daily, "Date,Open,High,Low,Close\n2024-02-01,1,1,1,100\n2024-02-02,1,1,1,101\n")
        writeFile(intraday, "Datetime,Open,High,Low,Close\n2024-02-02 09:30:00-05:00,1,1,1,100\n2024-02-02 09:31:00-05:00,1,1,1,101\n")
        writeFile(conf, "[data]\ndirectory = \(dir)\n[instrument X]\ndaily = X.csv\nintraday = X-1m.csv\n")
        #expect(Tickerboard.main(["check-config", conf]) == 0)
        writeFile(conf, "[data]\ndirectory = \(dir)\n[instrument X]\ndaily = X-1m.csv\nintraday = X.csv\n")
        #expect(Tickerboard.main(["check-config", conf]) == 1)
    }

    @Test("unknown commands and help")
    func commands() {
        #expect(Tickerboard.main(["frobnicate"]) == 2)
        #expect(Tickerboard.main(["--help"]) == 0)
        #expect(Tickerboard.main(["render", "--help"]) == 0)
        #expect(Tickerboard.main(["bench", "--mode", "nonsense"]) == 2)
    }
}
