import CMosquitto
import Control
import Feed
import Foundation
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// The bridge's I/O: one thread, libmosquitto's client driven by `mosquitto_loop` (its callbacks run
/// inside that call, on this thread), the daemon's control socket (a connection per request, with a
/// deadline), and the signals. The broker or the daemon going away is survived: the broker with
/// reconnects on a backoff up to a minute (the last will says `offline` meanwhile), the daemon by
/// publishing `offline` until its socket answers again.
public final class BridgeService {
    let model: BridgeModel
    let settings: MQTTSettings
    private var mosq: OpaquePointer?
    private var connected = false
    private var daemonReachable: Bool?
    private var instruments: [BridgeInstrument] = []
    private var ranges: [String] = []
    private var scenes: [String] = []
    private var discoveryKey = ""
    private var lastState: [String: [UInt8]] = [:]
    private var nextPoll = 0.0
    private var nextScreenshot = 0.0
    private var lastFrames = -1
    private var backoff = 1.0
    /// When the connection came up: the backoff starts again at 1 s only after it lived a minute
    /// (a broker that drops us at once, as it does a second client with our id, is not hammered).
    private var connectedAt = 0.0
    static let stableConnection = 60.0
    private var stopping = false
    /// Instrument object ids with discovery on the broker (ours or read back retained).
    private var publishedInstruments: Set<String> = []
    /// Alert firings an event was sent for (or passed over), and when the bridge started: firings
    /// from before it are not sent again.
    private var seenFirings: Set<String> = []
    private let startedAt = Int64(time(nil))
    /// Where the thermal zones are (`$TICKERBOARD_SYSFS_ROOT/class/thermal`; tests use a fake tree).
    private let thermalDirectory: String = {
        let root = getenv("TICKERBOARD_SYSFS_ROOT").map { String(cString: $0) } ?? ""
        return (root.isEmpty ? "/sys" : root) + "/class/thermal"
    }()
    private let signals: SignalFD?
    let clientID: String

    public init(settings: MQTTSettings, version: String, clientID: String? = nil) {
        self.settings = settings
        self.clientID = clientID ?? "tickerboard-\(settings.nodeID)"
        model = BridgeModel(settings: settings, version: version)
        signals = try? SignalFD(signals: [SIGTERM, SIGINT])
    }

    static func log(_ priority: Int, _ text: String) {
        StandardStream.error.write("<\(priority)>\(oneLine(text))\n")
    }

    /// `text` as one journal line: control characters written as escapes, so a payload such as
    /// `ON\n<0>FORGED` (echoed in "ignored: …") cannot start a line of its own at another priority.
    static func oneLine(_ text: String) -> String {
        var out = ""
        for s in text.unicodeScalars {
            switch s.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F, 0x80..<0xA0: out += "\\u{\(String(s.value, radix: 16))}"
            default: out.unicodeScalars.append(s)
            }
        }
        return out
    }

    /// Reads a credential file: its first line, without the line end (the value is never logged).
    static func secret(_ path: String?) throws -> String? {
        guard let path else { return nil }
        do {
            let bytes = try RegularFile.read(path, limit: 4096)
            let text = String(decoding: bytes, as: UTF8.self)
            // The first line without its ending, whichever it is: a file saved with CRLF kept the \r
            // in the password ("\r\n" is one Character to Swift, so splitting at "\n" missed it).
            return String(text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
        } catch {
            throw BridgeError("cannot read \(path): \(error)")
        }
    }

    public func run() -> Int32 {
        mosquitto_lib_init()
        defer { mosquitto_lib_cleanup() }
        guard let m = mosquitto_new(clientID, true, Unmanaged.passUnretained(self).toOpaque()) else {
            Self.log(3, "tickerboard-mqtt: cannot create an MQTT client")
            return 1
        }
        mosq = m
        defer { mosquitto_destroy(m) }
        do {
            let user = try Self.secret(settings.usernameFile)
            let password = try Self.secret(settings.passwordFile)
            if user != nil || password != nil { mosquitto_username_pw_set(m, user, password) }
            if settings.usesTLS {
                let rc = mosquitto_tls_set(m, settings.tlsCAFile, settings.tlsCAFile == nil ? MQTTSettings.systemCertificates : nil,
                                           settings.tlsCertFile, settings.tlsKeyFile, nil)
                guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw BridgeError("TLS: \(String(cString: mosquitto_strerror(rc)))") }
            }
        } catch {
            Self.log(3, "tickerboard-mqtt: \(error)")
            return 2
        }
        let offline = Array("offline".utf8)
        mosquitto_will_set(m, model.availabilityTopic, Int32(offline.count), offline, 1, true)
        mosquitto_connect_callback_set(m) { _, user, rc in
            guard let user else { return }
            Unmanaged<BridgeService>.fromOpaque(user).takeUnretainedValue().connected(rc)
        }
        mosquitto_disconnect_callback_set(m) { _, user, rc in
            guard let user else { return }
            Unmanaged<BridgeService>.fromOpaque(user).takeUnretainedValue().disconnected(rc)
        }
        mosquitto_message_callback_set(m) { _, user, message in
            guard let user, let message else { return }
            let topic = String(cString: message.pointee.topic)
            let payload = message.pointee.payloadlen > 0 && message.pointee.payload != nil
                ? String(decoding: UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen)), as: UTF8.self) : ""
            Unmanaged<BridgeService>.fromOpaque(user).takeUnretainedValue().received(topic: topic, payload: payload,
                                                                                     retained: message.pointee.retain)
        }
        Self.log(5, "tickerboard-mqtt: \(settings.host):\(settings.port) as \(clientID), daemon at \(settings.control), topics under \(model.base)")
        var attempt = MonotonicClock.seconds
        var rc = mosquitto_connect(m, settings.host, Int32(settings.port), Int32(settings.keepaliveSeconds))
        if rc != MOSQ_ERR_SUCCESS.rawValue { Self.log(4, "tickerboard-mqtt: connect: \(Self.describe(rc)); retrying") }
        while !stopping {
            if let signals, (try? signals.next()) != nil { break }
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                rc = mosquitto_loop(m, 500, 1)
            } else {
                // Reconnect on a backoff (1 s doubling to 60 s), checking signals meanwhile.
                let now = MonotonicClock.seconds
                if now - attempt >= backoff {
                    attempt = now
                    backoff = min(60, backoff * 2)
                    rc = mosquitto_reconnect(m)
                    if rc != MOSQ_ERR_SUCCESS.rawValue { Self.log(6, "tickerboard-mqtt: reconnect: \(Self.describe(rc))") }
                } else {
                    var p = pollfd(fd: signals?.descriptor.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
                    _ = Glibc.poll(&p, 1, 250)
                }
                continue
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                Self.log(4, "tickerboard-mqtt: connection lost: \(Self.describe(rc)); reconnecting")
                attempt = MonotonicClock.seconds
                if connectedAt > 0, attempt - connectedAt >= Self.stableConnection { backoff = 1 }
                connectedAt = 0
                continue
            }
            if connected, MonotonicClock.seconds >= nextPoll { poll() }
        }
        if connected {
            publish(BridgeMessage(model.availabilityTopic, "offline"))
            _ = mosquitto_loop(m, 100, 1)
            mosquitto_disconnect(m)
        }
        Self.log(5, "tickerboard-mqtt: stopped")
        return 0
    }

    static func describe(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
    }

    // MARK: MQTT events

    private func connected(_ rc: Int32) {
        guard rc == 0 else {
            Self.log(4, "tickerboard-mqtt: the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))")
            return
        }
        connected = true
        connectedAt = MonotonicClock.seconds
        Self.log(5, "tickerboard-mqtt: connected to \(settings.host):\(settings.port)")
        mosquitto_subscribe(mosq, nil, model.subscription, 1)
        // Our retained instrument sensors come back on subscribing: those no longer configured go.
        mosquitto_subscribe(mosq, nil, model.instrumentConfigSubscription, 1)
        // A broker that restarted may have lost the retained configs: everything is sent again.
        discoveryKey = ""
        lastState = [:]
        daemonReachable = nil
        poll()
    }

    private func disconnected(_ rc: Int32) {
        connected = false
        if !stopping { Self.log(4, "tickerboard-mqtt: disconnected (\(Self.describe(rc)))") }
    }

    private func received(topic: String, payload: String, retained: Bool) {
        if topic.hasPrefix(settings.discoveryPrefix + "/") {
            // Our retained sensor configs read back (not commands); an empty one is a removal.
            guard let object = model.instrumentObject(ofConfigTopic: topic), !payload.isEmpty else { return }
            publishedInstruments.insert(object)
            // Known what is configured (the daemon answered): clear it at once if it is not.
            if daemonReachable == true { clearRemovedInstruments() }
            return
        }
        switch model.action(topic: topic, payload: payload, retained: retained) {
        case .request(let command):
            switch request(command) {
            case .success(let reply): Self.log(6, "tickerboard-mqtt: \(command.line): \(reply)")
            case .failure(let error): Self.log(4, "tickerboard-mqtt: \(command.line): \(error)")
            }
            nextPoll = 0
        case .screenshot:
            publishScreenshot()
        case .ignore(let why):
            Self.log(6, "tickerboard-mqtt: ignored: \(why)")
        }
    }

    // MARK: The daemon

    /// One request on a fresh connection to the control socket, with a 5 s deadline for the answer.
    func request(_ command: ControlCommand, passing fd: FileDescriptor? = nil) -> Result<String, BridgeError> {
        let connection: UnixConnection
        do { connection = try UnixConnection.connect(to: settings.control) } catch {
            return .failure(BridgeError("cannot connect to \(settings.control): \(error)"))
        }
        connection.setReceiveTimeout(seconds: 5)
        do { try connection.sendAll(Array((command.line + "\n").utf8), passing: fd) } catch {
            return .failure(BridgeError("cannot send: \(error)"))
        }
        let line: [UInt8]?
        do { line = try connection.readLine(limit: 1 << 20) } catch { return .failure(BridgeError("no answer: \(error)")) }
        guard let line, let reply = ControlReply.parse(String(decoding: line, as: UTF8.self)) else {
            return .failure(BridgeError("no answer"))
        }
        switch reply {
        case .ok(let text): return .success(text ?? "")
        case .error(let error): return .failure(BridgeError("\(error.kind): \(error.message)"))
        }
    }

    private func poll() {
        nextPoll = MonotonicClock.seconds + settings.pollSeconds
        guard case .success(let statusText) = request(.status), case .success(let listText) = request(.instruments),
              let status = BridgeModel.status(fromJSON: statusText), let list = BridgeModel.listing(fromJSON: listText) else {
            if daemonReachable != false {
                Self.log(4, "tickerboard-mqtt: the daemon does not answer on \(settings.control); offline until it does")
                publish(BridgeMessage(model.availabilityTopic, "offline"))
            }
            daemonReachable = false
            return
        }
        instruments = list.instruments
        ranges = list.ranges
        scenes = list.scenes
        let temperature = socTemperature()
        let key = instruments.map { "\($0.id)|\($0.name)|\($0.currency)" }.joined(separator: ",") + ranges.joined() + scenes.joined()
            + (temperature == nil ? "" : "|thermal")
        if key != discoveryKey {
            discoveryKey = key
            for message in model.discovery(instruments: instruments, ranges: ranges, scenes: scenes, temperature: temperature != nil) {
                publish(message)
            }
            publishedInstruments.formUnion(instruments.map { BridgeModel.objectID($0.id) })
            clearRemovedInstruments()
        }
        if daemonReachable != true {
            publish(BridgeMessage(model.availabilityTopic, "online"))
            daemonReachable = true
        }
        let s = status
        for message in model.state(s, instruments: instruments, temperature: temperature) where lastState[message.topic] != message.payload {
            lastState[message.topic] = message.payload
            publish(message)
        }
        for event in model.alertEvents(s.alertFirings, seen: &seenFirings, since: startedAt) {
            Self.log(6, "tickerboard-mqtt: alert event: \(String(decoding: event.payload, as: UTF8.self))")
            publish(event)
        }
        let frames = status.settledFrame
        if settings.screenshotSeconds > 0, frames != lastFrames, MonotonicClock.seconds >= nextScreenshot {
            lastFrames = frames
            publishScreenshot()
        }
    }

    /// The SoC's temperature from the thermal zones, nil on a machine without them.
    private func socTemperature() -> Double? {
        let zones = FileSystem.list(thermalDirectory).filter { $0.hasPrefix("thermal_zone") }.sorted().compactMap { zone -> (type: String, temp: String)? in
            let dir = thermalDirectory + "/" + zone
            guard let temp = try? RegularFile.read(dir + "/temp", limit: 64) else { return nil }
            let type = (try? RegularFile.read(dir + "/type", limit: 256)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return (type, String(decoding: temp, as: UTF8.self))
        }
        return BridgeModel.socTemperature(zones: zones)
    }

    /// Instruments no longer configured (removed by a reload, or while the bridge was down) lose
    /// their retained discovery and state: Home Assistant removes their sensors, instead of keeping
    /// them "live" with the last price for ever (issue 54).
    private func clearRemovedInstruments() {
        let current = Set(instruments.map { BridgeModel.objectID($0.id) })
        for object in publishedInstruments.subtracting(current).sorted() {
            Self.log(6, "tickerboard-mqtt: instrument \(object) is no longer configured; its sensors are removed")
            for message in model.removal(ofInstrumentObject: object) {
                lastState[message.topic] = nil
                publish(message)
            }
        }
        publishedInstruments = current
    }

    /// The picture on the glass: the daemon writes the PNG into an anonymous in-memory file passed
    /// with the request (a regular file: the daemon's write never waits on us), then it is published.
    private func publishScreenshot() {
        nextScreenshot = MonotonicClock.seconds + settings.screenshotSeconds
        let file: MemoryFile
        do { file = try MemoryFile(name: "tickerboard-screenshot") } catch {
            return Self.log(4, "tickerboard-mqtt: screenshot: memfd: \(error)")
        }
        switch request(.screenshot, passing: file.descriptor) {
        case .failure(let error): Self.log(4, "tickerboard-mqtt: screenshot: \(error)")
        case .success:
            guard let bytes = file.contents(limit: 64 << 20), !bytes.isEmpty else { return }
            var message = BridgeMessage(model.screenshotTopic, "")
            message.payload = bytes
            publish(message)
        }
    }

    private func publish(_ message: BridgeMessage) {
        guard let mosq else { return }
        let rc = message.payload.withUnsafeBytes {
            mosquitto_publish(mosq, nil, message.topic, Int32(message.payload.count), $0.baseAddress, 1, message.retain)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue { Self.log(6, "tickerboard-mqtt: publish \(message.topic): \(Self.describe(rc))") }
    }

}

public struct BridgeError: Error, CustomStringConvertible {
    public let description: String
    init(_ text: String) { description = text }
}

extension MonotonicClock {
    static var seconds: Double { Double(now()) / 1e9 }
}
