// Small file and path helpers for the Feed tests, on Glibc so the tests need no Foundation either.

import Glibc
import Testing

@testable import Feed

enum TestFiles {
    /// The repository root: the nearest directory above this file that holds Package.swift.
    static var repositoryRoot: String {
        var directory = parent(of: #filePath)
        while directory != "/" {
            if exists(directory + "/Package.swift") { return directory }
            directory = parent(of: directory)
        }
        fatalError("no Package.swift above \(#filePath)")
    }

    /// The shared real-data directory: `shared/data` in this or an enclosing directory (locally
    /// /work/shared/data beside the checkout; in CI ../shared/data from the repository root).
    static var sharedDataDirectory: String? {
        var directory = parent(of: #filePath)
        while true {
            for candidate in [directory + "/shared/data", directory + "/../shared/data"] where exists(candidate) {
                return candidate
            }
            if directory == "/" { return nil }
            directory = parent(of: directory)
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func read(_ path: String) -> [UInt8]? {
        try? FileBytes.read(path: path, limit: 1 << 30)
    }

    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        guard let file = fopen(path, "wb") else { return false }
        defer { fclose(file) }
        return bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) } == bytes.count
    }

    /// A fresh private directory under /tmp, for files the tests create.
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/feedtests.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func removeTree(_ path: String) {
        // Only ever called on directories made by temporaryDirectory(), which hold plain files.
        precondition(path.hasPrefix("/tmp/feedtests."))
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

/// Parses CSV text that must parse; records an issue and returns an empty result otherwise.
func parseCSV(
    _ text: String,
    source: String = "test.csv",
    priceField: PriceField = .close,
    sourceLocation: SourceLocation = #_sourceLocation
) -> (series: PriceSeries, report: ParseReport) {
    do {
        return try YahooCSV.parse(text: text, source: source, priceField: priceField)
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        return (PriceSeries(name: "", interval: .daily, bars: []), ParseReport(source: source))
    }
}

/// The error a parse throws, or nil when it unexpectedly succeeds (which the caller's #expect catches).
func parseError(_ text: String, source: String = "test.csv", priceField: PriceField = .close) -> FeedError? {
    do {
        _ = try YahooCSV.parse(text: text, source: source, priceField: priceField)
        return nil
    } catch {
        return error
    }
}

func date(_ year: Int, _ month: Int, _ day: Int) -> CivilDate { CivilDate(year: year, month: month, day: day)! }

/// Unix time of a UTC wall-clock reading.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)!
        .secondsSinceEpochAsUTC
}
