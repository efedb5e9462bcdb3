import Feed
import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

extension ScreenPower {
    /// The system's local time zone: `$TZ` if it names a zone, else `/etc/localtime` (its symlink
    /// target gives the name), else UTC. Read once at start-up and on reload.
    public static func systemTimeZone(zoneinfoDirectory: String = ExchangeTimeZone.defaultZoneinfoDirectory,
                                      localtimePath: String = "/etc/localtime") -> ExchangeTimeZone {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = try? ExchangeTimeZone(identifier: name, zoneinfoDirectory: zoneinfoDirectory) { return zone }
        }
        var name = "localtime"
        if let target = FileSystem.readLink(localtimePath) {
            if let range = target.firstRange(of: "zoneinfo/") { name = String(target[range.upperBound...]) }
        }
        if let bytes = readSmallFile(localtimePath),
           let zone = try? ExchangeTimeZone(identifier: name, tzif: bytes) {
            return zone
        }
        return .utc
    }

    private static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        try? RegularFile.read(path, limit: limit)
    }
}
