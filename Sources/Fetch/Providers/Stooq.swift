import Feed
/// `GET /q/d/l/?s=aapl.us&i=d&apikey=KEY`: daily bars only, no time zone or currency.
public struct StooqProvider: Provider {
    public static let kind = "stooq"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { slot == .daily }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        var url = joinURL(settings.baseURL, "/q/d/l/") + "?s=\(urlEncode(request.symbol.lowercased()))&i=d"
        if let newest = request.newestBarOnDisk {
            // Only the recent rows: less to download, and the history on disk is kept anyway.
            let from = CivilDate(unixTime: newest.subtractingReportingOverflow(7 * 86_400).overflow ? newest : newest - 7 * 86_400)
            url += "&d1=\(from.description.filter { $0 != "-" })"
        }
        if let key = settings.key { url += "&apikey=\(urlEncode(key.value))" }
        return HTTPRequest(url: url, headers: ["Accept: text/csv"])
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now,
                                              accepted: ["text/csv", "text/plain", "application/csv", "application/octet-stream"]) {
            return .failure(problem)
        }
        let text = ResponseChecks.firstLine(of: response.body)
        if text.lowercased().hasPrefix("no data") {
            return .failure(.providerError(status: response.status, message: "\"No data\": unknown symbol \(request.symbol)?"))
        }
        if text.lowercased().contains("exceeded the daily hits limit") {
            return .failure(.rateLimited(retryAfter: nil, message: text))
        }
        var body = response.body
        // stooq.pl writes Polish column names.
        let polish = [("Data", "Date"), ("Otwarcie", "Open"), ("Najwyzszy", "High"), ("Najnizszy", "Low"),
                      ("Zamkniecie", "Close"), ("Wolumen", "Volume")]
        if text.hasPrefix("Data,") {
            var header = text
            for (pl, en) in polish { header = header.replacing(pl, with: en) }
            let end = body.firstIndex(of: 0x0A) ?? body.count
            var lineEnd = end
            if lineEnd > 0, body[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            body = Array(header.utf8) + body[lineEnd...]
        }
        return CSVBody.parse(body, request: request, provider: settings.name).map { data in
            var d = data
            d.symbol = request.symbol
            if d.bars.count >= 2 { d.previousClose = d.bars[d.bars.count - 2].close }
            return d
        }
    }
}
