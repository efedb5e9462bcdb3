// The `[mqtt]` section of tickerboard.conf, read by the Home Assistant bridge (tickerboard-mqtt) and
// checked by the daemon's `check-config` like every other section, so one file configures both and a
// typo is named with its line whichever program reads it.

/// What `tickerboard-mqtt` connects to and how it names itself.
public struct MQTTSettings: Sendable, Equatable {
    public var host = "localhost"
    public var port = 1883
    /// The daemon's control socket.
    public var control = "/run/tickerboard/control"
    /// The device's id in topics and Home Assistant (letters, digits, - and _). Without `node-id`
    /// the bridge derives it from the machine (`MachineIdentity`): two walls made from one image
    /// must not share it (issue 54: they kicked each other off the broker and shared sensors).
    public var nodeID = "tickerboard"
    /// `node-id` was set in the config.
    public var nodeIDGiven = false
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
            nodeIDGiven = true
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

/// A short, stable name for this machine, from systemd's machine id (`/etc/machine-id`, 32 hex
/// digits, made at first boot, so different on every wall made from one image). The id itself is
/// not shown: systemd asks that it not leave the machine, so only a hash of it (with this program's
/// name, as sd_id128_get_machine_app_specific does with a key) is used.
public enum MachineIdentity {
    /// 8 hex digits, nil when the id is missing, empty ("uninitialized" before the first boot) or malformed.
    public static func hash(machineID text: String) -> String? {
        let id = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard id.utf8.count == 32, id.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else { return nil }
        return StableHash.hex8(StableHash.fnv1a32(Array("tickerboard-mqtt:\(id)".utf8)))
    }

    /// The node id without `node-id`: `tickerboard-` and the machine's hash.
    public static func nodeID(machineHash: String) -> String { "tickerboard-" + machineHash }

    /// The MQTT client id: unique per machine even when two walls were given the same `node-id`
    /// (the broker disconnects the older of two clients with one id).
    public static func clientID(nodeID: String, nodeIDGiven: Bool, machineHash: String?) -> String {
        guard let machineHash else { return "tickerboard-" + nodeID }
        return nodeIDGiven ? "tickerboard-\(nodeID)-\(machineHash)" : nodeID
    }
}

/// FNV-1a, 32 bits (offset basis 2166136261, prime 16777619): stable names, not secrecy.
public enum StableHash {
    public static func fnv1a32(_ bytes: [UInt8]) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }

    public static func hex8(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
