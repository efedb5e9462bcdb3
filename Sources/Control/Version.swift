/// The release version: the one place it is written. `tickerboard --version` prints it, and
/// so do `tickerboard-mqtt` (Home Assistant's device info); systemd/build-deb.sh reads it from this file for the package's version and changelog.
public enum TickerboardVersion {
    public static let string = "0.1.0"
}
