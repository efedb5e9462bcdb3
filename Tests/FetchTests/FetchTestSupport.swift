// Helpers for the fetcher's tests: the recorded responses, scratch directories, file bytes.

import Glibc
import Testing

@testable import Feed
@testable import Fetch

enum Fixtures {
    /// `shared/data/providers` above this file (the recorded real responses; never copied here).
    static var directory: String? {
        var dir = parent(#filePath)
        while dir != "/" {
            for candidate in [dir + "/shared/data/providers", dir + "/../shared/data/providers"] where access(candidate, F_OK) == 0 {
                return candidate
            }
            dir = parent(dir)
        }
        return nil
    }

    static func path(_ name: String) throws -> String {
        let dir = try #require(directory, "shared/data/providers not found above \(#filePath)")
        return dir + "/" + name
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        try #require(read(try path(name)), "cannot read \(name)")
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// This repository's own fixtures (Fixtures/crypto beside this file: documentation examples,
    /// each with a sidecar naming its page).
    static func crypto(_ name: String) -> String { parent(#filePath) + "/Fixtures/crypto/" + name }

    static func cryptoBytes(_ name: String) throws -> [UInt8] {
        try #require(read(crypto(name)), "cannot read Fixtures/crypto/\(name)")
    }

    static func read(_ path: String) -> [UInt8]? { try? FeedFileReader.read(path: path, limit: 1 << 30) }

    static func write(_ path: String, _ text: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot write \(path)")
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// A fresh directory under /tmp, removed by `cleanUp`.
    static func scratchDirectory() -> String {
        var template = Array("/tmp/tickerboard-fetch-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(cString: template)
    }

    static func cleanUp(_ directory: String) {
        guard directory.hasPrefix("/tmp/tickerboard-fetch-test.") else { return }
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
                if name != "." && name != ".." { unlink(directory + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(directory)
    }

    /// Unix time of a New York wall-clock reading.
    static func newYork(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Int64 {
        let zone = try! ExchangeTimeZone(identifier: "America/New_York")
        return zone.unixTime(for: CivilDateTime(year: y, month: m, day: d, hour: h, minute: min)!)
    }
}

/// A transport that answers from memory (for the parts that need no socket).
struct CannedTransport: HTTPTransport {
    var answer: @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>
    func get(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> { answer(request) }
}

extension FetchRequest {
    static func daily(_ symbol: String, now: Int64 = 1_700_000_000) -> FetchRequest {
        FetchRequest(symbol: symbol, slot: .daily, now: now, fileName: "\(symbol).csv")
    }
    static func intraday(_ symbol: String, now: Int64 = 1_700_000_000) -> FetchRequest {
        FetchRequest(symbol: symbol, slot: .intraday, now: now, fileName: "\(symbol)-1m.csv")
    }
}

func json(_ body: [UInt8], status: Int = 200, type: String = "application/json;charset=utf-8",
          headers: [String: String] = [:]) -> HTTPResponse {
    var h = headers
    h["content-type"] = type
    return HTTPResponse(status: status, headers: h, body: body)
}

func provider(_ kind: String, key: String? = nil) -> any Provider {
    Providers.make(ProviderSettings(name: kind, kind: kind, baseURL: kind == "http-csv" ? "http://127.0.0.1:9" : nil,
                                    key: key.map(Secret.init)))!
}
