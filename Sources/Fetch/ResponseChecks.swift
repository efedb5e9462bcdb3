// The checks every response passes before a provider's parser sees it, and the bar checks after:
// the places where "never make data worse" is decided. Providers differ in how they say "error"
// (a 4xx with JSON, an error object at 200, an HTML page at 200, plain text); all of it ends up as
// one `FetchProblem` with the provider's own words, shortened to one line.

import Feed

enum ResponseChecks {
    /// Status, content type and sniffing. `accepted` lists the media types the endpoint sends; a
    /// response without a content type is let through to the parser (the body still has to parse).
    static func check(_ response: HTTPResponse, now: Int64, accepted: [String],
                      message: (HTTPResponse) -> String? = { _ in nil }) -> FetchProblem? {
        let said = message(response) ?? firstLine(of: response.body)
        switch response.status {
        case 200..<300: break
        case 429: return .rateLimited(retryAfter: response.retryAfter(now: now), message: said)
        case 401, 403: return .unauthorized(status: response.status, message: said)
        case 500..<600:
            // 503 often carries Retry-After too; honour it through the same path as 429.
            if let after = response.retryAfter(now: now) { return .rateLimited(retryAfter: after, message: "HTTP \(response.status): \(said)") }
            return .serverError(status: response.status, message: said)
        case 300..<400: return .notData("HTTP \(response.status) redirect without a usable Location")
        default: return .providerError(status: response.status, message: said.isEmpty ? "no message" : said)
        }
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return .badData("empty response (HTTP \(response.status), no body)")
        }
        if looksLikeHTML(response.body) || response.mediaType == "text/html" || response.mediaType == "application/xhtml+xml" {
            let title = htmlTitle(response.body).map { " (\"\($0)\")" } ?? ""
            return .notData("an HTML page\(title) at HTTP \(response.status), not data (a consent, login or anti-bot page?)")
        }
        if let type = response.mediaType, !accepted.contains(type) {
            return .notData("content type \(type), expected \(accepted.joined(separator: " or "))")
        }
        return nil
    }

    static func looksLikeHTML(_ body: [UInt8]) -> Bool {
        var i = 0
        if body.count >= 3, body[0] == 0xEF, body[1] == 0xBB, body[2] == 0xBF { i = 3 }
        while i < body.count, body[i] == 0x20 || body[i] == 0x0A || body[i] == 0x0D || body[i] == 0x09 { i += 1 }
        guard i < body.count, body[i] == UInt8(ascii: "<") else { return false }
        let head = String(decoding: body[i..<min(body.count, i + 64)], as: UTF8.self).lowercased()
        return head.hasPrefix("<!doctype html") || head.hasPrefix("<html") || head.hasPrefix("<head")
            || head.hasPrefix("<body") || head.hasPrefix("<!--") || head.hasPrefix("<meta") || head.hasPrefix("<title")
            || head.hasPrefix("<script") || head.hasPrefix("<div") || head.hasPrefix("<?xml")
    }

    static func htmlTitle(_ body: [UInt8]) -> String? {
        let lower = body.prefix(16_384).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        guard let open = find(Array("<title".utf8), in: lower, from: 0),
            let close = lower[open...].firstIndex(of: UInt8(ascii: ">")),
            let end = find(Array("</title".utf8), in: lower, from: close)
        else { return nil }
        let title = oneLine(String(decoding: body[(close + 1)..<end], as: UTF8.self), limit: 80)
        return title.isEmpty ? nil : title
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, start <= hay.count - needle.count else { return nil }
        var i = start
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// The first line of a body, cleaned for a log line.
    static func firstLine(of body: [UInt8]) -> String {
        let head = body.prefix(400).split(separator: 0x0A, maxSplits: 1).first.map(Array.init) ?? []
        return oneLine(String(decoding: head, as: UTF8.self), limit: 160)
    }

    /// No control characters, no run of spaces, at most `limit` characters.
    static func oneLine(_ text: String, limit: Int = 200) -> String {
        var out = ""
        var lastWasSpace = false
        for ch in text {
            let isSpace = ch.isWhitespace || ch.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            if isSpace {
                if !lastWasSpace && !out.isEmpty { out.append(" ") }
                lastWasSpace = true
            } else {
                out.append(ch)
                lastWasSpace = false
            }
            if out.count >= limit { return out + "…" }
        }
        return lastWasSpace ? String(out.dropLast()) : out
    }

    /// Builds checked bars from parallel columns (Yahoo's and similar shapes). A bar whose close is
    /// missing is skipped (providers send whole null bars for minutes without trades); a present
    /// price that is zero, negative or not finite rejects the whole response, because a feed that
    /// sends one impossible price cannot be trusted for the others.
    static func bars(times: [Int64], open: [Double?]?, high: [Double?]?, low: [Double?]?, close: [Double?]?,
                     adjustedClose: [Double?]? = nil, volume: [Double?]? = nil) -> Result<[PriceBar], FetchProblem> {
        guard let close, !times.isEmpty else { return .failure(.badData("no bars in the response")) }
        for (name, column) in [("close", close), ("open", open ?? close), ("high", high ?? close), ("low", low ?? close)]
        where column.count < times.count {
            return .failure(.badData("\(times.count) timestamps but \(column.count) \(name) values (truncated?)"))
        }
        var out: [PriceBar] = []
        out.reserveCapacity(times.count)
        for (i, time) in times.enumerated() {
            guard close[i] != nil else { continue }
            func value(_ column: [Double?]?, _ name: String) -> Result<Double?, FetchProblem> {
                guard let column, i < column.count, let v = column[i] else { return .success(nil) }
                guard v.isFinite, name == "volume" ? v >= 0 : v > 0 else {
                    return .failure(.badData("bar \(i + 1) (t=\(time)): \(name) is \(v), expected a \(name == "volume" ? "volume of zero or more" : "price above zero")"))
                }
                return .success(v)
            }
            let values = [value(close, "close"), value(open, "open"), value(high, "high"), value(low, "low"),
                          value(adjustedClose, "adjusted close"), value(volume, "volume")]
            var got: [Double?] = []
            for v in values {
                switch v {
                case .success(let x): got.append(x)
                case .failure(let p): return .failure(p)
                }
            }
            let closeValue = got[0]!
            out.append(PriceBar(time: time, open: got[1] ?? closeValue, high: got[2] ?? closeValue, low: got[3] ?? closeValue,
                                close: closeValue, adjustedClose: got[4], volume: got[5]))
        }
        if out.isEmpty { return .failure(.badData("every bar in the response has no price (all null)")) }
        return .success(out)
    }

    /// Providers that list newest first or repeat a bar: ascending, one bar per time (last wins).
    static func sorted(_ bars: [PriceBar]) -> [PriceBar] {
        PriceSeries(name: "", interval: .daily, bars: bars).bars
    }

    /// Compares the symbol in a response with the one asked for (case-insensitively; providers echo
    /// `aapl.us` as `AAPL.US`).
    static func checkSymbol(_ got: String?, asked: String) -> FetchProblem? {
        guard let got, !got.isEmpty else { return nil }
        if got.lowercased() == asked.lowercased() { return nil }
        return .badData("the response is for \"\(oneLine(got, limit: 40))\", not \"\(asked)\"")
    }
}

/// `2021-07-01` or `2021-07-01 15:59:00` (naive local time), as Alpha Vantage and Twelve Data write.
enum LocalTimestamp {
    static func parse(_ text: String) -> CivilDateTime? {
        let parts = text.split(separator: " ")
        guard (1...2).contains(parts.count) else { return nil }
        let ymd = parts[0].split(separator: "-").compactMap { Int($0) }
        guard ymd.count == 3 else { return nil }
        var hms = [0, 0, 0]
        if parts.count == 2 {
            let t = parts[1].split(separator: ":").compactMap { Int($0) }
            guard (2...3).contains(t.count) else { return nil }
            for (i, v) in t.enumerated() { hms[i] = v }
        }
        return CivilDateTime(year: ymd[0], month: ymd[1], day: ymd[2], hour: hms[0], minute: hms[1], second: hms[2])
    }
}
