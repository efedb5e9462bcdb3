import CVersion

/// The release version, as written in Sources/CVersion/version.c (the one place) or stamped into
/// the executable by the packager. `tickerboard --version` prints it, and so do `tickerboard-fetch`,
/// `tickerboard-mqtt` (Home Assistant's device info) and the status file.
public enum TickerboardVersion {
    public static let string = String(cString: tb_version())
}
