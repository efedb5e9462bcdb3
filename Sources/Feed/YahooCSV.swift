// The Yahoo Finance / yfinance CSV reader.
//
// Real price files are messy: exported in either sort order, re-downloaded and concatenated (so
// dates repeat), edited in spreadsheets (CRLF, a BOM, quotes, extra columns), with `null` or empty
// cells for missing days. The parser accepts all of that, rejects only rows it cannot trust, and
// says which rows and why in one line, so a bad file degrades the chart instead of breaking it.
//
// It is line-oriented on purpose: one damaged line can never swallow the rest of the file, and the
// work is one pass with memchr-driven splitting, O(n) in the file size plus one sort when the rows
// are not already ascending.

/// Why a data row was skipped.
public enum SkipReason: Sendable, Equatable, CustomStringConvertible {
    /// The row ends before the required Date or Close column.
    case tooFewFields(found: Int, needed: Int)
    case badTimestamp(column: String, text: String)
    /// Close (or Adj Close, when charting it) is empty or `null`.
    case missingValue(column: String)
    case notANumber(column: String, text: String)
    case notFinite(column: String, text: String)
    /// A price at or below zero, or a negative volume.
    case outOfRange(column: String, text: String)
    /// Longer than `YahooCSV.maximumLineLength` bytes: no price row is.
    case lineTooLong(limit: Int)
    /// The file's last line has no line end: a row being appended this moment (`…,121.5,12` of
    /// `…,121.5,120,121.5`) would read as a price. Left out when reading a live file.
    case noLineEnd

    public var description: String {
        switch self {
        case .tooFewFields(let found, let needed):
            return "has \(found) field\(found == 1 ? "" : "s"), expected at least \(needed)"
        case .badTimestamp(let column, let text):
            return "\(column) is \"\(text)\", expected YYYY-MM-DD or YYYY-MM-DD HH:MM:SS±HH:MM"
        case .missingValue(let column):
            return "\(column) has no value"
        case .notANumber(let column, let text):
            return "\(column) is \"\(text)\", expected a number"
        case .notFinite(let column, let text):
            return "\(column) is \"\(text)\", expected a finite number"
        case .lineTooLong(let limit):
            return "is longer than \(limit) bytes"
        case .noLineEnd:
            return "has no line end yet (being written?), left out until it is complete"
        case .outOfRange(let column, let text):
            return column == "Volume"
                ? "Volume is \"\(text)\", expected zero or more"
                : "\(column) is \"\(text)\", expected a price above zero"
        }
    }
}

/// What the parser did with a file: enough for one warning line and for tests.
public struct ParseReport: Sendable, Equatable {
    public struct SkippedRow: Sendable, Equatable {
        /// 1-based line number in the file (the header is line 1 unless blank lines precede it).
        public var line: Int
        public var reason: SkipReason

        public init(line: Int, reason: SkipReason) {
            self.line = line
            self.reason = reason
        }
    }

    /// How many skipped rows are itemised in `firstSkipped` and the message.
    public static let itemisedLimit = 5

    /// The file path or other label the data came from.
    public var source: String
    /// Non-blank lines after the header.
    public var dataRows: Int = 0
    /// Bars in the resulting series.
    public var usedRows: Int = 0
    public var skippedRows: Int = 0
    /// Rows that were valid but replaced by a later row with the same time (the later one wins).
    public var duplicateRows: Int = 0
    /// Rows whose Close lies below Low (by more than 0.1 %) while their Adj Close lies within
    /// Low...High: Close and Adj Close swapped, a known defect of Yahoo exports (the adjusted price
    /// is the lower one, after dividends). The first such line.
    public var closeOutsideRangeRows: Int = 0
    public var firstCloseOutsideRangeLine: Int?
    /// Rows whose time of day had no UTC offset, and rows whose had one (intraday files).
    public var offsetlessTimeRows: Int = 0
    public var offsetTimeRows: Int = 0
    /// The first `itemisedLimit` skipped rows, in file order.
    public var firstSkipped: [SkippedRow] = []

    public init(source: String) { self.source = source }

    /// True when no row was skipped.
    public var isClean: Bool { skippedRows == 0 }

    /// What was skipped, after the first skipped row's line: `Close is "abc", expected a number;
    /// 3 rows skipped (lines 7, 9, 12)`, or nil when clean. One line however many rows: the first
    /// row's reason is the one to fix first, the others' lines say how widespread it is.
    public var summary: String? {
        guard let first = firstSkipped.first else { return nil }
        guard skippedRows > 1 else { return "\(first.reason); row skipped" }
        var lines = firstSkipped.map { String($0.line) }.joined(separator: ", ")
        if skippedRows > firstSkipped.count { lines += " and \(skippedRows - firstSkipped.count) more" }
        return "\(first.reason); \(skippedRows) rows skipped (lines \(lines))"
    }

    /// The one-line warning to log or show, in the config's `FILE:LINE: message` form at the first
    /// skipped row: `AAPL.csv:7: Close is "abc", expected a number; row skipped`; nil when clean.
    public var message: String? {
        let skipped = firstSkipped.first.flatMap { first in summary.map { "\(source):\(first.line): \($0)" } }
        let parts = [skipped, swappedColumnsMessage].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Close below the day's Low with Adj Close within its range: the columns look swapped, and a
    /// chart of Close would show the adjustment as a move (a +68 % 5Y change of nothing).
    public var swappedColumnsMessage: String? {
        guard closeOutsideRangeRows > 0, let line = firstCloseOutsideRangeLine else { return nil }
        return "\(source):\(line): Close lies below Low on \(closeOutsideRangeRows) row\(closeOutsideRangeRows == 1 ? "" : "s") "
            + "where Adj Close lies inside: Close and Adj Close look swapped (a known defect of Yahoo exports); "
            + "swap the two column names in the header, or fetch the file again"
    }

    mutating func recordSkip(line: Int, reason: SkipReason) {
        skippedRows += 1
        if firstSkipped.count < ParseReport.itemisedLimit {
            firstSkipped.append(SkippedRow(line: line, reason: reason))
        }
    }
}

public enum YahooCSV {
    // The limits (docs/configuration.md, "Limits"). Within them the worst file costs the parser about 150 MB and
    // well under a second; beyond them it is refused with a message that names the limit.

    /// Files above this are refused before reading: a price history is a few MB even at one-minute
    /// bars over years, so anything bigger is a mistake, and the daemon must not balloon to read it.
    public static let maximumFileSize = 64 << 20
    /// Data rows (non-blank lines after the header): five years of one-minute bars fit.
    public static let maximumRows = 500_000
    /// Bytes in one line; a longer data row is skipped, a longer header refuses the file.
    public static let maximumLineLength = 4096
    /// Columns in the header.
    public static let maximumColumns = 64

    /// Reads and parses the CSV file at `path`. Errors name the file.
    /// - Parameter completeLinesOnly: leave out a last line without a line end (a live file another
    ///   process appends to); the daemon reads its files so.
    public static func load(
        path: String,
        priceField: PriceField = .close,
        sizeLimit: Int = maximumFileSize,
        completeLinesOnly: Bool = false
    ) throws(FeedError) -> (PriceSeries, ParseReport) {
        let bytes = try FileBytes.read(path: path, limit: sizeLimit)
        return try parse(bytes, source: path, priceField: priceField, completeLinesOnly: completeLinesOnly)
    }

    /// Parses CSV bytes; `source` labels messages and errors and names the series (its file name
    /// without `.csv`).
    public static func parse(
        _ bytes: [UInt8],
        source: String,
        priceField: PriceField = .close,
        completeLinesOnly: Bool = false
    ) throws(FeedError) -> (PriceSeries, ParseReport) {
        let result: Result<(PriceSeries, ParseReport), FeedError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(FeedError) in try parse(buffer, source: source, priceField: priceField, completeLinesOnly: completeLinesOnly) }
        }
        return try result.get()
    }

    /// Parses CSV text (convenience for tests and embedded data).
    public static func parse(
        text: String,
        source: String,
        priceField: PriceField = .close
    ) throws(FeedError) -> (PriceSeries, ParseReport) {
        try parse(Array(text.utf8), source: source, priceField: priceField)
    }

    /// Parses CSV bytes from memory the caller owns (an mmap, a read buffer).
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>,
        source: String,
        priceField: PriceField = .close,
        completeLinesOnly: Bool = false
    ) throws(FeedError) -> (PriceSeries, ParseReport) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw .notCSV(path: source, header: "") }
        var parser = Parser(base: base, count: buffer.count, source: source, priceField: priceField)
        parser.completeLinesOnly = completeLinesOnly
        return try parser.run()
    }

    /// `AAPL` for `/data/AAPL.csv`.
    static func seriesName(fromSource source: String) -> String {
        var name = Substring(source)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if name.lowercased().hasSuffix(".csv") { name = name.dropLast(4) }
        return name.isEmpty ? source : String(name)
    }
}

// MARK: - The parser

/// The columns the parser reads; everything else in a row is skipped without being looked at.
private enum Column: Int, CaseIterable {
    case date = 0, open, high, low, close, adjustedClose, volume

    var displayName: String {
        switch self {
        case .date: return "Date"
        case .open: return "Open"
        case .high: return "High"
        case .low: return "Low"
        case .close: return "Close"
        case .adjustedClose: return "Adj Close"
        case .volume: return "Volume"
        }
    }

    /// Header spellings seen in the wild (Yahoo, yfinance, pandas, spreadsheets, German brokers'
    /// and portals' exports), lowercased with spaces, underscores and asterisks (Yahoo's web tables
    /// write `Close*`, `Adj Close**`) removed. Windows exports write Latin-1, whose umlauts decode as
    /// U+FFFD: `Er\u{FFFD}ffnung` is still the open.
    static func matching(normalisedName raw: String) -> Column? {
        let name = raw.contains("\u{FFFD}")
            ? String(raw.replacing("\u{FFFD}ffnung", with: "öffnung").replacing("h\u{FFFD}chst", with: "höchst")
                .replacing("\u{FFFD}", with: "ß"))
            : raw
        switch name {
        case "date", "datetime", "timestamp", "datum": return .date
        case "open", "eröffnung", "eröffnungskurs", "erster", "ersterkurs", "start": return .open
        case "high", "hoch", "hochkurs", "höchst", "höchstkurs", "tageshoch": return .high
        case "low", "tief", "tiefkurs", "tiefst", "tiefstkurs", "tagestief": return .low
        case "close", "schluss", "schlusskurs", "schluß", "schlußkurs", "letzter", "letzterkurs": return .close
        case "adjclose", "adjustedclose": return .adjustedClose
        case "volume", "volumen", "stück", "stücke": return .volume
        default: return nil
        }
    }

    /// Names only German exports use: such a file writes its numbers with decimal commas.
    static func isGerman(normalisedName name: String) -> Bool {
        matching(normalisedName: name) != nil && !["date", "datetime", "timestamp", "open", "high", "low", "close",
                                                    "adjclose", "adjustedclose", "volume", "start"].contains(name)
    }
}

private struct Parser {
    let base: UnsafePointer<UInt8>
    let count: Int
    let source: String
    let priceField: PriceField

    var position = 0
    /// Leave out a last line without a line end (see `SkipReason.noLineEnd`).
    var completeLinesOnly = false
    /// The line `nextLine` returned ran to the end of the data without a terminator.
    var lineUnterminated = false
    var lineNumber = 0
    var lineTerminator = ASCII.newline
    /// What separates the columns: a comma, or a semicolon in the exports of spreadsheets and
    /// brokers set to a language whose decimal mark is the comma.
    var delimiter = ASCII.comma
    /// How a semicolon-separated file writes its numbers: unknown until a number with a comma is
    /// seen (or the header is German); from then on `23.874,12`.
    var decimalComma = false

    /// For each column of the file, which `Column` it feeds (-1: ignored).
    var roleOfColumn: [Int] = []
    /// Highest file column index the parser needs per row, so it can stop splitting early.
    var lastNeededColumn = 0
    var present = [Bool](repeating: false, count: Column.allCases.count)
    var dateColumnName = "Date"
    var report: ParseReport

    init(base: UnsafePointer<UInt8>, count: Int, source: String, priceField: PriceField) {
        self.base = base
        self.count = count
        self.source = source
        self.priceField = priceField
        self.report = ParseReport(source: source)
    }

    /// The next line without its terminator (and without a `\r` before `\n`), or nil at the end.
    mutating func nextLine() -> ByteRange? {
        guard position < count else { return nil }
        lineNumber += 1
        let start = position
        var end: Int
        if let terminator = findByte(lineTerminator, in: base, from: position, to: count) {
            end = terminator
            position = terminator + 1
            lineUnterminated = false
        } else {
            end = count
            position = count
            lineUnterminated = true
        }
        if end > start && base[end - 1] == ASCII.carriageReturn { end -= 1 }
        return ByteRange(start: start, end: end)
    }

    /// True for lines holding nothing but spaces, tabs and commas (pandas writes `,,,,` for an
    /// all-NaN row with no index; spreadsheets add them at the end).
    func isBlank(_ line: ByteRange) -> Bool {
        var index = line.start
        while index < line.end {
            let byte = base[index]
            if byte != ASCII.comma && byte != delimiter && !ASCII.isSpace(byte) { return false }
            index += 1
        }
        return true
    }

    /// Splits `line` into fields, calling `body(columnIndex, field)` for each; quotes are removed and
    /// spaces trimmed. Stops after column `limit`. Returns the number of fields seen.
    @discardableResult
    func forEachField(in line: ByteRange, through limit: Int, _ body: (Int, ByteRange) -> Void) -> Int {
        var column = 0
        var cursor = line.start
        while true {
            while cursor < line.end && ASCII.isSpace(base[cursor]) { cursor += 1 }
            var field = ByteRange(start: cursor, end: cursor)
            var next: Int?
            if cursor < line.end && base[cursor] == ASCII.quote {
                // A quoted field may hold commas; `""` is an escaped quote, kept as is (no number or
                // date contains one, so it only matters for header names, see `headerName`).
                var scan = cursor + 1
                while scan < line.end {
                    if base[scan] == ASCII.quote {
                        if scan + 1 < line.end && base[scan + 1] == ASCII.quote {
                            scan += 2
                            continue
                        }
                        break
                    }
                    scan += 1
                }
                field = ByteRange(start: cursor + 1, end: scan)
                next = findByte(delimiter, in: base, from: min(scan + 1, line.end), to: line.end)
                // Spreadsheets quote padded cells too (`" 10.5 "`); no value here needs the spaces.
                while field.start < field.end && ASCII.isSpace(base[field.start]) { field.start += 1 }
            } else {
                next = findByte(delimiter, in: base, from: cursor, to: line.end)
                field.end = next ?? line.end
            }
            while field.end > field.start && ASCII.isSpace(base[field.end - 1]) { field.end -= 1 }
            body(column, field)
            column += 1
            guard let comma = next, column <= limit else { break }
            cursor = comma + 1
        }
        return column
    }

    func text(_ range: ByteRange, limit: Int = 32) -> String {
        let length = range.end - range.start
        let shown = min(length, limit)
        var text = String(decoding: UnsafeBufferPointer(start: base + range.start, count: shown), as: UTF8.self)
        // Control characters would break a one-line log message.
        text = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return length > limit ? text + "…" : text
    }

    // MARK: Header

    mutating func readHeader() throws(FeedError) -> Bool {
        // A UTF-8 byte order mark, as Excel and Windows tools write it.
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { position = 3 }
        // Old Mac-style files end lines with CR alone; use that only when there is no LF at all.
        if findByte(ASCII.newline, in: base, from: position, to: count) == nil,
            findByte(ASCII.carriageReturn, in: base, from: position, to: count) != nil
        {
            lineTerminator = ASCII.carriageReturn
        }

        var headerLine: ByteRange?
        while let line = nextLine() {
            if !isBlank(line) {
                headerLine = line
                break
            }
        }
        guard let header = headerLine else { throw .notCSV(path: source, header: "") }
        if header.end - header.start > YahooCSV.maximumLineLength {
            throw .limitExceeded(path: source, limit: "a header longer than \(YahooCSV.maximumLineLength) bytes")
        }
        var (columns, names) = try mapColumns(header)
        // A semicolon-separated export is read as one: its columns are named like ours (or in
        // German), only the separator and the decimal mark differ.
        if columns == 1 && !(present[Column.date.rawValue] && present[Column.close.rawValue]),
            findByte(UInt8(ascii: ";"), in: base, from: header.start, to: header.end) != nil
        {
            delimiter = UInt8(ascii: ";")
            (columns, names) = try mapColumns(header)
        }

        // yfinance >= 0.2.51 writes a three-line header: `Price,Close,High,...`, then `Ticker,AAPL,...`,
        // then `Date,,,,`. The dates sit under "Price".
        var multiLineHeader = false
        if !present[Column.date.rawValue], names.first?.lowercased() == "price" {
            present[Column.date.rawValue] = true
            roleOfColumn[0] = Column.date.rawValue
            multiLineHeader = true
        }

        guard present[Column.date.rawValue], present[Column.close.rawValue] else {
            if delimiter != ASCII.comma {
                throw .otherDelimiter(path: source, delimiter: "semicolons")
            }
            if columns == 1 {
                let semicolon = findByte(UInt8(ascii: ";"), in: base, from: header.start, to: header.end) != nil
                let tab = findByte(UInt8(ascii: "\t"), in: base, from: header.start, to: header.end) != nil
                if semicolon || tab { throw .otherDelimiter(path: source, delimiter: semicolon ? "semicolons" : "tabs") }
            }
            throw .notCSV(path: source, header: headerExcerpt(names))
        }
        if priceField == .adjustedClose && !present[Column.adjustedClose.rawValue] {
            throw .missingColumn(path: source, column: Column.adjustedClose.displayName)
        }
        lastNeededColumn = roleOfColumn.lastIndex { $0 >= 0 } ?? 0
        return multiLineHeader
    }

    /// Splits the header at `delimiter` and sets which column feeds what; returns the column count
    /// and the names.
    mutating func mapColumns(_ header: ByteRange) throws(FeedError) -> (Int, [String]) {
        // Counted before any name is made: a header of a million commas must cost nothing.
        var columns = 1, cursor = header.start
        while let next = findByte(delimiter, in: base, from: cursor, to: header.end) {
            columns += 1
            cursor = next + 1
            if columns > YahooCSV.maximumColumns {
                throw .limitExceeded(path: source, limit: "more than \(YahooCSV.maximumColumns) columns in the header")
            }
        }

        var names: [String] = []
        forEachField(in: header, through: Int.max) { _, field in names.append(headerName(field)) }
        roleOfColumn = [Int](repeating: -1, count: names.count)
        present = [Bool](repeating: false, count: Column.allCases.count)
        for (index, name) in names.enumerated() {
            let normalised = String(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "*" })
            guard let column = Column.matching(normalisedName: normalised), !present[column.rawValue] else {
                continue
            }
            present[column.rawValue] = true
            roleOfColumn[index] = column.rawValue
            if column == .date { dateColumnName = name }
            if delimiter != ASCII.comma && Column.isGerman(normalisedName: normalised) { decimalComma = true }
        }
        return (columns, names)
    }

    /// A number cell: as written in a comma-separated file, or with the decimal mark a
    /// semicolon-separated one uses (see `decimalComma`).
    mutating func number(_ field: ByteRange) -> NumberField {
        guard delimiter != ASCII.comma else { return DecimalParser.parse(base, field) }
        if !decimalComma && findByte(ASCII.comma, in: base, from: field.start, to: field.end) != nil { decimalComma = true }
        return decimalComma ? DecimalParser.parseDecimalComma(base, field) : DecimalParser.parse(base, field)
    }

    /// The header's column names for a message, only when they look like column names (letters,
    /// digits, spaces and `_*()./-;`, at most 24 characters each, at most 8 of them): a path that
    /// points at some other file (a key, a password file) must not have its first line printed.
    func headerExcerpt(_ names: [String]) -> String {
        let shown = names.prefix(8)
        let plain = shown.allSatisfy { name in
            name.utf8.count <= 24 && name.utf8.allSatisfy { b in
                ASCII.isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == ASCII.space || "_*()./-;".utf8.contains(b)
            }
        }
        guard plain else { return "(\(names.count) column\(names.count == 1 ? "" : "s"), not shown: not column names)" }
        return shown.joined(separator: ",") + (names.count > shown.count ? ",…" : "")
    }

    func headerName(_ field: ByteRange) -> String {
        var name = String(
            decoding: UnsafeBufferPointer(start: base + field.start, count: field.end - field.start),
            as: UTF8.self
        )
        if name.contains("\"\"") { name = name.replacing("\"\"", with: "\"") }
        return name
    }

    // MARK: Rows

    mutating func run() throws(FeedError) -> (PriceSeries, ParseReport) {
        var multiLineHeader = try readHeader()
        let columnCount = Column.allCases.count
        var fields = [ByteRange](repeating: ByteRange(start: 0, end: 0), count: columnCount)
        var seen = [Bool](repeating: false, count: columnCount)

        // Memory follows the rows kept, not the bytes or the lines: no reservation up front (a file
        // of rejected lines costs nothing), and the kept bars are trimmed to size at the end.
        var bars: [PriceBar] = []
        var days: [Int32] = []
        var everyTimeIsMidnight = true
        var anyTimeOfDay = false

        while let line = nextLine() {
            if isBlank(line) { continue }
            for index in 0..<columnCount { seen[index] = false }
            let roles = roleOfColumn
            let fieldCount = forEachField(in: line, through: lastNeededColumn) { column, field in
                guard column < roles.count else { return }
                let role = roles[column]
                if role >= 0 {
                    fields[role] = field
                    seen[role] = true
                }
            }

            if multiLineHeader {
                // Skip the `Ticker,...` and `Date,,,` continuation lines, then stop looking.
                let first = fields[Column.date.rawValue]
                if bytesEqualIgnoringCase(base, first, "ticker") { continue }
                if bytesEqualIgnoringCase(base, first, "date") || bytesEqualIgnoringCase(base, first, "datetime") {
                    dateColumnName = text(first)
                    continue
                }
                multiLineHeader = false
            }
            report.dataRows += 1
            if report.dataRows > YahooCSV.maximumRows {
                throw .limitExceeded(path: source, limit: "more than \(YahooCSV.maximumRows) data rows")
            }
            if line.end - line.start > YahooCSV.maximumLineLength {
                report.recordSkip(line: lineNumber, reason: .lineTooLong(limit: YahooCSV.maximumLineLength))
                continue
            }
            if completeLinesOnly && lineUnterminated {
                report.recordSkip(line: lineNumber, reason: .noLineEnd)
                continue
            }

            guard seen[Column.date.rawValue], seen[Column.close.rawValue] else {
                let needed =
                    max(
                        roleOfColumn.firstIndex(of: Column.date.rawValue)!,
                        roleOfColumn.firstIndex(of: Column.close.rawValue)!
                    ) + 1
                report.recordSkip(line: lineNumber, reason: .tooFewFields(found: fieldCount, needed: needed))
                continue
            }
            guard let stamp = TimestampParser.parse(base, fields[Column.date.rawValue]) else {
                report.recordSkip(
                    line: lineNumber,
                    reason: .badTimestamp(column: dateColumnName, text: text(fields[Column.date.rawValue]))
                )
                continue
            }

            var reason: SkipReason?
            func price(_ column: Column, whenMissing fallback: Double?) -> Double? {
                guard reason == nil else { return nil }
                guard seen[column.rawValue] else { return fallback }
                let field = fields[column.rawValue]
                switch number(field) {
                case .value(let value):
                    if column == .volume ? value < 0 : !(value > 0) {
                        reason = .outOfRange(column: column.displayName, text: text(field))
                        return nil
                    }
                    return value
                case .missing:
                    return fallback
                case .notANumber:
                    reason = .notANumber(column: column.displayName, text: text(field))
                case .notFinite:
                    reason = .notFinite(column: column.displayName, text: text(field))
                }
                return nil
            }

            let close = price(.close, whenMissing: nil)
            if close == nil && reason == nil { reason = .missingValue(column: Column.close.displayName) }
            // A missing open/high/low is filled from the close: the line chart needs only the close,
            // and a bar chart then shows a flat candle rather than a hole.
            let open = price(.open, whenMissing: close)
            let high = price(.high, whenMissing: close)
            let low = price(.low, whenMissing: close)
            let adjusted = price(.adjustedClose, whenMissing: nil)
            if priceField == .adjustedClose && adjusted == nil && reason == nil {
                reason = .missingValue(column: Column.adjustedClose.displayName)
            }
            let volume = price(.volume, whenMissing: nil)
            if let reason {
                report.recordSkip(line: lineNumber, reason: reason)
                continue
            }
            if let c = close, let l = low, let h = high, let a = adjusted, c < l * 0.999, a >= l * 0.999, a <= h * 1.001 {
                report.closeOutsideRangeRows += 1
                if report.firstCloseOutsideRangeLine == nil { report.firstCloseOutsideRangeLine = lineNumber }
            }

            bars.append(
                PriceBar(
                    time: stamp.unixTime,
                    open: open!,
                    high: high!,
                    low: low!,
                    close: close!,
                    adjustedClose: adjusted,
                    volume: volume
                )
            )
            days.append(Int32(truncatingIfNeeded: stamp.daysSinceEpoch))
            if stamp.secondOfDay != 0 { everyTimeIsMidnight = false }
            if stamp.hasTime {
                anyTimeOfDay = true
                if stamp.utcOffset == nil { report.offsetlessTimeRows += 1 } else { report.offsetTimeRows += 1 }
            }
        }

        if bars.isEmpty { throw .noUsableRows(path: source, report: report) }

        // Daily unless some bar has a time of day. A `Datetime` column of all-midnight times is
        // still intraday (24-hour markets start at 00:00), but newer yfinance writes daily bars as
        // `2024-03-01 00:00:00-05:00` under `Date`, and those are days.
        let isDaily = everyTimeIsMidnight && !(anyTimeOfDay && !["date", "datum"].contains(dateColumnName.lowercased()))
        if isDaily {
            // Keep the calendar date as written, whatever offset followed it (see PriceBar.time).
            for index in bars.indices { bars[index].time = Int64(days[index]) * 86_400 }
        }

        days = []
        // The series outlives the parse (for months, in the daemon): no growth slack in it.
        if bars.capacity > bars.count + bars.count / 8 + 16 {
            var exact: [PriceBar] = []
            exact.reserveCapacity(bars.count)
            exact.append(contentsOf: bars)
            bars = exact
        }
        let sorted = PriceSeries.sortedUnique(bars)
        report.duplicateRows = bars.count - sorted.count
        report.usedRows = sorted.count
        let interval: BarInterval = isDaily ? .daily : .intraday(seconds: Parser.typicalSpacing(of: sorted))
        var series = PriceSeries(
            name: YahooCSV.seriesName(fromSource: source),
            interval: interval,
            bars: sorted,
            priceField: priceField
        )
        // Floating only when no row says its offset: a file that mixes both keeps UTC for the
        // rows without one (check-config says how many), as no single zone is implied.
        if !isDaily { series.floatingTimes = report.offsetlessTimeRows > 0 && report.offsetTimeRows == 0 }
        return (series, report)
    }

    /// The most common gap between consecutive bars (ties: the shorter), i.e. the bar size; nights
    /// and weekends are rarer than in-session steps, so they do not win. 60 s when it cannot tell.
    static func typicalSpacing(of bars: [PriceBar]) -> Int {
        var counts: [Int64: Int] = [:]
        var index = 1
        while index < min(bars.count, 10_000) {
            counts[bars[index].time - bars[index - 1].time, default: 0] += 1
            index += 1
        }
        let best = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }
        guard let best, best.key > 0, best.key <= Int64(Int32.max) else { return 60 }
        return Int(best.key)
    }
}
