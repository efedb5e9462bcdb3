// HTTP GET through libcurl: TLS with the system's CA store, proxies from the environment
// (http_proxy, https_proxy, no_proxy: libcurl's own handling), HTTP/2 where the server offers it,
// connect and total timeouts, a cap on the body, a bounded number of redirects, http/https only.
// The rest of the fetcher sees `HTTPTransport`, so tests can also feed responses without a socket.

import CCurl
import Feed

/// An answer with a status line (any status: 4xx and 5xx bodies carry the provider's message).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased; of repeated headers the last wins.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The media type without parameters, lowercased (`application/json`); nil when absent.
    public var mediaType: String? {
        guard let value = headers["content-type"] else { return nil }
        let type = value.split(separator: ";").first.map { String($0).lowercased() } ?? ""
        let trimmed = type.filter { $0 != " " && $0 != "\t" }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `Retry-After` in seconds (the delta form; an HTTP date is turned into a delta by the caller's
    /// clock through `retryAfter(now:)`).
    public func retryAfter(now: Int64) -> Int? {
        // Trimmed, not stripped: the date form's spaces separate its fields.
        guard let value = headers["retry-after"]?.trimmingCharacters(in: " \t"), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) { return Int(value).map { min($0, 86_400) } ?? 86_400 }
        if let date = HTTPDate.parse(value) {
            let (delta, overflow) = date.subtractingReportingOverflow(now)
            return overflow ? (date > now ? 86_400 : 0) : Int(max(0, min(86_400, delta)))
        }
        return nil
    }
}

/// Why no response arrived.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut(seconds: Int)
    case cannotConnect(String)
    /// The connection broke, or the server closed it without (or in the middle of) an answer.
    case connectionLost(String)
    /// The body ended before its announced length.
    case truncated
    case bodyTooLarge(limit: Int)
    case tooManyRedirects(limit: Int)
    case other(String)

    public var description: String {
        switch self {
        case .timedOut(let s): return "no complete answer within \(s) s"
        case .cannotConnect(let m): return "cannot connect: \(m)"
        case .connectionLost(let m): return "connection lost: \(m)"
        case .truncated: return "the body ended before its announced length (truncated)"
        case .bodyTooLarge(let limit): return "the body is larger than \(limit) bytes, refused"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .other(let m): return m
        }
    }

    /// Worth retrying soon with backoff (the network or the server had a moment).
    public var isTransient: Bool {
        switch self {
        case .timedOut, .cannotConnect, .connectionLost, .truncated: return true
        case .bodyTooLarge, .tooManyRedirects, .other: return false
        }
    }
}

public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// Extra header lines, `Name: value`.
    public var headers: [String]
    /// The provider's `user-agent =`; nil: the transport's own (`HTTPLimits.userAgent`).
    public var userAgent: String?

    public init(url: String, headers: [String] = []) {
        self.url = url
        self.headers = headers
    }
}

public protocol HTTPTransport: Sendable {
    func get(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError>
}

/// Limits for every request.
public struct HTTPLimits: Sendable, Equatable {
    public var connectTimeout = 10.0
    /// The whole exchange, body included: a server that dribbles bytes is cut off here.
    public var totalTimeout = 30.0
    public var maximumBody = 8 << 20
    public var maximumRedirects = 3
    public var userAgent = "tickerboard-fetch/1.0"

    public init() {}
}

private let curlGlobalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

/// libcurl's easy interface, one handle per request (a request every few seconds at most; a
/// handle pool would buy nothing).
public struct CurlTransport: HTTPTransport {
    /// A timeout in libcurl's milliseconds, within what a long holds and a day at most: a config
    /// checks its values, but a limit from elsewhere must not trap the conversion.
    static func milliseconds(_ seconds: Double) -> Int {
        // (0 would mean "no timeout" to libcurl: never that)
        guard seconds.isFinite else { return 86_400_000 }
        return Int(min(max(seconds, 0.001), 86_400) * 1000)
    }

    public var limits: HTTPLimits

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// Collects one response; libcurl calls into it from `curl_easy_perform` on this thread.
    private final class Sink {
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        var limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    public func get(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> {
        guard curlGlobalInit, let handle = curl_easy_init() else { return .failure(.other("libcurl failed to initialise")) }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(limit: limits.maximumBody)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for line in request.headers { headerList = curl_slist_append(headerList, line) }

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            _ = tb_curl_set_string(handle, CURLOPT_URL, request.url)
            _ = tb_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            // No signals: libcurl would otherwise use SIGALRM for DNS timeouts.
            _ = tb_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = tb_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = tb_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            _ = tb_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            _ = tb_curl_set_long(handle, CURLOPT_MAXREDIRS, limits.maximumRedirects)
            _ = tb_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout))
            _ = tb_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.totalTimeout))
            _ = tb_curl_set_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            // Any encoding libcurl can decode; the size cap applies to the decoded body.
            _ = tb_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
            // Refused before the body arrives when the server announces the length.
            _ = tb_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maximumBody))
            _ = tb_curl_set_string(handle, CURLOPT_USERAGENT, request.userAgent ?? limits.userAgent)
            if let headerList { _ = tb_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList) }
            _ = tb_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
            _ = tb_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let n = size * count
                if sink.body.count + n > sink.limit {
                    sink.overflowed = true
                    return 0  // makes libcurl stop with CURLE_WRITE_ERROR
                }
                if let data { data.withMemoryRebound(to: UInt8.self, capacity: n) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) } }
                return n
            }
            _ = tb_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
            _ = tb_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let n = size * count
                guard let data else { return n }
                let line = data.withMemoryRebound(to: UInt8.self, capacity: n) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
                }
                // Each response of a redirect chain starts with a status line: keep the last one's headers.
                if line.hasPrefix("HTTP/") { sink.headers = [:]; return n }
                if let colon = line.firstIndex(of: ":") {
                    let name = line[..<colon].lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
                    sink.headers[name] = value
                }
                return n
            }
            return curl_easy_perform(handle)
        }

        let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_OK: break
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut(seconds: Self.milliseconds(limits.totalTimeout) / 1000))
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .failure(.cannotConnect(detail))
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .failure(.connectionLost(detail))
        case CURLE_PARTIAL_FILE: return .failure(.truncated)
        case CURLE_FILESIZE_EXCEEDED: return .failure(.bodyTooLarge(limit: limits.maximumBody))
        case CURLE_WRITE_ERROR where sink.overflowed: return .failure(.bodyTooLarge(limit: limits.maximumBody))
        case CURLE_TOO_MANY_REDIRECTS: return .failure(.tooManyRedirects(limit: limits.maximumRedirects))
        default: return .failure(.other("transfer failed: \(detail)"))
        }
        var status = 0
        _ = tb_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }
}

/// `Wed, 21 Oct 2015 07:28:00 GMT` (the one form servers send in `Retry-After`).
/// The three date forms HTTP recipients must accept (RFC 9110 §5.6.7): IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
/// `Sun Nov  6 08:49:37 1994`. Years outside 1900-9999 and impossible times are no date.
enum HTTPDate {
    static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        if parts.count == 6, parts[5] == "GMT" {
            return make(year: parts[3], month: parts[2], day: parts[1], time: parts[4])
        }
        if parts.count == 4, parts[3] == "GMT" {
            let dmy = parts[1].split(separator: "-")
            guard dmy.count == 3, dmy[2].count == 2, let yy = Int(dmy[2]) else { return nil }
            // RFC 850's two-digit year: the recent past, as RFC 9110 tells recipients to read it.
            return make(year: Substring(String(yy < 70 ? 2000 + yy : 1900 + yy)), month: dmy[1], day: dmy[0], time: parts[2])
        }
        if parts.count == 5 {
            return make(year: parts[4], month: parts[1], day: parts[2], time: parts[3])
        }
        return nil
    }

    private static func make(year: Substring, month: Substring, day: Substring, time: Substring) -> Int64? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard year.count == 4, let y = Int(year), (1900...9999).contains(y), day.count <= 2, let d = Int(day),
              let m = months.firstIndex(of: month.lowercased()) else { return nil }
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }), let h = Int(hms[0]), let mi = Int(hms[1]), let s = Int(hms[2]),
              (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s),
              let date = CivilDate(year: y, month: m + 1, day: d) else { return nil }
        return date.unixTimeAtMidnightUTC + Int64(h * 3600 + mi * 60 + s)
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
