import Control
import Feed
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// `tickerboard-mqtt [--config FILE] [--config-dir DIR] [--check]`: the `[mqtt]` section of the
/// config (and its drop-ins), then the service.
public enum BridgeCommand {
    public static let help = """
        tickerboard-mqtt: Tickerboard in Home Assistant, over MQTT (discovery, commands, state)

        usage: tickerboard-mqtt [--config FILE] [--config-dir DIR] [--check]
               tickerboard-mqtt --version

        Reads [mqtt] from the config (default /etc/tickerboard/tickerboard.conf) and its drop-ins
        (conf.d/*.conf beside it): host, port, control (the daemon's socket), node-id,
        discovery-prefix, base-topic, username-file, password-file, tls-ca-file, tls-cert-file,
        tls-key-file, poll-interval, screenshot-interval, keepalive. --check only checks them.
        exit status: 0 stopped by a signal, 1 failed, 2 usage or configuration error
        """

    public static func main(_ arguments: [String], version: String) -> Int32 {
        ProcessResources.ignoreBrokenPipes()
        var path = "/etc/tickerboard/tickerboard.conf"
        var directory: String?
        var check = false
        var args = arguments[...]
        while let arg = args.popFirst() {
            switch arg {
            case "--help", "-h": print(help); return 0
            case "--version": print("tickerboard-mqtt \(version)"); return 0
            case "--config", "--config-dir":
                guard let v = args.popFirst(), !v.hasPrefix("--") else { return usage("\(arg) needs a value") }
                if arg == "--config" { path = v } else { directory = v }
            case "--check": check = true
            default: return usage("unknown argument \"\(arg)\"")
            }
        }
        let scan = ConfigDropIns.scan(directory ?? ConfigDropIns.defaultDirectory(for: path))
        var (settings, problems) = load(path: path, dropIns: scan.files)
        problems = scan.refused.map { ("\($0.file): \($0.reason)", false) } + problems
        for problem in problems { BridgeService.log(problem.error ? 3 : 4, problem.text) }
        if problems.contains(where: \.error) { return 2 }
        let machineHash = (try? RegularFile.read("/etc/machine-id", limit: 4096))
            .flatMap { MachineIdentity.hash(machineID: String(decoding: $0, as: UTF8.self)) }
        if !settings.nodeIDGiven {
            if let machineHash { settings.nodeID = MachineIdentity.nodeID(machineHash: machineHash) } else {
                BridgeService.log(4, "tickerboard-mqtt: no machine id in /etc/machine-id; node id \"\(settings.nodeID)\": "
                                  + "set [mqtt] node-id on each wall, or two walls share their entities and their broker session")
            }
        }
        if check {
            print("\(path): [mqtt] OK: \(settings.host):\(settings.port), control \(settings.control), node \(settings.nodeID), topics under \(settings.base)")
            return 0
        }
        let clientID = MachineIdentity.clientID(nodeID: settings.nodeID, nodeIDGiven: settings.nodeIDGiven, machineHash: machineHash)
        return BridgeService(settings: settings, version: version, clientID: clientID).run()
    }

    private static func usage(_ text: String) -> Int32 {
        BridgeService.log(3, "tickerboard-mqtt: \(text) (see tickerboard-mqtt --help)")
        return 2
    }

    /// The `[mqtt]` keys of the file and its drop-ins, in order; other sections are the daemon's.
    static func load(path: String, dropIns: [String]) -> (MQTTSettings, [(text: String, error: Bool)]) {
        var settings = MQTTSettings()
        // (file, line, text, error): bounded as the daemon's (ConfigSources: issue 54 item 18).
        var problems: [(file: String, line: Int, text: String, error: Bool)] = []
        let read = ConfigSources.read([path] + dropIns)
        if let p = read.unreadable { problems.append((p.file, 0, "\(p.file): cannot read: \(p.message)", true)) }
        for (text, file) in read.sources {
            var section = ""
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(raw).trimmingSpaces
                if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
                if line.hasPrefix("[") {
                    section = String(line.dropFirst().prefix { $0 != "]" }).trimmingSpaces.lowercased()
                    continue
                }
                guard section == "mqtt", let eq = line.firstIndex(of: "=") else { continue }
                let key = String(line[..<eq]).trimmingSpaces.lowercased()
                var value = String(line[line.index(after: eq)...]).trimmingSpaces
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                switch settings.apply(key, value) {
                case .ok: break
                case .invalid(let message): problems.append((file, index + 1, "\(file):\(index + 1): \(key): \(message)", true))
                case .unknown:
                    problems.append((file, index + 1, "\(file):\(index + 1): \(key): unknown key in [mqtt] (known: \(MQTTSettings.keys.joined(separator: ", ")))", false))
                }
            }
        }
        // The bound first: it must not be hidden among a file's 40 shown messages.
        if let p = read.over { problems.insert((p.file, p.line, "\(p.file):\(p.line): \(p.message)", true), at: 0) }
        let shown = ConfigSources.summarized(problems, file: \.file, line: \.line, isError: \.error, text: \.text,
                                             make: { (file: $0, line: $1, text: "\($0):\($1): \($2)", error: $3) })
        return (settings, shown.map { ($0.text, $0.error) })
    }
}
