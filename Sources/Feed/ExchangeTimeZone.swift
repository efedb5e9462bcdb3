// An exchange's time zone, read from the system tz database (TZif files, RFC 8536) without
// Foundation. Chart ranges ("1M back from the newest point", "the latest session") are calendar
// questions in the exchange's zone, so Feed answers them from the same data the OS uses.

import LinuxIO

/// A time zone loaded from the tz database (or built from a POSIX TZ rule).
///
/// Lookups are O(log n) in the number of listed transitions; after the last one the file's POSIX TZ
/// footer decides, which is what keeps "slim" TZif files (and years past 2037 in fat ones) right.
public struct ExchangeTimeZone: Sendable, Equatable, CustomStringConvertible {
    /// The IANA name it was loaded as, e.g. `America/New_York`.
    public let identifier: String

    /// Instants (Unix seconds) at which local time changes, ascending.
    private let transitionTimes: [Int64]
    /// For each transition, the index into `types` in force from that instant.
    private let transitionTypes: [UInt8]
    /// Local time types; `types[0]` applies before the first transition.
    private let types: [LocalTimeType]
    /// Applies after the last transition (or always, when there are none); nil when the file has no
    /// footer (TZif v1) or an empty one, and then the last transition's type stays in force.
    private let rule: POSIXTimeZoneRule?

    /// The directory the tz database is installed in on Debian (package `tzdata`).
    public static let defaultZoneinfoDirectory = "/usr/share/zoneinfo"

    /// Coordinated Universal Time, built in so it works without tzdata.
    public static let utc = ExchangeTimeZone(
        identifier: "UTC",
        transitionTimes: [],
        transitionTypes: [],
        types: [LocalTimeType(utcOffset: 0, isDaylightSaving: false, abbreviation: "UTC")],
        rule: nil
    )

    /// Loads `identifier` (e.g. `Europe/Berlin`) from `zoneinfoDirectory`.
    ///
    /// The name must be a relative IANA-style name: it comes from a config file, and a name like
    /// `../../etc/shadow` must not make the daemon read arbitrary files.
    public init(identifier: String, zoneinfoDirectory: String = defaultZoneinfoDirectory) throws(FeedError) {
        guard ExchangeTimeZone.isValidIdentifier(identifier) else { throw .invalidTimeZoneName(identifier) }
        let bytes: [UInt8]
        do {
            // TZif files are a few KB; the bound only stops a wrong path from reading something huge.
            bytes = try FileBytes.read(path: zoneinfoDirectory + "/" + identifier, limit: 1 << 20)
        } catch {
            // A missing file or a region directory ("Europe") is a name the database lacks; say so in
            // those words rather than with a path the user never typed.
            switch error {
            case .fileNotFound:
                // No tz database at all (a minimal image without tzdata): the exchanges' zones by
                // their current rules, so the fetcher and the daemon run instead of failing on
                // every start. Past rule changes are not known then; installing tzdata restores them.
                if !FileSystem.isDirectory(zoneinfoDirectory), let rule = Self.builtInRules[identifier] {
                    self = try ExchangeTimeZone(identifier: identifier, posixRule: rule)
                    return
                }
                // Debian 13 (Raspberry Pi OS) moved the old link names to tzdata-legacy; a provider
                // that still says "US/Eastern" must not leave the instrument without its zone.
                guard let current = Self.legacyLinks[identifier] else { throw .unknownTimeZone(identifier) }
                guard let zone = try? ExchangeTimeZone(identifier: current, zoneinfoDirectory: zoneinfoDirectory) else {
                    throw .unknownTimeZone(identifier)
                }
                self = zone
                return
            case .unreadable(_, let reason) where reason == FileBytes.directoryReason:
                throw .unknownTimeZone(identifier)
            default: throw error
            }
        }
        try self.init(identifier: identifier, tzif: bytes)
    }

    /// The current POSIX rules of the exchanges' zones (and the zones they are often given as),
    /// for a system without tzdata.
    public static let builtInRules: [String: String] = [
        "America/New_York": "EST5EDT,M3.2.0,M11.1.0", "America/Toronto": "EST5EDT,M3.2.0,M11.1.0",
        "America/Chicago": "CST6CDT,M3.2.0,M11.1.0",
        "Europe/London": "GMT0BST,M3.5.0/1,M10.5.0",
        "Europe/Berlin": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Paris": "CET-1CEST,M3.5.0,M10.5.0/3",
        "Europe/Amsterdam": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Zurich": "CET-1CEST,M3.5.0,M10.5.0/3",
        "Asia/Tokyo": "JST-9", "Asia/Hong_Kong": "HKT-8",
        "Australia/Sydney": "AEST-10AEDT,M10.1.0,M4.1.0/3",
        "Etc/UTC": "UTC0",
    ]

    /// The link names of tzdata's `backward` file that markets and providers still use, and the
    /// zones they name: read when the link itself is not installed.
    static let legacyLinks: [String: String] = [
        "US/Eastern": "America/New_York", "US/Central": "America/Chicago", "US/Mountain": "America/Denver",
        "US/Pacific": "America/Los_Angeles", "US/Arizona": "America/Phoenix", "US/Alaska": "America/Anchorage",
        "US/Hawaii": "Pacific/Honolulu", "Canada/Eastern": "America/Toronto", "Canada/Pacific": "America/Vancouver",
        "GB": "Europe/London", "Japan": "Asia/Tokyo", "Hongkong": "Asia/Hong_Kong", "Singapore": "Asia/Singapore",
        "Australia/ACT": "Australia/Sydney", "Australia/NSW": "Australia/Sydney", "Asia/Calcutta": "Asia/Kolkata",
        "Europe/Kiev": "Europe/Kyiv", "Asia/Saigon": "Asia/Ho_Chi_Minh", "Asia/Katmandu": "Asia/Kathmandu",
        "UTC": "Etc/UTC", "GMT": "Etc/GMT", "Universal": "Etc/UTC", "Zulu": "Etc/UTC",
    ]

    /// Parses TZif bytes (versions 1 to 4).
    public init(identifier: String, tzif bytes: [UInt8]) throws(FeedError) {
        let parsed: TZifContents
        do {
            parsed = try TZifContents(bytes)
        } catch {
            throw .invalidTimeZoneData(name: identifier, reason: error.reason)
        }
        self.init(
            identifier: identifier,
            transitionTimes: parsed.transitionTimes,
            transitionTypes: parsed.transitionTypes,
            types: parsed.types,
            rule: parsed.rule
        )
    }

    /// A zone that follows one POSIX TZ rule for all time, e.g. `EST5EDT,M3.2.0,M11.1.0`
    /// (the current US rule since 2007). Useful when tzdata may be absent.
    public init(identifier: String, posixRule: String) throws(FeedError) {
        guard let rule = POSIXTimeZoneRule(posixRule) else {
            throw .invalidTimeZoneData(name: identifier, reason: "cannot parse the TZ rule \"\(posixRule)\"")
        }
        self.init(
            identifier: identifier,
            transitionTimes: [],
            transitionTypes: [],
            types: [rule.localTimeType(atUnixTime: 0)],
            rule: rule
        )
    }

    private init(
        identifier: String,
        transitionTimes: [Int64],
        transitionTypes: [UInt8],
        types: [LocalTimeType],
        rule: POSIXTimeZoneRule?
    ) {
        self.identifier = identifier
        self.transitionTimes = transitionTimes
        self.transitionTypes = transitionTypes
        self.types = types
        self.rule = rule
    }

    public var description: String { identifier }

    /// IANA names are relative paths of letters, digits and `_+-.`; no empty, `.` or `..` component.
    public static func isValidIdentifier(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("/") else { return false }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else { return false }
            for byte in component.utf8 {
                let allowed =
                    ASCII.isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == ASCII.plus || byte == ASCII.minus || byte == ASCII.dot
                guard allowed else { return false }
            }
        }
        return true
    }

    // MARK: Lookups

    func localTimeType(atUnixTime time: Int64) -> LocalTimeType {
        guard let lastTransition = transitionTimes.last else {
            return rule?.localTimeType(atUnixTime: time) ?? types[0]
        }
        if time >= lastTransition, let rule { return rule.localTimeType(atUnixTime: time) }
        if time < transitionTimes[0] { return types[0] }
        // The last transition at or before `time`.
        var low = 0
        var high = transitionTimes.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitionTimes[mid] <= time { low = mid } else { high = mid - 1 }
        }
        return types[Int(transitionTypes[low])]
    }

    /// Seconds east of UTC at the instant `unixTime` (New York in July: -14400).
    public func utcOffset(atUnixTime unixTime: Int64) -> Int { localTimeType(atUnixTime: unixTime).utcOffset }

    public func isDaylightSavingTime(atUnixTime unixTime: Int64) -> Bool {
        localTimeType(atUnixTime: unixTime).isDaylightSaving
    }

    /// `EST`, `CEST`, `IST`, or a numeric one such as `+0530` for zones without a letter abbreviation.
    public func abbreviation(atUnixTime unixTime: Int64) -> String { localTimeType(atUnixTime: unixTime).abbreviation }

    /// The wall-clock date and time at the exchange at `unixTime`.
    public func localDateTime(atUnixTime unixTime: Int64) -> CivilDateTime {
        CivilDateTime(unixTime: unixTime, utcOffset: utcOffset(atUnixTime: unixTime))
    }

    /// The exchange's calendar date at `unixTime` (what "today" means for a range).
    public func localDate(atUnixTime unixTime: Int64) -> CivilDate { localDateTime(atUnixTime: unixTime).date }

    /// The instant a wall-clock reading denotes.
    ///
    /// A reading that happens twice (when clocks fall back) gives the first instant; one that never
    /// happens (when clocks spring forward) is read with the offset in force before the gap, so
    /// 02:30 on a spring-forward night becomes 03:30 daylight time, as `mktime` does.
    public func unixTime(for local: CivilDateTime) -> Int64 {
        let wall = local.secondsSinceEpochAsUTC
        // Offsets in force a day either side cover any real zone (no two transitions within ~2 days).
        let before = utcOffset(atUnixTime: wall - 86_400)
        let after = utcOffset(atUnixTime: wall + 86_400)
        for candidate in [max(before, after), min(before, after)] {
            let instant = wall - Int64(candidate)
            if utcOffset(atUnixTime: instant) == candidate { return instant }
        }
        return wall - Int64(before)
    }

    /// The instant of local midnight starting `date` (the start of a trading day's calendar range).
    public func startOfDay(_ date: CivilDate) -> Int64 {
        unixTime(for: CivilDateTime(date: date, hour: 0, minute: 0)!)
    }
}

// MARK: - TZif decoding

private struct TZifFormatError: Error {
    var reason: String
}

/// The parts of a TZif file the lookups need.
private struct TZifContents {
    var transitionTimes: [Int64] = []
    var transitionTypes: [UInt8] = []
    var types: [LocalTimeType] = []
    var rule: POSIXTimeZoneRule?

    init(_ bytes: [UInt8]) throws(TZifFormatError) {
        var reader = ByteReader(bytes: bytes)
        let first = try Header(&reader)
        if first.version == 0 {
            try readBlock(&reader, header: first, timeSize: 4)
            return
        }
        // Version 2+ repeats the data with 64-bit times after the v1 block; use that one.
        try reader.skip(first.blockSize(timeSize: 4))
        let second = try Header(&reader)
        try readBlock(&reader, header: second, timeSize: 8)

        // Footer: "\n<TZ string>\n". Empty means "no rule": the last type stays in force. A file
        // cut off right before it is accepted the same way; the table is still good.
        if reader.index == bytes.count { return }
        guard try reader.byte() == ASCII.newline else {
            throw TZifFormatError(reason: "footer does not start with a newline")
        }
        var footer: [UInt8] = []
        while true {
            let byte = try reader.byte()
            if byte == ASCII.newline { break }
            footer.append(byte)
            if footer.count > 256 { throw TZifFormatError(reason: "footer is too long") }
        }
        if !footer.isEmpty {
            let text = String(decoding: footer, as: UTF8.self)
            guard let parsed = POSIXTimeZoneRule(text) else {
                throw TZifFormatError(reason: "cannot parse the TZ rule \"\(text)\" in the footer")
            }
            rule = parsed
        }
    }

    struct Header {
        var version: UInt8
        var utIndicatorCount: Int
        var standardIndicatorCount: Int
        var leapCount: Int
        var transitionCount: Int
        var typeCount: Int
        var characterCount: Int

        init(_ reader: inout ByteReader) throws(TZifFormatError) {
            guard try reader.bytes(4) == Array("TZif".utf8) else { throw TZifFormatError(reason: "not a TZif file") }
            let versionByte = try reader.byte()
            switch versionByte {
            case 0: version = 0
            case UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"): version = versionByte - UInt8(ascii: "0")
            default: throw TZifFormatError(reason: "unknown TZif version \(versionByte)")
            }
            try reader.skip(15)
            utIndicatorCount = try reader.count()
            standardIndicatorCount = try reader.count()
            leapCount = try reader.count()
            transitionCount = try reader.count()
            typeCount = try reader.count()
            characterCount = try reader.count()
            guard typeCount >= 1, typeCount <= 256, characterCount >= 1,
                utIndicatorCount == 0 || utIndicatorCount == typeCount,
                standardIndicatorCount == 0 || standardIndicatorCount == typeCount
            else { throw TZifFormatError(reason: "inconsistent header counts") }
        }

        func blockSize(timeSize: Int) -> Int {
            transitionCount * timeSize + transitionCount + typeCount * 6 + characterCount
                + leapCount * (timeSize + 4) + standardIndicatorCount + utIndicatorCount
        }
    }

    mutating func readBlock(_ reader: inout ByteReader, header: Header, timeSize: Int) throws(TZifFormatError) {
        transitionTimes.reserveCapacity(header.transitionCount)
        for _ in 0..<header.transitionCount {
            let time = timeSize == 8 ? try reader.int64() : Int64(try reader.int32())
            if let previous = transitionTimes.last, time <= previous {
                throw TZifFormatError(reason: "transition times are not ascending")
            }
            transitionTimes.append(time)
        }
        transitionTypes = try reader.bytes(header.transitionCount)
        guard transitionTypes.allSatisfy({ Int($0) < header.typeCount }) else {
            throw TZifFormatError(reason: "a transition refers to a missing local time type")
        }
        var rawTypes: [(offset: Int, isDST: Bool, abbreviationIndex: Int)] = []
        for _ in 0..<header.typeCount {
            let offset = Int(try reader.int32())
            let isDST = try reader.byte()
            let index = Int(try reader.byte())
            // RFC 8536: offsets are within (-25 h, +26 h); anything else is corrupt.
            guard offset > -89_999, offset < 93_600, isDST <= 1, index < header.characterCount else {
                throw TZifFormatError(reason: "invalid local time type")
            }
            rawTypes.append((offset, isDST == 1, index))
        }
        let characters = try reader.bytes(header.characterCount)
        types = rawTypes.map { raw in
            let tail = characters[raw.abbreviationIndex...]
            let name = tail.prefix { $0 != 0 }
            return LocalTimeType(
                utcOffset: raw.offset,
                isDaylightSaving: raw.isDST,
                abbreviation: String(decoding: name, as: UTF8.self)
            )
        }
        // Leap-second records (only in the "right/" zones) and the indicators are not needed: Unix
        // time has no leap seconds and the indicators only matter for POSIX TZ fallbacks.
        try reader.skip(header.leapCount * (timeSize + 4) + header.standardIndicatorCount + header.utIndicatorCount)
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var index = 0

    mutating func bytes(_ count: Int) throws(TZifFormatError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - index else { throw TZifFormatError(reason: "file is truncated") }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }

    mutating func skip(_ count: Int) throws(TZifFormatError) {
        guard count >= 0, count <= bytes.count - index else { throw TZifFormatError(reason: "file is truncated") }
        index += count
    }

    mutating func byte() throws(TZifFormatError) -> UInt8 {
        guard index < bytes.count else { throw TZifFormatError(reason: "file is truncated") }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func int32() throws(TZifFormatError) -> Int32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(try byte()) }
        return Int32(bitPattern: value)
    }

    mutating func int64() throws(TZifFormatError) -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(try byte()) }
        return Int64(bitPattern: value)
    }

    mutating func count() throws(TZifFormatError) -> Int {
        let value = try int32()
        // Real files have at most a few thousand entries; a huge count is corruption, and refusing it
        // early keeps the size arithmetic far from overflow.
        guard value >= 0, value <= 1_000_000 else { throw TZifFormatError(reason: "implausible count \(value)") }
        return Int(value)
    }
}
