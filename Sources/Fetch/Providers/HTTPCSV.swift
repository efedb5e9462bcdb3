import Feed
/// `GET BASE/FILE` where FILE is the instrument's data file name (`AAPL.csv`, `AAPL-1m.csv`): any web
/// server holding Yahoo-layout CSV files, typically another Tickerboard's data directory.
public struct HTTPCSVProvider: Provider {
    public static let kind = "http-csv"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let name = request.fileName.split(separator: "/").last.map(String.init) ?? request.fileName
        var headers = ["Accept: text/csv"]
        if let key = settings.key { headers.append("Authorization: Bearer \(key.value)") }
        return HTTPRequest(url: joinURL(settings.baseURL, "/" + urlEncode(name)), headers: headers)
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: [
            "text/csv", "text/plain", "application/csv", "text/comma-separated-values", "application/octet-stream",
            "binary/octet-stream",
        ]) {
            return .failure(problem)
        }
        return CSVBody.parse(response.body, request: request, provider: settings.name)
    }
}
