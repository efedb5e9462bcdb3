/// Everything that can stop Feed from producing a series or a time zone.
///
/// Each case names the file (as the caller spelled its path) or the zone, because these messages end
/// up in one journal line or on screen, where "file not found" without a name is useless.
public enum FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    case fileNotFound(path: String)
    /// Opening or reading failed for another reason (permissions, a directory, an I/O error).
    case unreadable(path: String, reason: String)
    case fileTooLarge(path: String, bytes: Int64, limit: Int64)
    /// No header with the columns a price file needs; `header` is the first line found (shortened).
    case notCSV(path: String, header: String)
    /// The first line is split by tabs, or by semicolons into columns none of the names the parser
    /// knows (a semicolon export with known names is read): said so, with what to do, rather than
    /// "1 column".
    case otherDelimiter(path: String, delimiter: String)
    /// The header is fine but a column the caller asked for is absent (e.g. `Adj Close`).
    case missingColumn(path: String, column: String)
    /// Past one of the documented bounds (`YahooCSV.maximumRows` …); `limit` says which, in words.
    case limitExceeded(path: String, limit: String)
    /// The file parsed but no row survived validation; the report says why.
    case noUsableRows(path: String, report: ParseReport)
    /// A time zone name that could escape the zoneinfo directory or is not an IANA-style name.
    case invalidTimeZoneName(String)
    case unknownTimeZone(String)
    /// The zone file exists but is not a valid TZif file, or a TZ rule string does not parse.
    case invalidTimeZoneData(name: String, reason: String)

    /// The columns a price CSV is expected to have, for messages.
    public static let expectedColumns = "Date (or Datetime),Open,High,Low,Close,Adj Close,Volume"

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .fileTooLarge(let path, let bytes, let limit):
            return "\(path): file is \(megabytes(bytes)), larger than the \(megabytes(limit)) a price file may be"
        case .notCSV(let path, let header):
            if header.isEmpty {
                return "\(path): empty file, expected a CSV with the columns \(FeedError.expectedColumns)"
            }
            let shown = header.hasPrefix("(") ? "the first line \(header)" : "the header \"\(header)\""
            return "\(path): not a price CSV: \(shown) lacks a Date/Datetime or Close column "
                + "(expected \(FeedError.expectedColumns); Open, High, Low, Adj Close and Volume are optional)"
        case .otherDelimiter(let path, let delimiter):
            return "\(path): the columns are separated by \(delimiter), not commas (a spreadsheet's export, often with "
                + "decimal commas?): save it as CSV with commas between columns and a point as the decimal mark "
                + "(expected \(FeedError.expectedColumns))"
        case .limitExceeded(let path, let limit):
            return "\(path): refused: \(limit) (see Limits in docs/configuration.md)"
        case .missingColumn(let path, let column):
            return "\(path): no \"\(column)\" column"
        case .noUsableRows(let path, let report):
            if report.dataRows == 0 { return "\(path): no data rows after the header" }
            guard let first = report.firstSkipped.first, let summary = report.summary else {
                return "\(path): no usable rows"
            }
            return "\(path):\(first.line): no usable rows: \(summary)"
        case .invalidTimeZoneName(let name):
            return "time zone \"\(name)\": not a valid IANA zone name (like Europe/Berlin)"
        case .unknownTimeZone(let name):
            return "time zone \"\(name)\": unknown (no such zone in the tz database)"
        case .invalidTimeZoneData(let name, let reason):
            return "time zone \"\(name)\": invalid data: \(reason)"
        }
    }
}

private func megabytes(_ bytes: Int64) -> String {
    let mebibyte: Int64 = 1 << 20
    if bytes >= mebibyte { return "\(bytes / mebibyte) MB" }
    return "\(bytes) bytes"
}
