// The `[mqtt]` section of tickerboard.conf, read by the Home Assistant bridge (tickerboard-mqtt) and
// checked by the daemon's `check-config` like every other section, so one file configures both and a
// typo is named with its line whichever program reads it.

/// What `tickerboard-mqtt` connects to and how it names itself.
public struct MQTTSettings: Sendable, Equatable {
    public var host = "localhost"
    public var port = 1883
    /// The daemon's control socket.
    public var control = "/run/tickerboard/control"
    /// The device's id in topics and Home Assistant (letters, digits, - and _).
    public var nodeID = "tickerboard"
    public var discoveryPrefix = "homeassistant"
    /// Where state is published and commands are read: `BASE/instrument/set`, … (default `tickerboard/NODE`).
    public var baseTopic: String?
    /// Credentials and TLS material come from files (never from the config itself, never logged).
    public var usernameFile: String?
    public var passwordFile: String?
    public var tlsCAFile: String?
    public var tlsCertFile: String?
    public var tlsKeyFile: String?
    /// How often the daemon's state is read and published (seconds).
    public var pollSeconds = 10.0
    /// How often a screenshot is published while the picture changes (seconds; 0: only on request).
    public var screenshotSeconds = 300.0
    public var keepaliveSeconds = 60

    public init() {}

    public var base: String { baseTopic ?? "tickerboard/\(nodeID)" }

    /// Any TLS key means TLS (issue 54: a client certificate without `tls-ca-file` connected in plain
    /// text, password included); without a CA file the system's certificates verify the broker.
    public var usesTLS: Bool { tlsCAFile != nil || tlsCertFile != nil || tlsKeyFile != nil }
    public static let systemCertificates = "/etc/ssl/certs"

    public static let keys = ["host", "port", "control", "node-id", "discovery-prefix", "base-topic", "username-file",
                              "password-file", "tls-ca-file", "tls-cert-file", "tls-key-file", "poll-interval",
                              "screenshot-interval", "keepalive"]

    /// Applies one key; the message names what was expected, nil when fine. An unknown key is
    /// `.unknown` (a warning, as in every section).
    public enum Check: Equatable { case ok, invalid(String), unknown }

    public mutating func apply(_ key: String, _ value: String) -> Check {
        func topic(_ v: String) -> Bool {
            !v.isEmpty && v.utf8.count <= 200 && !v.contains("#") && !v.contains("+") && !v.hasPrefix("/") && !v.hasSuffix("/")
                && v.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
        }
        func path(_ v: String) -> Bool { v.hasPrefix("/") && v.utf8.count < 4096 && !v.contains("\0") }
        switch key {
        case "host":
            guard !value.isEmpty, value.utf8.count <= 253, value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                return .invalid("expected a host name or address like 192.168.1.10 or broker.local")
            }
            host = value
        case "port":
            guard let p = Int(value), (1...65535).contains(p) else { return .invalid("expected a port from 1 to 65535, found \"\(value)\"") }
            port = p
        case "control":
            guard path(value) else { return .invalid("expected the control socket's absolute path like /run/tickerboard/control") }
            control = value
        case "node-id":
            guard !value.isEmpty, value.count <= 64,
                  value.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }) else {
                return .invalid("expected letters, digits, - and _ (at most 64), like living-room")
            }
            nodeID = value
        case "discovery-prefix":
            guard topic(value) else { return .invalid("expected an MQTT topic without wildcards, like homeassistant") }
            discoveryPrefix = value
        case "base-topic":
            guard topic(value) else { return .invalid("expected an MQTT topic without wildcards, like tickerboard/hall") }
            baseTopic = value
        case "username-file", "password-file", "tls-ca-file", "tls-cert-file", "tls-key-file":
            guard path(value) else { return .invalid("expected an absolute path to a file, like /etc/tickerboard/mqtt-\(key.hasPrefix("tls") ? "ca.pem" : "password")") }
            switch key {
            case "username-file": usernameFile = value
            case "password-file": passwordFile = value
            case "tls-ca-file": tlsCAFile = value
            case "tls-cert-file": tlsCertFile = value
            default: tlsKeyFile = value
            }
        case "poll-interval", "screenshot-interval":
            guard let s = ControlCommand.parseSeconds(value), key == "screenshot-interval" ? s <= 86_400 : (s >= 1 && s <= 3600) else {
                return .invalid(key == "poll-interval" ? "expected 1s to 1h, like 10s" : "expected 0 (only on request) to 24h, like 5m")
            }
            if key == "poll-interval" { pollSeconds = s } else { screenshotSeconds = s }
        case "keepalive":
            guard let s = ControlCommand.parseSeconds(value), s >= 5, s <= 3600 else { return .invalid("expected 5s to 1h, like 60s") }
            keepaliveSeconds = Int(s)
        default:
            return .unknown
        }
        return .ok
    }
}
